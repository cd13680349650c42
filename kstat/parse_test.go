package kstat

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/kstat/internal/fixture"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFixturesUpToDate checks that testdata holds exactly what mkfixtures
// writes.
func TestFixturesUpToDate(t *testing.T) {
	want := fixture.Files()
	got, _ := filepath.Glob(filepath.Join("testdata", "*.bin"))
	var names []string
	for _, p := range got {
		names = append(names, filepath.Base(p))
	}
	var wantNames []string
	for name := range want {
		wantNames = append(wantNames, name)
	}
	slices.Sort(wantNames)
	if !slices.Equal(names, wantNames) {
		t.Fatalf("testdata has %v, mkfixtures writes %v (run go generate ./kstat/)", names, wantNames)
	}
	for name, b := range want {
		if !bytes.Equal(readFixture(t, name), b) {
			t.Errorf("testdata/%s differs from what mkfixtures writes (run go generate ./kstat/)", name)
		}
	}
}

func TestParseHeaders(t *testing.T) {
	data := readFixture(t, "headers.bin")
	list, err := parseHeaders(data, uint32(len(data)/kstatSize))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 15 {
		t.Fatalf("%d headers, want 15", len(list))
	}
	// Spot checks written out by hand.
	first := list[0]
	if first.ID != 0 || first.String() != "unix:0:kstat_headers" || first.Class != "kstat" || first.Type != TypeRaw {
		t.Errorf("first header %+v", first)
	}
	var disk KStat
	for _, k := range list {
		if k.Class == "disk" {
			disk = k
		}
	}
	if disk.ID != 87 || disk.String() != "sd:0:sd0" || disk.Type != TypeIO {
		t.Errorf("disk header %+v", disk)
	}
	info := decodeHeaderInfo(list[4].hdr[:])
	if list[4].String() != "unix:0:system_misc" || info.ndata != 11 || info.dataSize != 11*48 || info.flags != flagVirtual {
		t.Errorf("system_misc: %s %+v", list[4], info)
	}
	// Everything against the chain the file was written from.
	for i, e := range fixture.Chain() {
		k := list[i]
		want := KStat{ID: int64(e.Kid), Module: e.Module, Instance: int(e.Instance), Name: e.Name, Class: e.Class, Type: Type(e.Type), hdr: k.hdr}
		if k != want {
			t.Errorf("header %d: %+v, want %+v", i, k, want)
		}
	}
	// The headers are copies: the buffer may be reused.
	clear(data)
	if list[4].Name != "system_misc" || list[4].hdr[offKsName] != 's' {
		t.Error("parseHeaders kept a reference to its input")
	}
}

func TestParseNamedSystemMisc(t *testing.T) {
	data := readFixture(t, "unix_0_system_misc.bin")
	ns, err := parseNamed(data, 11, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want uint64
	}{{"ncpus", 2}, {"nproc", 87}, {"avenrun_1min", 78}, {"avenrun_15min", 40}, {"boot_time", 1767225600}, {"nsec_per_tick", 10_000_000}} {
		n, ok := Value(ns, c.name)
		if !ok || n.Type != DataUint32 || n.Uint != c.want || n.Int != 0 {
			t.Errorf("%s: %+v, want uint32 %d", c.name, n, c.want)
		}
	}
	if _, ok := Value(ns, "avenrun_2min"); ok {
		t.Error("Value found a name that is not there")
	}
}

func TestParseNamedCPUInfo(t *testing.T) {
	data := readFixture(t, "cpu_info_0_cpu_info0.bin")
	ns, err := parseNamed(data, 19, fixture.StringBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []Named{
		{Name: "state", Type: DataChar, Str: "on-line"},
		{Name: "fpu_type", Type: DataChar, Str: "i387 compatible"},
		{Name: "clock_MHz", Type: DataInt64, Int: 2400},
		{Name: "pg_id", Type: DataInt64, Int: -1},
		{Name: "family", Type: DataInt32, Int: 6},
		{Name: "current_cstate", Type: DataInt32, Int: -1},
		{Name: "current_clock_Hz", Type: DataUint64, Uint: 2_400_000_000},
		{Name: "brand", Type: DataString, Str: "Intel(r) Xeon(r) CPU E-2286G @ 4.00GHz"},
		{Name: "vendor_id", Type: DataString, Str: "GenuineIntel"},
		{Name: "socket_type", Type: DataString, Str: ""},
	} {
		if n, _ := Value(ns, want.Name); n != want {
			t.Errorf("%s: %+v, want %+v", want.Name, n, want)
		}
	}
	// Decoded against another base, every pointer falls outside the buffer.
	if _, err := parseNamed(data, 19, fixture.StringBase+1<<20); !errors.Is(err, ErrParse) {
		t.Errorf("wrong base: err %v, want ErrParse", err)
	}
}

// TestParseNamedChain decodes every named kstat of the fixture chain, put
// at an arbitrary address, and compares it with the values written.
func TestParseNamedChain(t *testing.T) {
	const base = 0x00007fffbf7e1000
	for _, e := range fixture.Chain() {
		if e.Type != fixture.TypeNamed {
			continue
		}
		ns, err := parseNamed(e.Data(base), uint32(len(e.Named)), base)
		if err != nil {
			t.Errorf("%s:%d:%s: %v", e.Module, e.Instance, e.Name, err)
			continue
		}
		for i, v := range e.Named {
			want := Named{Name: v.Name, Type: DataType(v.Type), Int: v.Int, Uint: v.Uint, Str: v.Str}
			if ns[i] != want {
				t.Errorf("%s:%d:%s value %d: %+v, want %+v", e.Module, e.Instance, e.Name, i, ns[i], want)
			}
		}
	}
}

func TestParseIO(t *testing.T) {
	v, err := parseIO(readFixture(t, "sd_0_sd0.bin"))
	if err != nil {
		t.Fatal(err)
	}
	want := IO{
		NRead: 1_234_567_168, NWritten: 987_654_144, Reads: 45_210, Writes: 30_811,
		WLastUpdate: 3_600_000_000_000 - 5_000_000,
		RTime:       123_456_789_012, RLenTime: 130_987_654_321, RLastUpdate: 3_600_000_000_000 - 4_000_000,
		RCnt: 1,
	}
	if v != want {
		t.Errorf("got  %+v\nwant %+v", v, want)
	}
}

func TestParseUnknownDataType(t *testing.T) {
	var n fixture.KstatNamed
	n.Name = fixture.Str("ratio")
	n.DataType = 6 // KSTAT_DATA_DOUBLE, obsolete
	n.SetUint64(0x3ff0000000000000)
	ns, err := parseNamed(fixture.Encode(n), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Named{Name: "ratio", Type: 6}); ns[0] != want {
		t.Errorf("%+v, want %+v", ns[0], want)
	}
}

func TestParseMalformed(t *testing.T) {
	headers := readFixture(t, "headers.bin")
	n := uint32(len(headers) / kstatSize)
	misc := readFixture(t, "unix_0_system_misc.bin")
	info := readFixture(t, "cpu_info_0_cpu_info0.bin")
	sd := readFixture(t, "sd_0_sd0.bin")
	const brand = 7 // index of "brand" in cpu_info0
	withPtr := func(ptr uint64, length uint32) []byte {
		b := bytes.Clone(info)
		le.PutUint64(b[brand*namedSize+offKnStrPtr:], ptr)
		le.PutUint32(b[brand*namedSize+offKnStrLen:], length)
		return b
	}
	edit := func(b []byte, f func([]byte)) []byte {
		b = bytes.Clone(b)
		f(b)
		return b
	}
	base := fixture.StringBase
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"headers one byte short", first(parseHeaders(headers[:len(headers)-1], n)), "need 2760 bytes"},
		{"headers empty", first(parseHeaders(nil, 1)), "need 184 bytes"},
		{"module without NUL", first(parseHeaders(edit(headers, func(b []byte) {
			copy(b[kstatSize+offKsModule:], strings.Repeat("x", kstatStrlen))
		}), n)), "no NUL"},
		{"KIDs out of order", first(parseHeaders(edit(headers, func(b []byte) {
			le.PutUint32(b[2*kstatSize+offKsKid:], 1)
		}), n)), "increasing"},
		{"negative KID", first(parseHeaders(edit(headers, func(b []byte) {
			le.PutUint32(b[offKsKid:], 0xffffffff)
		}), 1)), "negative KID"},
		{"named one byte short", first(parseNamed(misc[:len(misc)-1], 11, 0)), "need 528 bytes"},
		{"named name without NUL", first(parseNamed(edit(misc, func(b []byte) {
			copy(b[namedSize+offKnName:], strings.Repeat("y", kstatStrlen))
		}), 11, 0)), "no NUL"},
		{"string pointer before the buffer", first(parseNamed(withPtr(base-1, 4), 19, base)), "outside the buffer"},
		{"string pointer into the array", first(parseNamed(withPtr(base+namedSize, 4), 19, base)), "into the kstat_named_t array"},
		{"string pointer past the buffer", first(parseNamed(withPtr(base+uint64(len(info))+1, 1), 19, base)), "outside the buffer"},
		{"string running past the buffer", first(parseNamed(withPtr(base+uint64(len(info))-2, 3), 19, base)), "runs past"},
		{"io one byte short", first(parseIO(sd[:ioSize-1])), "needs 80 bytes"},
	} {
		if !errors.Is(c.err, ErrParse) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err %v, want ErrParse and %q", c.name, c.err, c.want)
		}
	}
	// Edge cases that are not errors.
	if list, err := parseHeaders(nil, 0); err != nil || len(list) != 0 {
		t.Errorf("empty chain: %v %v", list, err)
	}
	if ns, err := parseNamed(withPtr(base+uint64(len(info)), 0), 19, base); err != nil || ns[brand].Str != "" {
		t.Errorf("empty string at the end of the buffer: %+v %v", ns[brand], err)
	}
	if ns, err := parseNamed(withPtr(base+uint64(len(info))-1, 1), 19, base); err != nil || ns[brand].Str != "" {
		t.Errorf("last byte of the buffer: %+v %v", ns[brand], err)
	}
}

func first[T any](_ T, err error) error { return err }

func TestTypeNames(t *testing.T) {
	if got := []string{TypeRaw.String(), TypeNamed.String(), TypeIntr.String(), TypeIO.String(), TypeTimer.String(), Type(9).String()}; !reflect.DeepEqual(got, []string{"raw", "named", "intr", "io", "timer", "type9"}) {
		t.Errorf("Type names %v", got)
	}
	if got := []string{DataChar.String(), DataInt32.String(), DataUint32.String(), DataInt64.String(), DataUint64.String(), DataString.String(), DataType(6).String()}; !reflect.DeepEqual(got, []string{"char", "int32", "uint32", "int64", "uint64", "string", "data6"}) {
		t.Errorf("DataType names %v", got)
	}
}
