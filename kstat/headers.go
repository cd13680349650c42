package kstat

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// le is the byte order of illumos/amd64, the only illumos port Go builds.
var le = binary.LittleEndian

// /dev/kstat ioctl requests, from <sys/kstat.h>: KSTAT_IOC_BASE is 'K' << 8.
//
//	kcid = ioctl(kd, KSTAT_IOC_CHAIN_ID, NULL);
//	kcid = ioctl(kd, KSTAT_IOC_READ, kstat_t *);
const (
	kstatIOCBase    = 'K' << 8
	kstatIOCChainID = kstatIOCBase | 0x01 // KSTAT_IOC_CHAIN_ID
	kstatIOCRead    = kstatIOCBase | 0x02 // KSTAT_IOC_READ
)

// kstatStrlen is KSTAT_STRLEN: the size of ks_module, ks_name, ks_class and
// kstat_named_t's name, 30 characters and a NUL.
const kstatStrlen = 31

// kstat_t in the LP64 data model: sizeof (kstat_t) and the offset of each
// field, named after <sys/kstat.h>. ks_kid and ks_instance are 4-byte ints;
// the pointers, size_t and hrtime_t are 8 bytes, aligned on 8, which puts 4
// bytes of padding after ks_ndata.
const (
	kstatSize = 184

	offKsCrtime   = 0   // hrtime_t ks_crtime
	offKsNext     = 8   // struct kstat *ks_next (a kernel address: unused)
	offKsKid      = 16  // kid_t ks_kid
	offKsModule   = 20  // char ks_module[KSTAT_STRLEN]
	offKsResv     = 51  // uchar_t ks_resv
	offKsInstance = 52  // int ks_instance
	offKsName     = 56  // char ks_name[KSTAT_STRLEN]
	offKsType     = 87  // uchar_t ks_type
	offKsClass    = 88  // char ks_class[KSTAT_STRLEN]
	offKsFlags    = 119 // uchar_t ks_flags
	offKsData     = 120 // void *ks_data
	offKsNdata    = 128 // uint_t ks_ndata
	offKsDataSize = 136 // size_t ks_data_size
	offKsSnaptime = 144 // hrtime_t ks_snaptime
	offKsUpdate   = 152 // ks_update, ks_private, ks_snapshot, ks_lock: kernel only
)

// ks_flags bits, KSTAT_FLAG_* of <sys/kstat.h>.
const (
	flagVirtual     = 0x01
	flagVarSize     = 0x02
	flagWritable    = 0x04
	flagPersistent  = 0x08
	flagDormant     = 0x10
	flagInvalid     = 0x20
	flagLongStrings = 0x40
	flagNoHeaders   = 0x80
)

// headerInfo is what a read writes back into the kstat_t besides the data:
// the driver updates ks_ndata, ks_data_size, ks_flags and ks_snaptime.
type headerInfo struct {
	ndata    uint32
	dataSize uint64
	flags    uint8
	snaptime int64 // hrtime of the snapshot, ns
}

func decodeHeaderInfo(h []byte) headerInfo {
	return headerInfo{
		ndata:    le.Uint32(h[offKsNdata:]),
		dataSize: le.Uint64(h[offKsDataSize:]),
		flags:    h[offKsFlags],
		snaptime: int64(le.Uint64(h[offKsSnaptime:])),
	}
}

// parseHeaders decodes the data of kstat 0, the kstat chain: n kstat_t in
// increasing KID order. It copies what it keeps, so data may be reused.
func parseHeaders(data []byte, n uint32) ([]KStat, error) {
	if uint64(n)*kstatSize > uint64(len(data)) {
		return nil, fmt.Errorf("%w: kstat chain: %d headers need %d bytes, have %d", ErrParse, n, uint64(n)*kstatSize, len(data))
	}
	own := bytes.Clone(data[:int(n)*kstatSize])
	list := make([]KStat, n)
	for i := range list {
		h := (*[kstatSize]byte)(own[i*kstatSize : (i+1)*kstatSize])
		k, err := parseHeader(h)
		if err != nil {
			return nil, fmt.Errorf("%w (header %d of %d)", err, i, n)
		}
		if i > 0 && k.ID <= list[i-1].ID {
			return nil, fmt.Errorf("%w: kstat chain: header %d has KID %d after %d, want increasing KIDs", ErrParse, i, k.ID, list[i-1].ID)
		}
		list[i] = k
	}
	return list, nil
}

// parseHeader decodes one kstat_t. The strings must end with their NUL
// inside their arrays, as the kernel writes them: one that does not means
// the bytes are not a kstat_t.
func parseHeader(h *[kstatSize]byte) (KStat, error) {
	kid := int32(le.Uint32(h[offKsKid:]))
	module, ok1 := cstring(h[offKsModule : offKsModule+kstatStrlen])
	name, ok2 := cstring(h[offKsName : offKsName+kstatStrlen])
	class, ok3 := cstring(h[offKsClass : offKsClass+kstatStrlen])
	if !ok1 || !ok2 || !ok3 {
		return KStat{}, fmt.Errorf("%w: kstat_t with KID %d: module, name or class has no NUL", ErrParse, kid)
	}
	if kid < 0 {
		return KStat{}, fmt.Errorf("%w: kstat_t %s:%s: negative KID %d", ErrParse, module, name, kid)
	}
	return KStat{
		ID:       int64(kid),
		Module:   module,
		Instance: int(int32(le.Uint32(h[offKsInstance:]))),
		Name:     name,
		Class:    class,
		Type:     Type(h[offKsType]),
		hdr:      h,
	}, nil
}

// cstring returns the text of b up to its first NUL, and whether there was
// one.
func cstring(b []byte) (string, bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), false
	}
	return string(b[:i]), true
}
