package usagecsv

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// create makes a Writer on a file in a temporary directory.
func create(t *testing.T, opts Options) (*Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestHeaderWrittenAtCreate(t *testing.T) {
	_, path := create(t, Options{})
	got := readFile(t, path)
	if !strings.HasPrefix(got, "time_utc,elapsed_s,reason,phase,job_cpu_user_s,") || !strings.HasSuffix(got, ",fs_free_bytes,phase_depth,phase_span_id\n") {
		t.Errorf("header = %q", got)
	}
	if strings.Count(got, "\n") != 1 || strings.Count(got, ",") != len(columns)-1 {
		t.Errorf("header is not one line of %d names: %q", len(columns), got)
	}
}

func TestCreateTruncates(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(strings.Repeat("old row\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Sample(fullA())
	w.Close()
	if recs := readCSV(t, readFile(t, path)); len(recs) != 2 {
		t.Errorf("%d records, want the header and one row", len(recs))
	}
}

func TestCreateFails(t *testing.T) {
	_, err := Create(filepath.Join(t.TempDir(), "missing", FileName), Options{})
	if err == nil {
		t.Fatal("Create in a missing directory succeeded")
	}
}

func TestEveryGroupPresent(t *testing.T) {
	phases := []Phase{{Name: "build", SpanID: "00f067aa0ba902b7", Depth: 1}, {Name: "compile", SpanID: "53995c3f42cd8ad8", Depth: 2}}
	n := 0
	w, path := create(t, Options{Phase: func() Phase { n++; return phases[n-1] }})
	w.Sample(fullA())
	w.Sample(fullB())
	if w.Rows() != 2 || w.Dropped() != 0 {
		t.Errorf("Rows, Dropped = %d, %d, want 2, 0", w.Rows(), w.Dropped())
	}
	recs := readCSV(t, readFile(t, path))
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}

	// The first row: gauges, and no deltas.
	checkCells(t, "first row", cells(t, recs[1]), map[string]string{
		"time_utc": "2026-11-29T21:35:45.123Z", "elapsed_s": "0", "reason": "start", "phase": "build",
		"job_cpu_user_s": "", "job_cpu_system_s": "", "job_cpu_pct": "",
		"job_memory_bytes": "200000000", "job_rss_bytes": "100000000",
		"job_processes_count": "5", "job_threads_count": "9",
		"job_read_bytes": "", "job_write_bytes": "",
		"job_cpu_pressure_some_s": "", "job_memory_pressure_some_s": "", "job_memory_pressure_full_s": "",
		"job_io_pressure_some_s": "", "job_io_pressure_full_s": "",
		"job_cpu_throttled_s": "", "job_oom_kills_count": "",
		"host_cpus_count": "4", "host_cpu_pct": "",
		"host_cpu_user_s": "", "host_cpu_system_s": "", "host_cpu_iowait_s": "", "host_cpu_steal_s": "",
		"host_memory_used_bytes": "4000000000", "host_memory_available_bytes": "12000000000",
		"host_swap_used_bytes": "1000000", "host_page_faults_major_count": "",
		"host_disk_read_bytes": "", "host_disk_write_bytes": "", "host_disk_reads_count": "", "host_disk_writes_count": "",
		"host_net_rx_bytes": "", "host_net_tx_bytes": "",
		"host_load1": "1.50", "host_procs_running_count": "3", "host_procs_total_count": "400",
		"host_cpu_pressure_some_s": "", "host_memory_pressure_some_s": "", "host_io_pressure_some_s": "",
		"fs_used_bytes": "10000000000", "fs_free_bytes": "5000000000",
		"phase_depth": "1", "phase_span_id": "00f067aa0ba902b7",
	})

	// The second row: deltas over the 2 s since the first.
	checkCells(t, "second row", cells(t, recs[2]), map[string]string{
		"time_utc": "2026-11-29T21:35:47.123Z", "elapsed_s": "2", "reason": "interval", "phase": "compile",
		// The cgroup, not the tree: 1.5 s user, 0.3 s system, 1.8 s of 8.
		"job_cpu_user_s": "1.5", "job_cpu_system_s": "0.3", "job_cpu_pct": "22.50",
		"job_memory_bytes": "300000000", "job_rss_bytes": "150000000",
		"job_processes_count": "7", "job_threads_count": "12",
		"job_read_bytes": "1048576", "job_write_bytes": "4096",
		"job_cpu_pressure_some_s": "0.5", "job_memory_pressure_some_s": "0.125", "job_memory_pressure_full_s": "0.1",
		"job_io_pressure_some_s": "0.000001", "job_io_pressure_full_s": "", // no full line in io.pressure
		"job_cpu_throttled_s": "0.25", "job_oom_kills_count": "1",
		"host_cpus_count": "4", "host_cpu_pct": "56.25",
		"host_cpu_user_s": "2.5", "host_cpu_system_s": "1", "host_cpu_iowait_s": "0.5", "host_cpu_steal_s": "0.5",
		"host_memory_used_bytes": "5000000000", "host_memory_available_bytes": "11000000000",
		"host_swap_used_bytes": "2000000", "host_page_faults_major_count": "30",
		"host_disk_read_bytes": "40960", "host_disk_write_bytes": "81920", "host_disk_reads_count": "10", "host_disk_writes_count": "20",
		"host_net_rx_bytes": "1500", "host_net_tx_bytes": "250",
		"host_load1": "2.25", "host_procs_running_count": "4", "host_procs_total_count": "410",
		// The memory file went missing in the second sample.
		"host_cpu_pressure_some_s": "0.5", "host_memory_pressure_some_s": "", "host_io_pressure_some_s": "0.25",
		"fs_used_bytes": "11000000000", "fs_free_bytes": "4900000000",
		"phase_depth": "2", "phase_span_id": "53995c3f42cd8ad8",
	})
}

// TestGroupsAbsent: a figure the system cannot give is an empty cell, never
// a zero, on the first row and on later ones.
func TestGroupsAbsent(t *testing.T) {
	w, path := create(t, Options{})
	for i := range 3 {
		w.Sample(&hostmetrics.Sample{Time: t0.Add(time.Duration(i) * 1500 * time.Millisecond), Reason: hostmetrics.ReasonInterval})
	}
	recs := readCSV(t, readFile(t, path))
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for i, rec := range recs[1:] {
		got := cells(t, rec)
		for _, c := range columns[4:] {
			if got[c.Name] != "" {
				t.Errorf("row %d: %s = %q with nothing read, want empty", i+1, c.Name, got[c.Name])
			}
		}
		if want := []string{"0", "1.5", "3"}[i]; got["elapsed_s"] != want {
			t.Errorf("row %d: elapsed_s = %q, want %q", i+1, got["elapsed_s"], want)
		}
		if got["reason"] != "interval" || got["phase"] != "" {
			t.Errorf("row %d: reason, phase = %q, %q", i+1, got["reason"], got["phase"])
		}
	}
}

// TestJobWithoutCgroup: with only the process tree, the job's figures come
// from it, and what only a cgroup gives is empty.
func TestJobWithoutCgroup(t *testing.T) {
	a, b := fullA(), fullB()
	for _, s := range []*hostmetrics.Sample{a, b} {
		s.Job.HasCgroup, s.Job.CgroupOwn = false, false
	}
	w, path := create(t, Options{})
	w.Sample(a)
	w.Sample(b)
	got := cells(t, readCSV(t, readFile(t, path))[2])
	want := map[string]string{
		"job_cpu_user_s": "1", "job_cpu_system_s": "0", "job_cpu_pct": "12.50",
		"job_memory_bytes": "150000000", "job_rss_bytes": "150000000",
		"job_read_bytes": "4000", "job_write_bytes": "0",
		"job_cpu_pressure_some_s": "", "job_memory_pressure_some_s": "", "job_memory_pressure_full_s": "",
		"job_io_pressure_some_s": "", "job_io_pressure_full_s": "",
		"job_cpu_throttled_s": "", "job_oom_kills_count": "",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

// TestDeltaAcrossSourceChange: when the cgroup cannot be read for one
// sample, the job's CPU and IO fall back to the tree, which counts
// differently; the change across the fall-back is left empty rather than
// made up from the two.
func TestDeltaAcrossSourceChange(t *testing.T) {
	a, b, c := fullA(), fullB(), fullB()
	b.Job.HasCgroup = false
	c.Time = b.Time.Add(time.Second)
	w, path := create(t, Options{})
	w.Sample(a)
	w.Sample(b)
	w.Sample(c)
	recs := readCSV(t, readFile(t, path))
	for i, rec := range recs[2:] {
		got := cells(t, rec)
		for _, k := range []string{"job_cpu_user_s", "job_cpu_system_s", "job_cpu_pct", "job_read_bytes", "job_write_bytes"} {
			if got[k] != "" {
				t.Errorf("row %d: %s = %q across a change of source, want empty", i+2, k, got[k])
			}
		}
	}
	if got := cells(t, recs[2]); got["job_memory_bytes"] != "150000000" {
		t.Errorf("job_memory_bytes = %q without the cgroup, want the tree's RSS", got["job_memory_bytes"])
	}
}

// TestCounterGoingBack: a counter that went down (an interface removed) has
// no known change (monotonic's rule): the cell is empty, not a huge wrapped
// number, and the next row's change counts from the lower reading.
func TestCounterGoingBack(t *testing.T) {
	a, b, c := fullA(), fullB(), fullB()
	b.Host.Net.RxBytes = a.Host.Net.RxBytes - 1
	b.Job.Cgroup.CPUSystem = a.Job.Cgroup.CPUSystem - time.Millisecond
	c.Time = b.Time.Add(time.Second)
	c.Host.Net.RxBytes = b.Host.Net.RxBytes + 300
	w, path := create(t, Options{})
	w.Sample(a)
	w.Sample(b)
	w.Sample(c)
	recs := readCSV(t, readFile(t, path))
	got := cells(t, recs[2])
	if got["host_net_rx_bytes"] != "" || got["host_net_tx_bytes"] != "250" {
		t.Errorf("host_net_rx_bytes, host_net_tx_bytes = %q, %q, want empty, 250", got["host_net_rx_bytes"], got["host_net_tx_bytes"])
	}
	// The job's system time less 1 ms, its user time 1.5 s more: the
	// system time's change is unknown, and so is the share of the two's.
	if got["job_cpu_system_s"] != "" || got["job_cpu_user_s"] != "1.5" || got["job_cpu_pct"] != "" {
		t.Errorf("job_cpu_system_s, job_cpu_user_s, job_cpu_pct = %q, %q, %q; want empty, 1.5, empty",
			got["job_cpu_system_s"], got["job_cpu_user_s"], got["job_cpu_pct"])
	}
	if got := cells(t, recs[3]); got["host_net_rx_bytes"] != "300" {
		t.Errorf("the row after: host_net_rx_bytes = %q, want 300", got["host_net_rx_bytes"])
	}
}

// TestCounterNotRead: a row that could not read a counter has an empty
// cell, and the next row that reads it counts the change since the last
// row that did, so the column's sum stays the total.
func TestCounterNotRead(t *testing.T) {
	a, b, c := fullA(), fullB(), fullB()
	b.Host.HasNet = false
	c.Time = b.Time.Add(time.Second)
	c.Host.Net.RxBytes += 300
	w, path := create(t, Options{})
	w.Sample(a)
	w.Sample(b)
	w.Sample(c)
	recs := readCSV(t, readFile(t, path))
	if got := cells(t, recs[2]); got["host_net_rx_bytes"] != "" {
		t.Errorf("host_net_rx_bytes = %q not read, want empty", got["host_net_rx_bytes"])
	}
	want := fullB().Host.Net.RxBytes + 300 - fullA().Host.Net.RxBytes
	if got := cells(t, recs[3]); got["host_net_rx_bytes"] != strconv.FormatUint(want, 10) {
		t.Errorf("the row after: host_net_rx_bytes = %q, want %d, since the last row that read it", got["host_net_rx_bytes"], want)
	}
}

// TestDeltasSum: a column of deltas sums to the change between the first
// and the last row, the way a spreadsheet user totals it.
func TestDeltasSum(t *testing.T) {
	w, path := create(t, Options{})
	s := fullA()
	var rx uint64
	for i := range 10 {
		s.Time = t0.Add(time.Duration(i) * time.Second)
		s.Host.Net.RxBytes += uint64(i * 1000)
		rx += uint64(i * 1000)
		w.Sample(s)
	}
	recs := readCSV(t, readFile(t, path))
	var sum uint64
	for _, rec := range recs[1:] {
		v := cells(t, rec)["host_net_rx_bytes"]
		if v == "" {
			continue
		}
		var n uint64
		for _, ch := range v {
			n = n*10 + uint64(ch-'0')
		}
		sum += n
	}
	if sum != rx {
		t.Errorf("host_net_rx_bytes sums to %d, want %d", sum, rx)
	}
}

func TestPhaseQuoted(t *testing.T) {
	phase := `deploy "eu, us"/step 1`
	w, path := create(t, Options{Phase: func() Phase { return Phase{Name: phase} }})
	w.Sample(fullA())
	data := readFile(t, path)
	if !strings.Contains(data, `,"deploy ""eu, us""/step 1",`) {
		t.Errorf("phase not quoted as RFC 4180 says:\n%s", data)
	}
	if got := cells(t, readCSV(t, data)[1])["phase"]; got != phase {
		t.Errorf("phase read back = %q, want %q", got, phase)
	}
}

// TestReadBack writes rows of every kind, with phases that need quoting,
// and reads the file with encoding/csv: every row has the header's fields.
func TestReadBack(t *testing.T) {
	phases := []string{"", "plain", "a,b", `say "hi"`, "two\nlines", "cr\rlf", "build/compile"}
	i := 0
	w, path := create(t, Options{Phase: func() Phase { return Phase{Name: phases[i%len(phases)]} }})
	for ; i < 20; i++ {
		s := fullA()
		if i%3 == 0 {
			s = &hostmetrics.Sample{}
		}
		s.Time = t0.Add(time.Duration(i) * 250 * time.Millisecond)
		s.Reason = hostmetrics.Reason(i % 4)
		w.Sample(s)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, readFile(t, path))
	if len(recs) != 21 {
		t.Fatalf("%d records, want 21", len(recs))
	}
	for j, name := range recs[0] {
		if name != columns[j].Name {
			t.Errorf("header field %d = %q, want %q", j, name, columns[j].Name)
		}
	}
	for j, rec := range recs[1:] {
		if len(rec) != len(recs[0]) {
			t.Errorf("row %d has %d fields, the header %d", j+1, len(rec), len(recs[0]))
		}
		got := cells(t, rec)
		if got["phase"] != phases[j%len(phases)] {
			t.Errorf("row %d: phase = %q, want %q", j+1, got["phase"], phases[j%len(phases)])
		}
		if want := hostmetrics.Reason(j % 4).String(); got["reason"] != want {
			t.Errorf("row %d: reason = %q, want %q", j+1, got["reason"], want)
		}
		if _, err := time.Parse(time.RFC3339Nano, got["time_utc"]); err != nil || !strings.HasSuffix(got["time_utc"], "Z") {
			t.Errorf("row %d: time_utc = %q is not RFC 3339 in UTC: %v", j+1, got["time_utc"], err)
		}
	}
}

func TestMaxBytes(t *testing.T) {
	// Measure a row, then allow the header and two and a half rows.
	probe, probePath := create(t, Options{})
	header := int64(len(readFile(t, probePath)))
	probe.Sample(fullA())
	row := int64(len(readFile(t, probePath))) - header

	var warns []string
	limit := header + 2*row + row/2
	w, path := create(t, Options{MaxBytes: limit, Warn: func(s string) { warns = append(warns, s) }})
	for range 5 {
		w.Sample(fullA())
	}
	if w.Rows() != 2 || w.Dropped() != 3 {
		t.Errorf("Rows, Dropped = %d, %d, want 2, 3", w.Rows(), w.Dropped())
	}
	data := readFile(t, path)
	if int64(len(data)) > limit {
		t.Errorf("file is %d bytes, over its bound of %d", len(data), limit)
	}
	if recs := readCSV(t, data); len(recs) != 3 {
		t.Errorf("%d records, want 3", len(recs))
	}
	if len(warns) != 1 || !strings.Contains(warns[0], FileName) || !strings.Contains(warns[0], "bound of "+itoa(limit)+" bytes") {
		t.Errorf("warnings = %q, want one naming the file and the bound", warns)
	}
}

func TestMaxBytesDefaultAndNone(t *testing.T) {
	w, _ := create(t, Options{})
	if w.opts.MaxBytes != DefaultMaxBytes {
		t.Errorf("MaxBytes = %d, want DefaultMaxBytes", w.opts.MaxBytes)
	}
	w, _ = create(t, Options{MaxBytes: -1})
	for range 3 {
		w.Sample(fullA())
	}
	if w.Rows() != 3 || w.Dropped() != 0 {
		t.Errorf("unbounded: Rows, Dropped = %d, %d, want 3, 0", w.Rows(), w.Dropped())
	}
}

// TestWriteError: a row that fails half-written is cut from the file, the
// error is reported once, and the next row's deltas cover the lost one.
func TestWriteError(t *testing.T) {
	f := &memFile{failAt: 2, part: 10}
	var warns []string
	w, err := newWriter(f, FileName, Options{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := fullA(), fullB(), fullB()
	c.Time = b.Time.Add(time.Second)
	c.Host.Net.RxBytes = b.Host.Net.RxBytes + 100
	w.Sample(a)
	w.Sample(b) // fails after 10 bytes
	w.Sample(c)
	f.failAt, f.part = 4, 0
	w.Sample(c) // fails again, writing nothing
	if w.Rows() != 2 || w.Dropped() != 2 {
		t.Errorf("Rows, Dropped = %d, %d, want 2, 2", w.Rows(), w.Dropped())
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "no space left on device") {
		t.Errorf("warnings = %q, want one, with the error", warns)
	}
	recs := readCSV(t, string(f.data))
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3:\n%s", len(recs), f.data)
	}
	got := cells(t, recs[2])
	if got["elapsed_s"] != "3" || got["host_net_rx_bytes"] != "1600" {
		t.Errorf("after a lost row: elapsed_s, host_net_rx_bytes = %q, %q, want 3, 1600 (since the last row written)",
			got["elapsed_s"], got["host_net_rx_bytes"])
	}
}

// TestWriteErrorNoTruncate: when a partial row cannot be cut, rows stop, so
// that no row is appended to a broken one.
func TestWriteErrorNoTruncate(t *testing.T) {
	f := &memFile{failAt: 1, part: 5, truncateErr: os.ErrPermission}
	var warns []string
	w, err := newWriter(f, FileName, Options{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	w.Sample(fullA())
	w.Sample(fullB())
	w.Sample(fullB())
	if w.Rows() != 0 || w.Dropped() != 3 || f.writes != 2 {
		t.Errorf("Rows, Dropped, writes = %d, %d, %d, want 0, 3, 2", w.Rows(), w.Dropped(), f.writes)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "later rows are not written") {
		t.Errorf("warnings = %q", warns)
	}
}

func TestHeaderWriteError(t *testing.T) {
	f := &memFile{failAt: 0}
	if _, err := newWriter(f, FileName, Options{}); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("newWriter with a failing header write: err = %v", err)
	}
}

// TestOneWritePerRow: each row reaches the file with one write call, as it
// is produced, so a killed agent loses at most the row being written.
func TestOneWritePerRow(t *testing.T) {
	f := &memFile{failAt: -1}
	w, err := newWriter(f, FileName, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		w.Sample(fullA())
		if f.writes != 1+i || strings.Count(string(f.data), "\n") != 1+i {
			t.Fatalf("after %d samples: %d writes, %d lines in the file", i, f.writes, strings.Count(string(f.data), "\n"))
		}
	}
}

func TestClose(t *testing.T) {
	f := &memFile{failAt: -1}
	w, err := newWriter(f, FileName, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Sample(fullA())
	if err := w.Close(); err != nil || !f.closed {
		t.Fatalf("Close: %v, closed %v", err, f.closed)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	w.Sample(fullA())
	if w.Rows() != 1 || w.Dropped() != 1 {
		t.Errorf("after Close: Rows, Dropped = %d, %d, want 1, 1", w.Rows(), w.Dropped())
	}
}

// TestSink: the Writer works as a sink of a real Sampler, whatever the
// system gives.
func TestSink(t *testing.T) {
	w, path := create(t, Options{})
	src := fakeSource{}
	s := hostmetrics.NewSampler(src, hostmetrics.Options{Interval: -1, Sinks: []hostmetrics.Sink{w}})
	s.Start()
	done := make(chan struct{})
	s.Boundary(func(*hostmetrics.Sample) { close(done) })
	<-done
	s.Stop()
	recs := readCSV(t, readFile(t, path))
	var reasons []string
	for _, rec := range recs[1:] {
		reasons = append(reasons, cells(t, rec)["reason"])
	}
	if strings.Join(reasons, " ") != "start boundary end" {
		t.Errorf("reasons = %q, want start boundary end", reasons)
	}
}

// fakeSource gives the host's CPU, growing at every read.
type fakeSource struct{}

func (fakeSource) Read(s *hostmetrics.Sample) error {
	s.Host.HasCPU, s.Host.NumCPU = true, 2
	s.Host.CPU = hostmetrics.CPUTimes{User: s.Host.CPU.User + 1, Idle: s.Host.CPU.Idle + 1}
	return nil
}
func (fakeSource) SetJob(int)                      {}
func (fakeSource) JobOutsideCgroup()               {}
func (fakeSource) JobExited(hostmetrics.ExitUsage) {}
func (fakeSource) Unavailable() string             { return "" }
func (fakeSource) Close() error                    { return nil }

func itoa(n int64) string { return string(appendUint(nil, uint64(n))) }

// TestTreeWalkedLessOften: when a large tree is walked less often than
// samples are taken, a sample between two walks carries the last walk's
// figures (Tree.At earlier than Time). The tree's cells are empty in its
// row, and the next walked row has the change since the last row written,
// as a rate over the time between the walks.
func TestTreeWalkedLessOften(t *testing.T) {
	a, b, c := fullA(), fullA(), fullA()
	for _, s := range []*hostmetrics.Sample{a, b, c} {
		s.Job.HasCgroup, s.Job.CgroupOwn = false, false
	}
	a.Job.Tree.At = a.Time
	b.Time, b.Job.Tree.At = t0.Add(time.Second), a.Time // not walked
	c.Time = t0.Add(2500 * time.Millisecond)
	c.Job.Tree.At = c.Time
	c.Job.Tree.CPUUser += 2500 * time.Millisecond // 2.5 s of 2.5 s × 4 CPUs: 25 %
	c.Job.Tree.ReadBytes += 100
	c.Job.Tree.RSS = 1 << 30
	w, path := create(t, Options{})
	w.Sample(a)
	w.Sample(b)
	w.Sample(c)
	recs := readCSV(t, readFile(t, path))
	stale := cells(t, recs[2])
	for _, k := range []string{"job_cpu_user_s", "job_cpu_system_s", "job_cpu_pct", "job_memory_bytes", "job_rss_bytes",
		"job_processes_count", "job_threads_count", "job_read_bytes", "job_write_bytes"} {
		if stale[k] != "" {
			t.Errorf("between walks: %s = %q, want empty", k, stale[k])
		}
	}
	if stale["host_cpus_count"] != "4" {
		t.Errorf("between walks: host_cpus_count = %q, the host's figures are not the tree's", stale["host_cpus_count"])
	}
	walked := cells(t, recs[3])
	for k, v := range map[string]string{
		"job_cpu_user_s": "2.5", "job_cpu_system_s": "0", "job_cpu_pct": "25.00",
		"job_memory_bytes": "1073741824", "job_rss_bytes": "1073741824", "job_processes_count": "5",
		"job_read_bytes": "100", "job_write_bytes": "0",
	} {
		if walked[k] != v {
			t.Errorf("after the walk: %s = %q, want %q", k, walked[k], v)
		}
	}
}

// TestCallbacksMayCallBack: Phase and Warn run without the Writer's lock.
func TestCallbacksMayCallBack(t *testing.T) {
	var w *Writer
	var seen []int
	w, _ = create(t, Options{
		MaxBytes: 1,
		Phase:    func() Phase { seen = append(seen, w.Rows()); return Phase{} },
		Warn:     func(string) { seen = append(seen, w.Dropped()) },
	})
	done := make(chan struct{})
	go func() { w.Sample(fullA()); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Sample deadlocked calling Phase or Warn")
	}
	if len(seen) != 2 || seen[0] != 0 || seen[1] != 1 {
		t.Errorf("Rows in Phase, Dropped in Warn = %v, want [0 1]", seen)
	}
}
