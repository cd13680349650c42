package hostmetrics_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics"
)

// TestIllumosCSVCells writes two samples made as the illumos source makes
// them through the CSV writer, and checks which cells of the second row are
// empty: those docs/illumos.md lists as empty on illumos, and no other.
func TestIllumosCSVCells(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.csv")
	w, err := usagecsv.Create(path, usagecsv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fill := hostmetrics.IllumosSamplesForTest("illumosproc/testdata/proc")
	at := time.Unix(1700000000, 0)
	for i, reason := range []hostmetrics.Reason{hostmetrics.ReasonStart, hostmetrics.ReasonInterval} {
		s := hostmetrics.Sample{Time: at.Add(time.Duration(i) * time.Second), Reason: reason}
		if err := fill(&s); err != nil {
			t.Fatal(err)
		}
		w.Sample(&s)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	var empty []string
	for i, name := range rows[0] {
		if rows[2][i] == "" {
			empty = append(empty, name)
		}
	}
	want := []string{
		"phase", // no phase in this test
		"job_read_bytes", "job_write_bytes",
		"job_cpu_pressure_some_s", "job_memory_pressure_some_s", "job_memory_pressure_full_s",
		"job_io_pressure_some_s", "job_io_pressure_full_s", "job_cpu_throttled_s", "job_oom_kills_count",
		"host_cpu_pressure_some_s", "host_memory_pressure_some_s", "host_io_pressure_some_s",
		"phase_depth", "phase_span_id", // no phase in this test
	}
	if !slices.Equal(empty, want) {
		t.Errorf("empty cells:\n%v\nwant\n%v", empty, want)
	}

	// Cells written as zero that illumos does not count: the Sample has
	// one presence flag per group (memory, CPU, load), not per figure.
	// docs/illumos.md says so; job_cpu_* and the host figures are read.
	cell := func(name string) string { return rows[2][slices.Index(rows[0], name)] }
	for name, v := range map[string]string{
		"host_swap_used_bytes":     "0",
		"host_procs_running_count": "0",
		"host_cpu_iowait_s":        "0",
		"host_cpu_steal_s":         "0",
		"host_procs_total_count":   "50", // nproc: processes
		"host_cpus_count":          "2",
		"host_cpu_user_s":          "2",
		"job_processes_count":      "5",
		"job_threads_count":        "7",
	} {
		if got := cell(name); got != v {
			t.Errorf("%s is %q, want %q", name, got, v)
		}
	}
}
