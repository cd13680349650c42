package usagecsv

import (
	"runtime"
	"testing"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/internal/realsource"
)

// TestRealSource writes rows from this system's own source, with a child
// process as the job, and reads them back. On Linux the host's figures must
// be there. The second row is the run's end: realsource.Gap is shorter than
// the span a machine's CPU share is taken over, which the last row takes
// whole.
func TestRealSource(t *testing.T) {
	w, path := create(t, Options{Phase: func() Phase { return Phase{Name: "real"} }})
	realsource.Read(t, []hostmetrics.Reason{hostmetrics.ReasonStart, hostmetrics.ReasonEnd}, w.Sample)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, path)
	recs := readCSV(t, data)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	t.Logf("\n%s", data)
	if runtime.GOOS != "linux" {
		return
	}
	got := cells(t, recs[2])
	for _, k := range []string{
		"host_cpus_count", "host_cpu_pct", "host_cpu_user_s", "host_memory_used_bytes",
		"host_memory_available_bytes", "host_load1", "host_procs_total_count", "fs_used_bytes", "fs_free_bytes",
		"job_processes_count", "job_cpu_user_s",
	} {
		if got[k] == "" {
			t.Errorf("%s is empty with the Linux source", k)
		}
	}
}
