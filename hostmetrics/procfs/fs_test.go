package procfs

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var fixture = NewFS("testdata/proc", "testdata/sys")

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// wantParseErr checks that err wraps ErrParse and names the line.
func wantParseErr(t *testing.T, err error, line int) {
	t.Helper()
	if !errors.Is(err, ErrParse) {
		t.Fatalf("err = %v, want ErrParse", err)
	}
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != line {
		t.Fatalf("err = %v, want line %d", err, line)
	}
}

func TestMissingFilesAreNotExist(t *testing.T) {
	f := NewFS(t.TempDir(), t.TempDir())
	errs := map[string]error{
		"stat":      f.Stat(&Stat{}),
		"meminfo":   f.Meminfo(&Meminfo{}),
		"vmstat":    f.Vmstat(&Vmstat{}),
		"diskstats": f.Diskstats(&Diskstats{}),
		"net/dev":   f.NetDev(&NetDev{}),
		"loadavg":   f.Loadavg(&Loadavg{}),
		"pressure":  f.Pressure(PressureCPU, &Pressure{}),
	}
	for name, err := range errs {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: err = %v, want fs.ErrNotExist", name, err)
		}
	}
}

func TestParseErrorNamesPath(t *testing.T) {
	dir := t.TempDir()
	f := NewFS(dir, "")
	writeFile(t, dir+"/loadavg", "0.00 0.33 garbage 1/84 25900\n")
	err := f.Loadavg(&Loadavg{})
	wantParseErr(t, err, 1)
	if !strings.Contains(err.Error(), dir+"/loadavg line 1") {
		t.Errorf("err = %q, want the path and line", err)
	}
}

// TestLongFile checks that files larger than the initial buffer are read
// whole.
func TestLongFile(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("cpu  1 2 3 4 5 6 7 8 0 0\n")
	for i := range 1000 {
		b.WriteString("cpu")
		b.WriteString(strconv.Itoa(i))
		b.WriteString(" 1 2 3 4 5 6 7 8 0 0\n")
	}
	b.WriteString("intr " + strings.Repeat("0 ", 100000) + "\n")
	b.WriteString("ctxt 42\n")
	writeFile(t, dir+"/stat", b.String())
	var s Stat
	if err := NewFS(dir, "").Stat(&s); err != nil {
		t.Fatal(err)
	}
	if len(s.CPUs) != 1000 || s.CPUs[999].CPU != 999 {
		t.Errorf("got %d CPUs, last %+v", len(s.CPUs), s.CPUs[len(s.CPUs)-1])
	}
}

// An FS reads a file again from its start at every read, whether it keeps
// it open (Linux) or not, and reads it again after Close.
func TestReadsAgainAfterChangeAndClose(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "loadavg")
	writeFile(t, path, "0.50 0.40 0.30 1/100 999\n")
	f := NewFS(root, "")
	defer f.Close()
	var l Loadavg
	for _, c := range []struct {
		content string
		want    float64
	}{
		{"", 0.5},
		{"1.25 0.40 0.30 2/100 1000\n", 1.25},
		{"12.00 10.00 8.00 20/1000 31337\n", 12}, // longer than before
		{"3.00 1.00 1.00 1/9 1\n", 3},            // shorter than before
	} {
		if c.content != "" {
			writeFile(t, path, c.content)
		}
		if err := f.Loadavg(&l); err != nil || l.Load1 != c.want {
			t.Errorf("after %q: %+v, %v", c.content, l, err)
		}
	}
	f.Close()
	writeFile(t, path, "4.00 1.00 1.00 1/9 1\n")
	if err := f.Loadavg(&l); err != nil || l.Load1 != 4 {
		t.Errorf("after Close: %+v, %v", l, err)
	}
}
