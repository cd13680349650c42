package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

// tornFile makes a file holding data, open for appending.
func tornFile(t *testing.T, data string) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "records")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func content(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCutTorn(t *testing.T) {
	for _, c := range []struct {
		name, data    string
		before, w     int64
		want          string
		wantEnd       int64
		thenAppend    string
		wantAfterNext string
	}{
		// The file ends with the torn bytes: cut back to whole records.
		{name: "cut", data: "one\ntw", before: 4, w: 2, want: "one\n", wantEnd: 4, thenAppend: "three\n", wantAfterNext: "one\nthree\n"},
		// Another writer appended after the torn bytes: they are not
		// cut, the torn record is ended instead.
		{name: "appended by another", data: "one\ntwother\n", before: 4, w: 2, want: "one\ntwother\n\n", wantEnd: 7, thenAppend: "three\n", wantAfterNext: "one\ntwother\n\nthree\n"},
		// Nothing reached the file: nothing to do.
		{name: "nothing written", data: "one\n", before: 4, w: 0, want: "one\n", wantEnd: 4, thenAppend: "three\n", wantAfterNext: "one\nthree\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := tornFile(t, c.data)
			if end := CutTorn(f, c.before, c.w); end != c.wantEnd {
				t.Errorf("CutTorn = %d, want %d", end, c.wantEnd)
			}
			if got := content(t, f); got != c.want {
				t.Errorf("file %q, want %q", got, c.want)
			}
			if _, err := f.Write([]byte(c.thenAppend)); err != nil {
				t.Fatal(err)
			}
			if got := content(t, f); got != c.wantAfterNext {
				t.Errorf("after the next record: %q, want %q", got, c.wantAfterNext)
			}
		})
	}
}
