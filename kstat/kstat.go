package kstat

import (
	"errors"
	"strconv"
)

var (
	// ErrParse is wrapped by every error about bytes that do not decode as
	// the layout they should have: short data, a header without its NUL, a
	// string pointer outside its buffer.
	ErrParse = errors.New("kstat: malformed data")

	// ErrStale is wrapped when the kernel no longer has the kstat asked for
	// (ENXIO): it went away after the headers were read. Token.Update
	// reads the new chain.
	ErrStale = errors.New("kstat: no longer in the kstat chain")

	// ErrUnsupported is errors.ErrUnsupported, wrapped by Open on systems
	// other than illumos.
	ErrUnsupported = errors.ErrUnsupported
)

// Type is a kstat's type, ks_type: what its data section holds.
type Type uint8

// Kstat types, KSTAT_TYPE_* of <sys/kstat.h>.
const (
	TypeRaw   Type = 0 // KSTAT_TYPE_RAW: any bytes
	TypeNamed Type = 1 // KSTAT_TYPE_NAMED: kstat_named_t name=value pairs
	TypeIntr  Type = 2 // KSTAT_TYPE_INTR: kstat_intr_t interrupt counts
	TypeIO    Type = 3 // KSTAT_TYPE_IO: one kstat_io_t
	TypeTimer Type = 4 // KSTAT_TYPE_TIMER: kstat_timer_t event timers
)

func (t Type) String() string {
	switch t {
	case TypeRaw:
		return "raw"
	case TypeNamed:
		return "named"
	case TypeIntr:
		return "intr"
	case TypeIO:
		return "io"
	case TypeTimer:
		return "timer"
	}
	return "type" + strconv.Itoa(int(t))
}

// DataType is the type of one named value, kstat_named_t's data_type.
type DataType uint8

// Named value types, KSTAT_DATA_* of <sys/kstat.h>. The kernel's own
// KSTAT_DATA_LONG and KSTAT_DATA_ULONG reach a 64-bit program as
// DataInt64 and DataUint64: the driver converts them. KSTAT_DATA_FLOAT (5)
// and KSTAT_DATA_DOUBLE (6) are obsolete and not decoded.
const (
	DataChar   DataType = 0 // KSTAT_DATA_CHAR: up to 16 bytes of text in the value itself
	DataInt32  DataType = 1 // KSTAT_DATA_INT32
	DataUint32 DataType = 2 // KSTAT_DATA_UINT32
	DataInt64  DataType = 3 // KSTAT_DATA_INT64
	DataUint64 DataType = 4 // KSTAT_DATA_UINT64
	DataString DataType = 9 // KSTAT_DATA_STRING: a string of any length after the values
)

func (d DataType) String() string {
	switch d {
	case DataChar:
		return "char"
	case DataInt32:
		return "int32"
	case DataUint32:
		return "uint32"
	case DataInt64:
		return "int64"
	case DataUint64:
		return "uint64"
	case DataString:
		return "string"
	}
	return "data" + strconv.Itoa(int(d))
}

// KStat is one kstat's header, as read from the chain.
type KStat struct {
	ID       int64 // ks_kid: unique while the system runs; never reused
	Module   string
	Instance int
	Name     string
	Class    string
	Type     Type

	// hdr is the kstat_t as the kernel listed it, handed back to
	// KSTAT_IOC_READ. Nil for a KStat made by hand: then a header with
	// just ks_kid is passed, which is all the driver looks up.
	hdr *[kstatSize]byte
}

// String returns module:instance:name, as kstat(1) writes it.
func (k KStat) String() string {
	return k.Module + ":" + strconv.Itoa(k.Instance) + ":" + k.Name
}

// Named is one value of a named kstat, a kstat_named_t.
type Named struct {
	Name string
	Type DataType
	Int  int64  // DataInt32, DataInt64
	Uint uint64 // DataUint32, DataUint64
	Str  string // DataChar, DataString ("" for a NULL string)
}

// Value returns the value called name in ns.
func Value(ns []Named, name string) (Named, bool) {
	for _, n := range ns {
		if n.Name == name {
			return n, true
		}
	}
	return Named{}, false
}

// IO is the data of an I/O kstat, a kstat_io_t: a disk, a partition, an NFS
// mount. The times are cumulative nanoseconds (the kernel scales them when
// it takes the snapshot); a "len" time is the running sum of queue length ×
// time, from which the mean queue length over an interval follows.
type IO struct {
	NRead, NWritten uint64 // bytes read and written
	Reads, Writes   uint64 // read and write operations
	WTime           int64  // time with requests waiting (pre-service)
	WLenTime        int64  // wait queue length × time
	WLastUpdate     int64  // when the wait queue last changed (hrtime)
	RTime           int64  // time with requests in service: busy time
	RLenTime        int64  // run queue length × time
	RLastUpdate     int64  // when the run queue last changed (hrtime)
	WCnt, RCnt      uint32 // requests waiting, and in service, at the snapshot
}
