//go:build illumos

package hostmetrics

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIllumosLiveSource reads this machine through the illumos source, with
// a child burning CPU as the job, and checks the figures against each other
// and, where kstat(1) is installed, against what it prints. It runs on
// illumos only: no illumos machine was at hand when it was written, so this
// is the test that checks the live path. go test -v ./hostmetrics -run
// IllumosLive prints what was read.
func TestIllumosLiveSource(t *testing.T) {
	src, err := NewSource(Config{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	t.Logf("Unavailable: %s", src.Unavailable())

	// Spin in the shell for about a second of CPU, then idle until the
	// test has sampled it (release), so the tree has user time and is
	// still there when sampled, however loaded the machine.
	release := filepath.Join(t.TempDir(), "release")
	job := exec.Command("/bin/sh", "-c", `i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done
j=0; until [ -e "$1" ] || [ $j -ge 1200 ]; do sleep 0.05; j=$((j+1)); done`, "sh", release)
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	src.SetJob(job.Process.Pid)

	var first, mid, last Sample
	first.Time, first.Reason = time.Now(), ReasonStart
	if err := src.Read(&first); err != nil {
		t.Errorf("first read: %v", err)
	}
	h := &first.Host
	t.Logf("host: %d CPUs %+v", h.NumCPU, h.CPU)
	t.Logf("memory %+v; paging %+v; load %+v", h.Memory, h.Paging, h.Load)
	t.Logf("disks %+v; links %+v; fs %+v", h.Disks, h.Ifaces, h.FS)
	if !h.HasCPU || h.NumCPU <= 0 || h.CPU.User+h.CPU.System+h.CPU.Idle <= 0 {
		t.Errorf("CPU: %v, %d CPUs, %+v", h.HasCPU, h.NumCPU, h.CPU)
	}
	if !h.HasMemory || h.Memory.Total == 0 || h.Memory.Free > h.Memory.Total || h.Memory.Used+h.Memory.Available != h.Memory.Total {
		t.Errorf("memory: %v %+v", h.HasMemory, h.Memory)
	}
	if !h.HasPaging || !h.HasLoad || h.Load.Total == 0 {
		t.Errorf("paging %v, load %v %+v", h.HasPaging, h.HasLoad, h.Load)
	}
	if !h.HasFS || h.FS.Total == 0 || h.FS.Free > h.FS.Total {
		t.Errorf("file system: %v %+v", h.HasFS, h.FS)
	}
	if !h.HasNet {
		t.Logf("no link kstat (a zone without datalinks?)")
	}
	if !h.HasDisk {
		t.Logf("no disk kstat (a non-global zone sees none)")
	}
	if !first.Job.HasTree || first.Job.Tree.Processes < 1 {
		t.Errorf("tree: %v %+v", first.Job.HasTree, first.Job.Tree)
	}

	time.Sleep(700 * time.Millisecond)
	mid.Time, mid.Reason = time.Now(), ReasonEnd // always walks
	if err := src.Read(&mid); err != nil {
		t.Errorf("second read: %v", err)
	}
	t.Logf("tree while running: %+v", mid.Job.Tree)
	if mid.Host.CPU.Idle+mid.Host.CPU.User+mid.Host.CPU.System <= first.Host.CPU.Idle+first.Host.CPU.User+first.Host.CPU.System {
		t.Errorf("host CPU did not advance: %+v then %+v", first.Host.CPU, mid.Host.CPU)
	}
	if mid.Job.Tree.CPUUser+mid.Job.Tree.CPUSystem <= 0 || mid.Job.Tree.Threads < 1 || mid.Job.Tree.RSS == 0 {
		t.Errorf("tree while running: %+v", mid.Job.Tree)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	if err := job.Wait(); err != nil {
		t.Fatal(err)
	}
	u := ExitUsageOf(job.ProcessState)
	src.JobExited(u)
	last.Time, last.Reason = time.Now(), ReasonEnd
	if err := src.Read(&last); err != nil {
		t.Errorf("last read: %v", err)
	}
	t.Logf("tree after the job: %+v; wait said %+v", last.Job.Tree, u)
	tr := last.Job.Tree
	if tr.Processes != 0 || tr.CPUUser < mid.Job.Tree.CPUUser || tr.CPUSystem < mid.Job.Tree.CPUSystem {
		t.Errorf("tree after the job: %+v, before %+v", tr, mid.Job.Tree)
	}

	// kstat(1), where installed, reads the same kstats through libkstat.
	if _, err := exec.LookPath("kstat"); err == nil {
		physmem := kstatValue(t, "unix:0:system_pages:physmem")
		if want := physmem * uint64(os.Getpagesize()); physmem > 0 && last.Host.Memory.Total != want {
			t.Errorf("memory total %d, kstat(1) gives physmem %d pages = %d", last.Host.Memory.Total, physmem, want)
		}
		ncpus := kstatValue(t, "unix:0:system_misc:ncpus")
		if ncpus > 0 && uint64(last.Host.NumCPU) != ncpus {
			t.Errorf("%d CPUs, kstat(1) gives ncpus %d", last.Host.NumCPU, ncpus)
		}
	}
}

// kstatValue runs kstat -p for one statistic and returns its value; 0 when
// it cannot.
func kstatValue(t *testing.T, stat string) uint64 {
	out, err := exec.Command("kstat", "-p", stat).Output()
	if err != nil {
		t.Logf("kstat -p %s: %v", stat, err)
		return 0
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return 0
	}
	v, _ := strconv.ParseUint(f[1], 10, 64)
	return v
}
