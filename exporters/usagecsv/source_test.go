package usagecsv

import (
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// TestRealSource writes rows from this system's own source, with a child
// process as the job, and reads them back. On Linux the host's figures must
// be there.
func TestRealSource(t *testing.T) {
	src, err := hostmetrics.NewSource(hostmetrics.Config{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if runtime.GOOS != "windows" {
		if path, err := exec.LookPath("sleep"); err == nil {
			cmd := exec.Command(path, "300")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			src.SetJob(cmd.Process.Pid)
		}
	}

	w, path := create(t, Options{Phase: func() Phase { return Phase{Name: "real"} }})
	var s hostmetrics.Sample
	for i, reason := range []hostmetrics.Reason{hostmetrics.ReasonStart, hostmetrics.ReasonInterval} {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		s.Time, s.Reason = time.Now(), reason
		if err := src.Read(&s); err != nil {
			t.Logf("read: %v", err) // a missing figure is not a failure
		}
		w.Sample(&s)
	}
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
