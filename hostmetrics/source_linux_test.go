package hostmetrics

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/sleeptree"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

func TestLinuxSourceHost(t *testing.T) {
	src, err := NewSource(Config{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var s Sample
	s.Time = time.Now()
	if err := src.Read(&s); err != nil {
		t.Fatal(err)
	}
	h := &s.Host
	if !h.HasCPU || h.NumCPU < 1 || h.CPU.User <= 0 {
		t.Errorf("CPU %+v, %d CPUs", h.CPU, h.NumCPU)
	}
	if !h.HasMemory || h.Memory.Total == 0 || h.Memory.Used > h.Memory.Total {
		t.Errorf("memory %+v", h.Memory)
	}
	if !h.HasLoad || h.Load.Total == 0 {
		t.Errorf("load %+v", h.Load)
	}
	if !h.HasFS || h.FS.Total == 0 || h.FS.Used+h.FS.Free+h.FS.Reserved != h.FS.Total {
		t.Errorf("file system %+v", h.FS)
	}
	if !h.HasNet {
		t.Error("no network figures")
	}
	if src.Unavailable() != "" {
		t.Errorf("Unavailable says %q on Linux", src.Unavailable())
	}
}

// /proc/stat's iowait, which the kernel can step back, is held at its
// highest: a dip is no reset for the rule of the sinks (package monotonic).
func TestLinuxSourceHoldsIOWait(t *testing.T) {
	root := t.TempDir()
	src, err := NewSource(Config{ProcRoot: root, SysRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, c := range []struct{ iowait, want float64 }{{2000, 20}, {1990, 20}, {2050, 20.5}} {
		stat := fmt.Sprintf("cpu  100 0 50 1000 %g 0 0 0 0 0\ncpu0 100 0 50 1000 %g 0 0 0 0 0\n", c.iowait, c.iowait)
		if err := os.WriteFile(filepath.Join(root, "stat"), []byte(stat), 0o600); err != nil {
			t.Fatal(err)
		}
		var s Sample
		src.Read(&s) // the files other than stat are absent
		if !s.Host.HasCPU || s.Host.CPU.IOWait != c.want {
			t.Errorf("iowait read as %g ticks: %v (has %v), want %v", c.iowait, s.Host.CPU.IOWait, s.Host.HasCPU, c.want)
		}
	}
}

// With the agent a child subreaper, a process the job leaves behind
// re-parents to it, stays in the tree, and is reaped by the source with its
// CPU counted.
func TestLinuxSourceOrphans(t *testing.T) {
	release := t.TempDir() + "/release"
	// The burner ends once it has burnt and been seen (release), waiting
	// without children of its own, whose CPU would leave the tree with
	// them.
	src, _, pid := runOrphanJob(t, `i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done
while [ ! -e `+release+` ] && [ $i -lt 3000000 ]; do i=$((i+1)); done`)
	var s Sample
	s.Time = time.Now()
	if err := src.Read(&s); err != nil {
		t.Fatal(err)
	}
	if !s.Job.HasTree || s.Job.Tree.Roots < 1 || s.Job.Tree.Processes < 1 {
		os.WriteFile(release, nil, 0o600)
		t.Fatalf("the orphan is not in the tree: %+v", s.Job.Tree)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Wait for it to end; the source reaps it.
	deadline := time.Now().Add(timingtest.Patience)
	var last time.Duration
	for {
		s.Time = time.Now()
		src.Read(&s)
		cpu := s.Job.Tree.CPUUser + s.Job.Tree.CPUSystem
		if cpu < last {
			t.Fatalf("tree CPU went down: %v then %v", last, cpu)
		}
		last = cpu
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			break // gone: reaped
		}
		if time.Now().After(deadline) {
			t.Fatal("the orphan was not reaped")
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Time, s.Reason = time.Now(), ReasonEnd
	src.Read(&s)
	if c := s.Job.Tree.CPUUser + s.Job.Tree.CPUSystem; c < last {
		t.Errorf("tree CPU went down after the reap: %v then %v", last, c)
	}
	if s.Job.Tree.Processes != 0 {
		t.Errorf("%d processes left", s.Job.Tree.Processes)
	}
	if last < 50*time.Millisecond {
		t.Errorf("tree CPU %v: the orphan's CPU was lost", last)
	}
	t.Logf("tree CPU with the reaped orphan: %v", last)
}

// An orphan that has exited is counted once, from wait4: reaped before the
// walk, it is not walked. Walked as a zombie and then reaped, it was
// counted twice in that sample, and the tree's figures, held at their
// highest, then hid as much of what the job did next.
func TestLinuxSourceCountsAnExitedOrphanOnce(t *testing.T) {
	// It burns CPU, writes (through head, which it reaps) and exits.
	src, job, pid := runOrphanJob(t, `i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done
head -c 4194304 /dev/zero > `+t.TempDir()+`/data`)
	timingtest.Eventually(t, "the orphan's exit", func() bool {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		_, after, _ := strings.Cut(string(data), ") ")
		return err == nil && strings.HasPrefix(after, "Z")
	})
	var s Sample
	for i := range 2 {
		s.Time = time.Now()
		if err := src.Read(&s); err != nil {
			t.Fatal(err)
		}
		tr, orphan := s.Job.Tree, src.(*linuxSource).reaped
		t.Logf("sample %d: %d processes; user %v, system %v, write %d; the job's wait4: user %v, system %v, write %d; the orphan's: user %v, system %v, write %d",
			i+1, tr.Processes, tr.CPUUser, tr.CPUSystem, tr.WriteBytes, job.User, job.System, job.WriteBytes, orphan.User, orphan.System, orphan.WriteBytes)
		if orphan.User+orphan.System == 0 {
			t.Fatalf("sample %d: the orphan was not reaped", i+1)
		}
		if tr.Processes != 0 || tr.CPUUser != job.User+orphan.User || tr.CPUSystem != job.System+orphan.System ||
			tr.ReadBytes != job.ReadBytes+orphan.ReadBytes || tr.WriteBytes != job.WriteBytes+orphan.WriteBytes {
			t.Errorf("sample %d: the tree is not the job's and the orphan's usage, each once", i+1)
		}
	}
}

// runOrphanJob makes the test a child subreaper, and a source that knows
// it is one, and runs a job that starts a shell running script in the
// background and exits at once: the shell, orphaned, re-parents to the
// test. It returns the source, the job's usage as wait4 gave it, and the
// orphan's pid.
func runOrphanJob(t *testing.T, script string) (Source, ExitUsage, int) {
	t.Helper()
	if err := SetSubreaper(); err != nil {
		t.Skip(err)
	}
	src, err := NewSource(Config{Subreaper: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	marker := t.TempDir() + "/orphan.pid"
	cmd := exec.Command("sh", "-c", `sh -c 'echo $$ > `+marker+`
`+script+`' & exit 0`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	src.SetJob(cmd.Process.Pid)
	cmd.Wait()
	job := ExitUsageOf(cmd.ProcessState)
	src.JobExited(job)
	var pid int
	timingtest.Eventually(t, "the orphan's start", func() bool {
		data, _ := os.ReadFile(marker)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return pid != 0
	})
	return src, job, pid
}

// Walking a large tree is spaced out so that it costs at most TreeBudget of
// a CPU; the first and last samples always walk it.
func TestLinuxSourceSpacesCostlyWalks(t *testing.T) {
	cmd := exec.Command("sh", "-c", `for i in $(seq 300); do sleep 30 & done; wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscallKillGroup(cmd); cmd.Wait() }()
	src, err := NewSource(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	src.SetJob(cmd.Process.Pid)
	var s Sample
	timingtest.Eventually(t, "300 sleeping children", func() bool {
		s.Time, s.Reason = time.Now(), ReasonStart
		src.Read(&s)
		return s.Job.Tree.Processes > 300
	})
	ls := src.(*linuxSource)
	if s.Job.Tree.Processes <= CheapWalkProcs || ls.pacer.cost <= 0 {
		t.Fatalf("%d processes, walk cost %v", s.Job.Tree.Processes, ls.pacer.cost)
	}
	first := s.Job.Tree.At
	// The next sample comes a microsecond later by its own clock, however
	// long the test was kept from running meanwhile.
	s.Time, s.Reason = first.Add(time.Microsecond), ReasonBoundary
	src.Read(&s)
	if !s.Job.Tree.At.Equal(first) {
		t.Errorf("the tree was walked again right after a walk of %v", ls.pacer.cost)
	}
	if gap := ls.pacer.next.Sub(first); gap < time.Duration(float64(ls.pacer.cost)/TreeBudget)-time.Millisecond {
		t.Errorf("next walk after %v, want cost/budget = %v", gap, time.Duration(float64(ls.pacer.cost)/TreeBudget))
	}
	s.Time, s.Reason = time.Now(), ReasonEnd
	src.Read(&s)
	if s.Job.Tree.At.Equal(first) {
		t.Error("the last sample did not walk the tree")
	}
	t.Logf("%d processes: walk %v, next after %v", s.Job.Tree.Processes, ls.pacer.cost, ls.pacer.next.Sub(first))
}

func syscallKillGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// Before SetJob the source cannot tell the job from an orphan: it must
// reap no child, or os/exec would lose the job's exit status.
func TestLinuxSourceReapsNothingBeforeSetJob(t *testing.T) {
	if err := SetSubreaper(); err != nil {
		t.Skip(err)
	}
	src, err := NewSource(Config{Subreaper: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cmd := exec.Command("sh", "-c", "exit 7")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Let it become a zombie, and sample as the agent does meanwhile.
	var s Sample
	for i := 0; i < 20; i++ {
		s.Time, s.Reason = time.Now(), ReasonBoundary
		src.Read(&s)
		time.Sleep(5 * time.Millisecond)
	}
	err = cmd.Wait()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("the job's exit status was taken: Wait = %v, state %v", err, cmd.ProcessState)
	}
}

// With a cgroup of the job's own that has no memory controller, the tree's
// processes are the cgroup's members: a child forked by a thread other
// than the main one is counted. A job that did not start in its cgroup
// (JobOutsideCgroup) is walked, and its children outside the cgroup are
// counted too.
func TestLinuxSourceChildOfAnotherThread(t *testing.T) {
	g, fd := sleeptree.Cgroup(t)
	for _, outside := range []bool{false, true} {
		startIn := fd
		if outside {
			startIn = 0
		}
		pid, _ := sleeptree.StartThreadForker(t, startIn)
		src, err := NewSource(Config{CgroupDir: g.Dir, CgroupOwn: true})
		if err != nil {
			t.Fatal(err)
		}
		if outside {
			src.JobOutsideCgroup()
		}
		src.SetJob(pid)
		var s Sample
		s.Time, s.Reason = time.Now(), ReasonStart
		if err := src.Read(&s); err != nil {
			t.Error(err)
		}
		src.Close()
		if !s.Job.HasCgroup {
			t.Fatalf("cgroup %s not read", g.Dir)
		}
		if !s.Job.HasTree {
			t.Skipf("cgroup %s has the memory controller: the tree is not read", g.Dir)
		}
		if s.Job.Tree.Processes != 2 {
			t.Errorf("outside %v: %d processes, want the forker and its child", outside, s.Job.Tree.Processes)
		}
	}
}

// With no child of its own (no root of the tree), the source counts the
// processes of the job's cgroup all the same: its cgroup.events says it is
// populated, and its members are listed. Empty, it gives an empty tree.
func TestLinuxSourceCgroupWithoutRoots(t *testing.T) {
	g, fd := sleeptree.Cgroup(t)
	src, err := NewSource(Config{CgroupDir: g.Dir, CgroupOwn: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var s Sample
	read := func() {
		s.Time, s.Reason = time.Now(), ReasonStart
		if err := src.Read(&s); err != nil {
			t.Error(err)
		}
		if !s.Job.HasCgroup {
			t.Fatalf("cgroup %s not read", g.Dir)
		}
		if !s.Job.HasTree {
			t.Skipf("cgroup %s has the memory controller: the tree is not read", g.Dir)
		}
	}
	read()
	if s.Job.Tree.Processes != 0 {
		t.Errorf("empty cgroup: %d processes", s.Job.Tree.Processes)
	}
	sleeptree.StartThreadForker(t, fd)
	read()
	if s.Job.Tree.Processes != 2 {
		t.Errorf("%d processes in the cgroup, want the forker and its child", s.Job.Tree.Processes)
	}
}
