package profile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/regularfile"
)

// FileName is the name of the profile in the output directory.
const FileName = "profile.json"

// ErrParse marks an artifact that could not be used, or a part of one.
var ErrParse = errors.New("profile: malformed artifact")

// Row is what the profile uses of one row of resource-usage.csv
// (docs/csv.md). Deltas cover the time since the previous row.
type Row struct {
	Time  time.Time
	Phase string
	// CPU is the job's user + system CPU time since the previous row, in
	// seconds.
	CPU Opt
	// Memory is the job's memory in use at the row, in bytes.
	Memory Opt
	// Disk is the bytes the job read and wrote since the previous row.
	Disk Opt
	// Net is the bytes the machine received and sent since the previous
	// row, loopback excluded.
	Net Opt
	// CPUs is the number of online CPUs.
	CPUs Opt
}

// Opt is a figure that may be absent (an empty cell).
type Opt struct {
	V  float64
	OK bool
}

// The columns read, by name (usagecsv.Columns).
var csvColumns = []string{
	"time_utc", "phase", "job_cpu_user_s", "job_cpu_system_s", "job_memory_bytes",
	"job_read_bytes", "job_write_bytes", "host_net_rx_bytes", "host_net_tx_bytes", "host_cpus_count",
}

// ParseCSV reads resource-usage.csv. Columns are found by name, so a file
// with columns added later still reads. A row that cannot be read (a torn
// last line, a bad time) is skipped and reported in the returned error,
// joined with the others, next to the rows that could be read.
func ParseCSV(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: %s header: %v", ErrParse, usagecsv.FileName, err)
	}
	idx := map[string]int{}
	for i, h := range header {
		idx[h] = i
	}
	col := map[string]int{}
	for _, c := range csvColumns {
		i, ok := idx[c]
		if !ok {
			return nil, fmt.Errorf("%w: %s has no column %s", ErrParse, usagecsv.FileName, c)
		}
		col[c] = i
	}
	var rows []Row
	var reports []error
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			reports = append(reports, fmt.Errorf("%w: %s line %d: %v", ErrParse, usagecsv.FileName, line, err))
			continue
		}
		if len(rec) < len(header) {
			reports = append(reports, fmt.Errorf("%w: %s line %d: %d fields, want %d", ErrParse, usagecsv.FileName, line, len(rec), len(header)))
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, rec[col["time_utc"]])
		if err != nil {
			reports = append(reports, fmt.Errorf("%w: %s line %d: %v", ErrParse, usagecsv.FileName, line, err))
			continue
		}
		num := func(names ...string) Opt {
			var o Opt
			for _, n := range names {
				s := rec[col[n]]
				if s == "" {
					return Opt{}
				}
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					reports = append(reports, fmt.Errorf("%w: %s line %d: %s: %v", ErrParse, usagecsv.FileName, line, n, err))
					return Opt{}
				}
				o.V += v
			}
			o.OK = true
			return o
		}
		rows = append(rows, Row{
			Time:   t,
			Phase:  rec[col["phase"]],
			CPU:    num("job_cpu_user_s", "job_cpu_system_s"),
			Memory: num("job_memory_bytes"),
			Disk:   num("job_read_bytes", "job_write_bytes"),
			Net:    num("host_net_rx_bytes", "host_net_tx_bytes"),
			CPUs:   num("host_cpus_count"),
		})
	}
	return rows, errors.Join(reports...)
}

// ReadSpans reads the spans of a spool file (spans.otlp.jsonl), at most
// spool.MaxReadSpans of them and their ancestors (spool.ReadSpans), and
// returns how many it left out. Lines that cannot be read are reported in
// the returned error next to the spans of the others.
func ReadSpans(path string) ([]*tracepb.Span, int, error) {
	var spans []*tracepb.Span
	skipped, err := spool.ReadSpansProto(path, spool.MaxReadSpans, func(_ *tracepb.ResourceSpans, s *tracepb.Span) {
		spans = append(spans, s)
	})
	return spans, skipped, err
}

// ReadDir reads the artifacts of a run in dir. A missing file is an error
// (wrapping fs.ErrNotExist) with nothing returned; lines that could not be
// read are reported in warn, and the rest is returned.
func ReadDir(dir string) (spans []*tracepb.Span, rows []Row, warn error, err error) {
	spans, skipped, serr := ReadSpans(filepath.Join(dir, spool.TracesFile))
	if errors.Is(serr, os.ErrNotExist) {
		return nil, nil, nil, serr
	}
	if skipped > 0 {
		serr = errors.Join(serr, fmt.Errorf("%d spans past the first %d are not in the profile", skipped, spool.MaxReadSpans))
	}
	f, err := regularfile.Open(filepath.Join(dir, usagecsv.FileName))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("profile: %s: %w", usagecsv.FileName, err)
	}
	defer f.Close()
	rows, cerr := ParseCSV(regularfile.LimitLines(f, usagecsv.MaxLineBytes))
	if rows == nil && cerr != nil {
		return nil, nil, nil, cerr
	}
	return spans, rows, errors.Join(serr, cerr), nil
}
