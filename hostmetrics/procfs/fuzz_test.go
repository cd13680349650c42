package procfs

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
)

// parsers are the parsers of /proc files, by index, each into a fresh
// value or into one a previous parse filled (the readers reuse theirs).
var parsers = []struct {
	file  string // in testdata/proc, for the seeds
	parse func(data []byte, out any) error
	fresh func() any
}{
	{"stat", func(d []byte, o any) error { return parseStat(d, o.(*Stat)) }, func() any { return new(Stat) }},
	{"meminfo", func(d []byte, o any) error { return parseMeminfo(d, o.(*Meminfo)) }, func() any { return new(Meminfo) }},
	{"loadavg", func(d []byte, o any) error { return parseLoadavg(d, o.(*Loadavg)) }, func() any { return new(Loadavg) }},
	{"vmstat", func(d []byte, o any) error { return parseVmstat(d, o.(*Vmstat)) }, func() any { return new(Vmstat) }},
	{"diskstats", func(d []byte, o any) error { return parseDiskstats(d, o.(*Diskstats)) }, func() any { return new(Diskstats) }},
	{"net/dev", func(d []byte, o any) error { return parseNetDev(d, o.(*NetDev)) }, func() any { return new(NetDev) }},
	{"pressure/cpu", func(d []byte, o any) error { return ParsePressure(d, o.(*Pressure)) }, func() any { return new(Pressure) }},
}

// FuzzParse feeds any bytes to a parser of a /proc file (which: its index):
// it never panics, and a value reused from an earlier parse of the real
// file holds, after a successful parse, exactly what a fresh value does:
// nothing of the earlier file leaks into a sample. Seeds: the files of
// testdata/proc, below, and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for i, p := range parsers {
		data, err := os.ReadFile(filepath.Join("testdata", "proc", p.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(i))
		f.Add(data[:len(data)/2], uint8(i))
		f.Add(bytes.ReplaceAll(data, []byte(" "), []byte("  \t")), uint8(i))
	}
	f.Add([]byte("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 99999999999999999999999 1 1 1\n"), uint8(0))
	f.Add([]byte("MemTotal: 18446744073709551615 kB\nMemAvailable: -1 kB\n"), uint8(1))
	f.Add([]byte("   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n   8 1\n"), uint8(4))
	f.Add([]byte("Inter-|\n face |\n  lo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\neth0:\n"), uint8(5))
	f.Add([]byte("some avg10=NaN avg60=+Inf avg300=1e999 total=18446744073709551616\nfull\n"), uint8(6))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		defer fuzzcheck.NoHang(data, which)()
		p := parsers[int(which)%len(parsers)]
		fresh := p.fresh()
		errFresh := p.parse(data, fresh)

		reused := p.fresh()
		real, err := os.ReadFile(filepath.Join("testdata", "proc", p.file))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.parse(real, reused); err != nil {
			t.Fatalf("%s: the real file does not parse: %v", p.file, err)
		}
		errReused := p.parse(data, reused)
		if (errFresh == nil) != (errReused == nil) {
			t.Fatalf("%s: fresh parse %v, reused parse %v", p.file, errFresh, errReused)
		}
		if errFresh == nil && !reflect.DeepEqual(normalize(fresh), normalize(reused)) {
			t.Fatalf("%s: a reused value holds\n%+v\na fresh one\n%+v", p.file, reused, fresh)
		}
	})
}

// normalize makes an empty slice and none the same.
func normalize(v any) any {
	switch x := v.(type) {
	case *Stat:
		c := *x
		if len(c.CPUs) == 0 {
			c.CPUs = nil
		}
		return c
	case *Diskstats:
		c := *x
		if len(c.Devices) == 0 {
			c.Devices = nil
		}
		return c
	case *NetDev:
		c := *x
		if len(c.Interfaces) == 0 {
			c.Interfaces = nil
		}
		return c
	}
	return v
}
