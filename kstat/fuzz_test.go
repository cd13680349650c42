package kstat

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
)

// FuzzParse feeds any bytes to the decoders of what the kstat driver
// returns (which: headers, named, I/O): they never panic, return as many
// entries as asked or an error wrapping ErrParse, allocate no more than the
// data holds, and every string they return comes from within the data.
// Seeds: the fixtures of testdata, below, and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"headers.bin", "cpu_0_sys.bin", "cpu_info_0_cpu_info0.bin", "sd_0_sd0.bin", "unix_0_system_misc.bin"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for which := range uint8(3) {
			f.Add(data, uint32(len(data)/kstatSize), uint64(0), which)
			f.Add(data, uint32(len(data)/namedSize), uint64(0x1000), which)
		}
	}
	f.Add([]byte{}, uint32(1<<31), uint64(1<<63), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, n uint32, base uint64, which uint8) {
		defer fuzzcheck.NoHang(data, n, base, which)()
		switch which % 3 {
		case 0:
			list, err := parseHeaders(data, n)
			if err == nil && (uint32(len(list)) != n || len(list)*kstatSize > len(data)) {
				t.Fatalf("%d headers from %d bytes, %d asked", len(list), len(data), n)
			}
			for _, k := range list {
				if len(k.Module) >= kstatStrlen || len(k.Name) >= kstatStrlen || len(k.Class) >= kstatStrlen || k.ID < 0 {
					t.Fatalf("header %+v", k)
				}
			}
		case 1:
			ns, err := parseNamed(data, n, base)
			if err == nil && (uint32(len(ns)) != n || len(ns)*namedSize > len(data)) {
				t.Fatalf("%d named values from %d bytes, %d asked", len(ns), len(data), n)
			}
			for _, v := range ns {
				if len(v.Name) >= kstatStrlen || len(v.Str) > len(data) {
					t.Fatalf("named value %+v from %d bytes", v, len(data))
				}
			}
		case 2:
			if _, err := parseIO(data); (err == nil) != (len(data) >= ioSize) {
				t.Fatalf("parseIO of %d bytes: %v", len(data), err)
			}
		}
	})
}

// FuzzSelector: a selector parsed from any text prints as text that parses
// back to it.
func FuzzSelector(f *testing.F) {
	for _, s := range []string{"", "*", "cpu", "cpu:0:sys", "cpu::sys", "unix:*:system_misc", "a:b", "a:-1", "a:+7:x:y", "::::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelector(s)
		if err != nil {
			return
		}
		back, err := ParseSelector(sel.String())
		if err != nil || back != sel {
			t.Fatalf("ParseSelector(%q) = %+v, printed %q, parsed again %+v, %v", s, sel, sel.String(), back, err)
		}
	})
}
