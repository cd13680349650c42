package cgroup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
)

// fixtureJob is a cgroup directory with every file the Reader reads.
var fixtureJob = filepath.Join("testdata", "v2", "sys", "fs", "cgroup", "ci.slice", "job-42")

// FuzzRead puts any bytes in one of the files a Reader reads (which: its
// index) and reads the directory: Read never panics, reports a bad file as
// an error wrapping ErrParse, and fills a Stats that held a whole
// directory's figures exactly as it fills a fresh one. Seeds: the fixture's
// files, below, and testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	// cgroup.events, last, is read by Populated, not by Read.
	for i, name := range fileNames[:fileEvents] {
		data, err := os.ReadFile(filepath.Join(fixtureJob, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(i))
	}
	f.Add([]byte("8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=5\n8:16 rbytes=x\n"), uint8(fileIOStat))
	f.Add([]byte("usage_usec 18446744073709551616\nuser_usec\n"), uint8(fileCPUStat))
	f.Add([]byte("max\n\n"), uint8(fileMemoryCurrent))
	f.Add([]byte("some avg10=0.00 avg60=0.00 avg300=0.00 total=1\nfull avg10=1"), uint8(fileIOPressure))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		defer fuzzcheck.NoHang(data, which)()
		name := fileNames[int(which)%len(fileNames)]
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
		// A Reader keeps its files open between reads: closed here, or
		// the fuzzer's iterations run out of file descriptors.
		r := NewReader(dir)
		defer r.Close()
		var fresh Stats
		err := r.Read(&fresh)
		if err != nil && !errors.Is(err, ErrParse) && !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: error %v wraps neither ErrParse nor fs.ErrNotExist", name, err)
		}
		var reused Stats
		fixture := NewReader(fixtureJob)
		defer fixture.Close()
		if err := fixture.Read(&reused); err != nil {
			t.Fatalf("the fixture: %v", err)
		}
		err2 := r.Read(&reused)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(fresh, reused) {
			t.Fatalf("%s: a Stats reused from the fixture holds\n%+v (%v)\na fresh one\n%+v (%v)", name, reused, err2, fresh, err)
		}
	})
}

// FuzzDir finds the cgroup directory from any mountinfo and
// /proc/self/cgroup: never a panic, and a directory found is always inside
// the mount point, whatever ".." the files hold. Seeds: the fixtures',
// below, and testdata/fuzz/FuzzDir.
func FuzzDir(f *testing.F) {
	for _, kind := range []string{"v2", "hybrid"} {
		mi, err := os.ReadFile(filepath.Join("testdata", kind, "proc", "self", "mountinfo"))
		if err != nil {
			f.Fatal(err)
		}
		cg, err := os.ReadFile(filepath.Join("testdata", kind, "proc", "self", "cgroup"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(mi, cg)
	}
	f.Add([]byte("41 31 0:38 /a/b /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"), []byte("0::/a/b/../../../../etc\n"))
	f.Add([]byte("1 1 0:1 / rel\\040dir rw shared:1 - cgroup2 x rw\n"), []byte("0::/x (deleted)\n1:cpu:/y\n"))
	f.Fuzz(func(t *testing.T, mountinfo, procCgroup []byte) {
		defer fuzzcheck.NoHang(mountinfo, procCgroup)()
		m, err := parseMountInfo("mountinfo", mountinfo)
		if err != nil {
			return
		}
		p, err := parseProcCgroup("cgroup", procCgroup)
		if err != nil {
			return
		}
		if !strings.HasPrefix(p, "/") {
			t.Fatalf("cgroup path %q is not absolute", p)
		}
		dir, err := m.Dir(p)
		if err != nil {
			if !errors.Is(err, ErrNoCgroup2) {
				t.Fatalf("Dir(%q) under %+v: %v does not wrap ErrNoCgroup2", p, m, err)
			}
			return
		}
		rel, err := filepath.Rel(filepath.Clean(m.Point), dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			t.Fatalf("Dir(%q) under %+v = %q, outside the mount point", p, m, dir)
		}
	})
}
