package usagecsv

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
)

// The Tee gets the file's bytes: the header and each row written, and not
// a row the file did not get.
func TestTeeGetsWhatTheFileGets(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var tee bytes.Buffer
	w, err := Create(path, Options{Tee: &tee, Phase: func() Phase { return Phase{Name: `a "b", c`, Depth: 1} }})
	if err != nil {
		t.Fatal(err)
	}
	w.Sample(fullA())
	w.Sample(fullB())
	w.Close()
	w.Sample(fullB()) // after Close: not written, not given
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tee.Bytes(), data) || bytes.Count(data, []byte("\n")) != 3 {
		t.Errorf("tee got\n%s\nthe file has\n%s", tee.Bytes(), data)
	}
}

// The Decoder reads what the Writer wrote, by the column table: each
// field as written, by its column.
func TestDecoderReadsTheWritersRows(t *testing.T) {
	var buf bytes.Buffer
	w, err := newWriter(&memFile{failAt: -1}, "mem", Options{Tee: &buf, Phase: func() Phase { return Phase{Name: "x,\"y\"\nz", Depth: 2} }})
	if err != nil {
		t.Fatal(err)
	}
	w.Sample(fullA())
	w.Sample(fullB())
	recs := readCSV(t, buf.String())
	d, err := NewDecoder(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; ; n++ {
		err := d.Next()
		if err == io.EOF {
			if n != 3 {
				t.Errorf("%d rows, want 2", n-1)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range columns {
			if got := d.Text(i); got != recs[n][i] {
				t.Errorf("row %d %s: %q, want %q", n, c.Name, got, recs[n][i])
			}
		}
		if d.Time().Location() != time.UTC || d.Time().Format(timeLayout) != recs[n][0] {
			t.Errorf("time %v, want %s", d.Time(), recs[n][0])
		}
	}
}

// A file from another version reads by name; a row that cannot be read
// is reported with its line and reading goes on; a cell that is not a
// finite number from 0 to usage.MaxFigure is reported and absent.
func TestDecoderOtherFiles(t *testing.T) {
	d, err := NewDecoder(strings.NewReader("new_column,host_cpus_count,time_utc\n" +
		"x,2,2026-01-01T00:00:00.000Z\n" +
		"x,2\n" +
		"x,NaN,2026-01-01T00:00:01.000Z\n" +
		"x,-1.7e308,2026-01-01T00:00:02.000Z\n" +
		"x,18446744073709551616,2026-01-01T00:00:03.000Z\n" +
		"x,-5,2026-01-01T00:00:04.000Z\n"))
	if err != nil {
		t.Fatal(err)
	}
	cpus, mem := Index("host_cpus_count"), Index("job_memory_bytes")
	if err := d.Next(); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := d.Number(cpus); v != 2 || !ok || err != nil {
		t.Errorf("cpus %v %v %v", v, ok, err)
	}
	if _, ok, err := d.Number(mem); ok || err != nil {
		t.Errorf("a column the file lacks: %v %v", ok, err)
	}
	if err := d.Next(); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("short row: %v", err)
	}
	if err := d.Next(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := d.Number(cpus); ok || !errors.Is(err, ErrParse) {
		t.Errorf("NaN: %v %v", ok, err)
	}
	if err := d.Next(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := d.Number(cpus); ok || !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("-1.7e308, past usage.MaxFigure: %v %v", ok, err)
	}
	if err := d.Next(); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := d.Number(cpus); v != usage.MaxFigure || !ok || err != nil {
		t.Errorf("MaxFigure itself: %v %v %v", v, ok, err)
	}
	if err := d.Next(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := d.Number(cpus); ok || !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("-5, a negative figure, which usage.FromAttributes refuses: %v %v", ok, err)
	}
	if _, err := NewDecoder(strings.NewReader("a,b\n")); !errors.Is(err, ErrParse) {
		t.Errorf("no time_utc: %v", err)
	}
	if Index("no such column") != -1 || d.Text(-1) != "" {
		t.Errorf("Index of no column")
	}
}

// A file saved again by a spreadsheet as UTF-8 CSV starts with a byte
// order mark: its header is read all the same, also with CRLF line ends.
func TestDecoderPassesOverAByteOrderMark(t *testing.T) {
	for _, data := range []string{
		"\ufefftime_utc,host_cpus_count\n2026-01-01T00:00:00.000Z,2\n",
		"\ufefftime_utc,host_cpus_count\r\n2026-01-01T00:00:00.000Z,2\r\n",
		"\ufeffhost_cpus_count,time_utc\n2,2026-01-01T00:00:00.000Z\n",
	} {
		d, err := NewDecoder(strings.NewReader(data))
		if err != nil {
			t.Errorf("%q: %v", data, err)
			continue
		}
		if err := d.Next(); err != nil {
			t.Errorf("%q: %v", data, err)
			continue
		}
		if v, ok, err := d.Number(Index("host_cpus_count")); v != 2 || !ok || err != nil {
			t.Errorf("%q: cpus %v %v %v", data, v, ok, err)
		}
		if tm := d.Time(); tm.Year() != 2026 {
			t.Errorf("%q: time %v", data, tm)
		}
	}
	// Only at the very start: a mark inside a header is not passed over.
	if d, err := NewDecoder(strings.NewReader("time_utc,\ufeffhost_cpus_count\n2026-01-01T00:00:00.000Z,2\n")); err != nil || d.Next() != nil {
		t.Fatalf("mark inside: %v", err)
	} else if _, ok, _ := d.Number(Index("host_cpus_count")); ok {
		t.Errorf("a column named with a mark inside the header was read")
	}
}
