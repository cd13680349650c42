package kstat

import (
	"testing"
	"unsafe"

	"github.com/jobtrace/jobtrace/kstat/internal/fixture"
)

// TestLayoutOffsets compares the parser's offsets with those the compiler
// gives the field-by-field restatement of the header's structs in package
// fixture: two independent readings of <sys/kstat.h>.
func TestLayoutOffsets(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the C layout matches Go's only on 64-bit hosts")
	}
	var ks fixture.Kstat
	var kn fixture.KstatNamed
	var kio fixture.KstatIO
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof (kstat_t)", kstatSize, unsafe.Sizeof(ks)},
		{"ks_crtime", offKsCrtime, unsafe.Offsetof(ks.Crtime)},
		{"ks_next", offKsNext, unsafe.Offsetof(ks.Next)},
		{"ks_kid", offKsKid, unsafe.Offsetof(ks.Kid)},
		{"ks_module", offKsModule, unsafe.Offsetof(ks.Module)},
		{"ks_resv", offKsResv, unsafe.Offsetof(ks.Resv)},
		{"ks_instance", offKsInstance, unsafe.Offsetof(ks.Instance)},
		{"ks_name", offKsName, unsafe.Offsetof(ks.Name)},
		{"ks_type", offKsType, unsafe.Offsetof(ks.Type)},
		{"ks_class", offKsClass, unsafe.Offsetof(ks.Class)},
		{"ks_flags", offKsFlags, unsafe.Offsetof(ks.Flags)},
		{"ks_data", offKsData, unsafe.Offsetof(ks.Data)},
		{"ks_ndata", offKsNdata, unsafe.Offsetof(ks.Ndata)},
		{"ks_data_size", offKsDataSize, unsafe.Offsetof(ks.DataSize)},
		{"ks_snaptime", offKsSnaptime, unsafe.Offsetof(ks.Snaptime)},
		{"ks_update", offKsUpdate, unsafe.Offsetof(ks.Update)},

		{"sizeof (kstat_named_t)", namedSize, unsafe.Sizeof(kn)},
		{"name", offKnName, unsafe.Offsetof(kn.Name)},
		{"data_type", offKnDataType, unsafe.Offsetof(kn.DataType)},
		{"value", offKnValue, unsafe.Offsetof(kn.Value)},
		{"sizeof (value)", valueSize, unsafe.Sizeof(kn.Value)},

		{"sizeof (kstat_io_t)", ioSize, unsafe.Sizeof(kio)},
		{"nread", offKioNread, unsafe.Offsetof(kio.Nread)},
		{"nwritten", offKioNwritten, unsafe.Offsetof(kio.Nwritten)},
		{"reads", offKioReads, unsafe.Offsetof(kio.Reads)},
		{"writes", offKioWrites, unsafe.Offsetof(kio.Writes)},
		{"wtime", offKioWtime, unsafe.Offsetof(kio.Wtime)},
		{"wlentime", offKioWlentime, unsafe.Offsetof(kio.Wlentime)},
		{"wlastupdate", offKioWlastupdate, unsafe.Offsetof(kio.Wlastupdate)},
		{"rtime", offKioRtime, unsafe.Offsetof(kio.Rtime)},
		{"rlentime", offKioRlentime, unsafe.Offsetof(kio.Rlentime)},
		{"rlastupdate", offKioRlastupdate, unsafe.Offsetof(kio.Rlastupdate)},
		{"wcnt", offKioWcnt, unsafe.Offsetof(kio.Wcnt)},
		{"rcnt", offKioRcnt, unsafe.Offsetof(kio.Rcnt)},
	} {
		if c.got != c.want {
			t.Errorf("%s: parser uses %d, the struct has %d", c.name, c.got, c.want)
		}
	}
	// The string member of the union: a pointer, then a uint32_t length.
	if offKnStrPtr != offKnValue || offKnStrLen != offKnValue+8 {
		t.Errorf("value.str at %d/%d, want %d/%d", offKnStrPtr, offKnStrLen, offKnValue, offKnValue+8)
	}
}

func TestIoctlNumbers(t *testing.T) {
	// 'K' is 0x4b.
	if kstatIOCChainID != 0x4b01 || kstatIOCRead != 0x4b02 {
		t.Errorf("KSTAT_IOC_CHAIN_ID %#x, KSTAT_IOC_READ %#x", kstatIOCChainID, kstatIOCRead)
	}
}
