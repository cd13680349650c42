package proctree

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/procstat"
	"github.com/jobtrace/jobtrace/internal/sleeptree"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// spawnSleepers starts sh with n sleeping children (see package sleeptree).
func spawnSleepers(tb testing.TB, n int) *exec.Cmd { return sleeptree.Start(tb, n) }

func TestSampleRealProc(t *testing.T) {
	cmd := spawnSleepers(t, 5)
	r := NewReader("/proc")
	// From this test process, which has many threads: the sh was forked by
	// one of them, so it is found only through the task directory.
	u, err := r.Sample([]int{os.Getpid()}, time.Now())
	if err != nil {
		t.Fatalf("Sample: %v", err)
	}
	var sh, sleepers int
	for _, p := range r.Procs() {
		switch {
		case p.PID == cmd.Process.Pid:
			sh++
			if p.PPID != os.Getpid() || p.Comm != "sh" || p.RSS == 0 || p.IOAbsent {
				t.Errorf("sh = %+v", p)
			}
		case p.PPID == cmd.Process.Pid && p.Comm == "sleep":
			sleepers++
		}
	}
	if sh != 1 || sleepers != 5 {
		t.Errorf("found sh %d times and %d sleepers in %+v", sh, sleepers, r.Procs())
	}
	if u.Processes < 7 || u.Threads <= u.Processes || u.RSS == 0 {
		t.Errorf("Sample = %+v", u)
	}

	roots := []int{cmd.Process.Pid}
	r.Sample(roots, time.Now())
	if n := testing.AllocsPerRun(50, func() { r.Sample(roots, time.Now()) }); n != 0 {
		t.Errorf("Sample of a stable tree of 6 processes allocates %v times, want 0", n)
	}
}

func TestMain(m *testing.M) {
	sleeptree.RunThreadForker()
	os.Exit(m.Run())
}

// pidsSeen reports which of pids the last Sample or SampleCgroup found.
func pidsSeen(r *Reader, pids ...int) []bool {
	seen := make([]bool, len(pids))
	for _, p := range r.Procs() {
		for i, pid := range pids {
			if p.PID == pid {
				seen[i] = true
			}
		}
	}
	return seen
}

// A child forked by a thread other than the main one is found by the walk,
// through that thread's children file, and by SampleCgroup, through the
// cgroup the child was born in, which reads no children file.
func TestChildOfAnotherThread(t *testing.T) {
	g, fd := sleeptree.Cgroup(t)
	pid, child := sleeptree.StartThreadForker(t, fd)
	r := NewReader("/proc")
	u, err := r.Sample([]int{pid}, time.Now())
	if err != nil || u.Processes != 2 || u.Threads < 3 {
		t.Errorf("Sample = %+v, %v; want 2 processes", u, err)
	}
	if s := pidsSeen(r, pid, child); !s[0] || !s[1] {
		t.Errorf("Sample found the forker %v and its child %v", s[0], s[1])
	}

	var opened []string
	r.openHook = func(path string) syscall.Errno {
		opened = append(opened, path)
		return 0
	}
	// The forker is a Go program, whose runtime may start a thread between
	// the two samples: the thread counts are each checked, not compared.
	u2, err := r.SampleCgroup(nil, g.Dir, time.Now())
	if err != nil || u2.Processes != 2 || u2.Threads < 3 {
		t.Errorf("SampleCgroup = %+v, %v; want 2 processes and their threads, as Sample found %+v", u2, err, u)
	}
	if s := pidsSeen(r, pid, child); !s[0] || !s[1] {
		t.Errorf("SampleCgroup found the forker %v and its child %v", s[0], s[1])
	}
	for _, p := range opened {
		if strings.HasSuffix(p, "/children") || strings.HasSuffix(p, "/task") {
			t.Errorf("SampleCgroup read %s", p)
		}
	}
	if r.Exited().Processes != 0 {
		t.Errorf("SampleCgroup after Sample: exited %+v", r.Exited())
	}
	r.openHook = nil
	if n := testing.AllocsPerRun(50, func() { r.SampleCgroup(nil, g.Dir, time.Now()) }); n != 0 {
		t.Errorf("SampleCgroup of a stable cgroup allocates %v times, want 0", n)
	}
}

// The members of the cgroups below the job's are the job's too; a cgroup
// whose members cannot be listed is an ErrNoMembers.
func TestSampleCgroupNested(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewReader("/proc")
	if _, err := r.SampleCgroup(nil, dir, time.Now()); !errors.Is(err, ErrNoMembers) {
		t.Errorf("SampleCgroup without a/cgroup.procs: %v, want ErrNoMembers", err)
	}
	cmd := spawnSleepers(t, 1)
	for _, d := range []string{filepath.Join(dir, "a"), sub} {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sub, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := r.SampleCgroup([]int{os.Getpid()}, dir+"/", time.Now())
	if err != nil || u.Processes != 2 {
		t.Errorf("SampleCgroup = %+v, %v; want this process and sh", u, err)
	}
	if s := pidsSeen(r, os.Getpid(), cmd.Process.Pid); !s[0] || !s[1] {
		t.Errorf("SampleCgroup found this process %v and sh %v", s[0], s[1])
	}
}

// OwnChildren finds the job, running or exited and not yet waited for,
// without reaping it (os/exec still gets the exit status), and the main
// thread's children, reading that one children file whatever the number
// of threads; with no child at all it reads no file.
func TestOwnChildren(t *testing.T) {
	r := NewReader("/proc")
	var opened []string
	r.openHook = func(path string) syscall.Errno {
		opened = append(opened, path)
		return 0
	}
	if kids, _ := r.Children(os.Getpid(), nil); len(kids) > 0 {
		t.Skipf("this test process has children already: %v", kids)
	}
	opened = nil
	if kids, err := r.OwnChildren(nil, 0); len(kids) != 0 || err != nil || len(opened) != 0 {
		t.Errorf("with no child, OwnChildren = %v, %v and read %v; want nothing read", kids, err, opened)
	}

	// Threads enough that reading each one's children would show.
	stop := make(chan struct{})
	defer close(stop)
	for range 4 {
		go func() {
			runtime.LockOSThread()
			<-stop
		}()
	}
	running := exec.Command("sleep", "30")
	zombie := exec.Command("sh", "-c", "exit 7")
	for _, c := range []*exec.Cmd{running, zombie} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { running.Process.Kill(); running.Wait() }()
	timingtest.Eventually(t, "sh exited, not yet waited for", func() bool {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(zombie.Process.Pid) + "/stat")
		st, ok := procstat.Parse(data)
		return err == nil && ok && st.State == 'Z'
	})
	own := "/proc/" + strconv.Itoa(os.Getpid()) + "/task/" + strconv.Itoa(os.Getpid()) + "/children"
	for _, job := range []*exec.Cmd{running, zombie} {
		opened = nil
		kids, err := r.OwnChildren(nil, job.Process.Pid)
		if err != nil || !slices.Contains(kids, job.Process.Pid) {
			t.Errorf("OwnChildren = %v, %v; want the job %d", kids, err, job.Process.Pid)
		}
		// The one file read is kept open from the first call on; no other
		// is opened.
		if len(opened) != 0 || openAs(t, own) != 1 {
			t.Errorf("OwnChildren opened %q and holds %s open %d times; want only that file, once", opened, own, openAs(t, own))
		}
	}
	r.Close()
	if n := openAs(t, own); n != 0 {
		t.Errorf("%s still open %d times after Close", own, n)
	}
	zombie.Wait()
	if zombie.ProcessState == nil || zombie.ProcessState.ExitCode() != 7 {
		t.Errorf("the zombie's exit status was taken: %v", zombie.ProcessState)
	}
}

// SampleCgroup reads the job's cgroup.procs and cgroup.stat through files
// kept open, and lists the cgroups below only when cgroup.stat counts some:
// a sample of a cgroup without children opens nothing in the cgroup; with
// a child cgroup, its members are found.
func TestSampleCgroupKeepsTheJobsFilesOpen(t *testing.T) {
	g, fd := sleeptree.Cgroup(t)
	pid, child := sleeptree.StartThreadForker(t, fd)
	r := NewReader("/proc")
	t.Cleanup(r.Close)
	if _, err := r.SampleCgroup(nil, g.Dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	var opened []string
	r.openHook = func(path string) syscall.Errno {
		opened = append(opened, path)
		return 0
	}
	u, err := r.SampleCgroup(nil, g.Dir, time.Now())
	if err != nil || u.Processes != 2 {
		t.Fatalf("SampleCgroup = %+v, %v; want 2 processes", u, err)
	}
	for _, p := range opened {
		if strings.HasPrefix(p, g.Dir) {
			t.Errorf("a sample of a cgroup without children opened %s", p)
		}
	}

	sub := filepath.Join(g.Dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Back to the job's cgroup, which the fixture kills and removes.
		os.WriteFile(filepath.Join(g.Dir, "cgroup.procs"), []byte(strconv.Itoa(child)), 0o644)
		os.Remove(sub)
	})
	if err := os.WriteFile(filepath.Join(sub, "cgroup.procs"), []byte(strconv.Itoa(child)), 0o644); err != nil {
		t.Fatal(err)
	}
	opened = nil
	u, err = r.SampleCgroup(nil, g.Dir, time.Now())
	if err != nil || u.Processes != 2 {
		t.Errorf("SampleCgroup with a child cgroup = %+v, %v; want 2 processes", u, err)
	}
	if s := pidsSeen(r, pid, child); !s[0] || !s[1] {
		t.Errorf("SampleCgroup found the forker %v and its child in the cgroup below %v", s[0], s[1])
	}
	if !slices.Contains(opened, sub+"/cgroup.procs") {
		t.Errorf("the cgroup below was not read: opened %v", opened)
	}
}

// openAs counts the descriptors of this process open on path.
func openAs(t *testing.T, path string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == path {
			n++
		}
	}
	return n
}

// keptFiles returns the /proc/<pid>/stat, statm, io and task/<pid>/children
// files of pids that this process holds open, by pid.
func keptFiles(t *testing.T, pids ...int) map[int]int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := make(map[int]int)
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue
		}
		for _, pid := range pids {
			dir := "/proc/" + strconv.Itoa(pid) + "/"
			if target == dir+"stat" || target == dir+"statm" || target == dir+"io" ||
				target == dir+"task/"+strconv.Itoa(pid)+"/children" {
				n[pid]++
			}
		}
	}
	return n
}

// A process seen again is read through the files its first sample left
// open; those of a process that is gone are closed at the sample that
// finds it gone, and Close closes the rest.
func TestSampleKeepsTheProcessesFilesOpen(t *testing.T) {
	cmd := spawnSleepers(t, 3)
	r := NewReader("/proc")
	if _, err := r.Sample([]int{cmd.Process.Pid}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range r.Procs() {
		pids = append(pids, p.PID)
	}
	if len(pids) != 4 {
		t.Fatalf("found %v, want sh and 3 sleepers", pids)
	}
	if kept := keptFiles(t, pids...); len(kept) != 4 || kept[pids[0]] != 4 || kept[pids[3]] != 4 {
		t.Errorf("files kept open after the first sample: %v, want 4 of each of %v", kept, pids)
	}
	var opened []string
	r.openHook = func(path string) syscall.Errno {
		opened = append(opened, path)
		return 0
	}
	u, err := r.Sample([]int{cmd.Process.Pid}, time.Now())
	if err != nil || u.Processes != 4 || u.RSS == 0 || u.IOAbsent {
		t.Errorf("second Sample = %+v, %v", u, err)
	}
	if len(opened) != 0 {
		t.Errorf("the second sample of the same processes opened %v", opened)
	}

	gone := pids[1]
	syscall.Kill(gone, syscall.SIGKILL)
	timingtest.Eventually(t, "the sleeper reaped by sh", func() bool {
		_, err := os.Stat("/proc/" + strconv.Itoa(gone))
		return errors.Is(err, os.ErrNotExist)
	})
	if u, err := r.Sample([]int{cmd.Process.Pid}, time.Now()); err != nil || u.Processes != 3 || r.Exited().Processes != 1 {
		t.Errorf("Sample after a sleeper was killed = %+v, %v, exited %+v", u, err, r.Exited())
	}
	if kept := keptFiles(t, pids...); len(kept) != 3 || kept[gone] != 0 {
		t.Errorf("files kept open once %d is gone: %v", gone, kept)
	}
	r.Close()
	if kept := keptFiles(t, pids...); len(kept) != 0 {
		t.Errorf("files still open after Close: %v", kept)
	}
	r.openHook = nil
	if u, err := r.Sample([]int{cmd.Process.Pid}, time.Now()); err != nil || u.Processes != 3 || r.Exited().Processes != 0 {
		t.Errorf("Sample after Close = %+v, %v, exited %+v", u, err, r.Exited())
	}
}

// A file kept open names its process, not its pid: when the process is
// reaped and its pid names another one, the sample reads the new process
// and counts the old one exited. The proc root here is a directory whose
// entry 7 is a link to a process of /proc, moved from one process to the
// other as the kernel gives a pid to a new process.
func TestKeptFilesNameTheProcessNotThePid(t *testing.T) {
	var pids []int
	var cmds []*exec.Cmd
	for i := range 2 {
		if i > 0 {
			// A start time is in clock ticks: the second process must
			// not start in the first one's tick.
			time.Sleep(3 * tick)
		}
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			t.Skipf("cannot start sleep: %v", err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		cmds = append(cmds, c)
		pids = append(pids, c.Process.Pid)
	}
	root := t.TempDir()
	link := filepath.Join(root, "7")
	if err := os.Symlink("/proc/"+strconv.Itoa(pids[0]), link); err != nil {
		t.Fatal(err)
	}
	r := NewReader(root)
	t.Cleanup(r.Close)
	if u, err := r.Sample([]int{7}, time.Now()); err != nil || u.Processes != 1 {
		t.Fatalf("Sample = %+v, %v", u, err)
	}
	first := r.Procs()[0]
	cmds[0].Process.Kill()
	cmds[0].Wait()
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/"+strconv.Itoa(pids[1]), link); err != nil {
		t.Fatal(err)
	}
	u, err := r.Sample([]int{7}, time.Now())
	if err != nil || u.Processes != 1 || r.Procs()[0].StartTime == first.StartTime {
		t.Errorf("Sample once pid 7 names another process = %+v, %v, %+v; the first was %+v", u, err, r.Procs(), first)
	}
	if e := r.Exited(); e.Processes != 1 {
		t.Errorf("Exited = %+v, want the first process", e)
	}
	// stat, statm and io: the link's task/7 is not a thread of the process.
	if kept := keptFiles(t, pids[1]); kept[pids[1]] != 3 {
		t.Errorf("the new process's files kept: %v", kept)
	}
}

// At most keepLimit processes have their files kept; the others are read by
// path at every sample. The limit is a quarter of RLIMIT_NOFILE's
// descriptors, four per process, when that is below MaxKeptProcs.
func TestKeptFilesBound(t *testing.T) {
	cmd := spawnSleepers(t, 3)
	r := NewReader("/proc")
	t.Cleanup(r.Close)
	r.keepMax = 2
	for range 2 {
		if _, err := r.Sample([]int{cmd.Process.Pid}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	var pids []int
	for _, p := range r.Procs() {
		pids = append(pids, p.PID)
	}
	kept := keptFiles(t, pids...)
	if len(kept) != 2 || r.kept != 2 {
		t.Errorf("files kept for %v: %v (count %d), want 4 for each of 2 processes", pids, kept, r.kept)
	}
	opened := map[string]bool{}
	r.openHook = func(path string) syscall.Errno {
		opened[path] = true
		return 0
	}
	if u, err := r.Sample([]int{cmd.Process.Pid}, time.Now()); err != nil || u.Processes != 4 {
		t.Errorf("Sample = %+v, %v", u, err)
	}
	for _, pid := range pids {
		if got := opened["/proc/"+strconv.Itoa(pid)+"/stat"]; got == (kept[pid] > 0) {
			t.Errorf("pid %d: kept %d files, its stat opened by path: %v", pid, kept[pid], got)
		}
	}

	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	low := lim
	low.Cur = 160
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skipf("cannot lower RLIMIT_NOFILE: %v", err)
	}
	n := NewReader("/proc").keepLimit()
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Errorf("with 160 descriptors, %d processes kept, want 10", n)
	}
	if n := NewReader("/proc").keepLimit(); lim.Cur >= 16*MaxKeptProcs && n != MaxKeptProcs {
		t.Errorf("with %d descriptors, %d processes kept, want %d", lim.Cur, n, MaxKeptProcs)
	}
}

// The job's cgroup first read does not close what the Reader keeps open
// already: the files of the processes a walk found, and its own children
// file.
func TestSampleCgroupKeepsWhatWasKept(t *testing.T) {
	g, fd := sleeptree.Cgroup(t)
	pid, child := sleeptree.StartThreadForker(t, fd)
	r := NewReader("/proc")
	t.Cleanup(r.Close)
	if u, err := r.Sample([]int{pid}, time.Now()); err != nil || u.Processes != 2 {
		t.Fatalf("Sample = %+v, %v", u, err)
	}
	var opened []string
	r.openHook = func(path string) syscall.Errno {
		opened = append(opened, path)
		return 0
	}
	if u, err := r.SampleCgroup(nil, g.Dir, time.Now()); err != nil || u.Processes != 2 {
		t.Fatalf("SampleCgroup = %+v, %v", u, err)
	}
	for _, p := range opened {
		if strings.HasPrefix(p, "/proc/") {
			t.Errorf("the cgroup's first sample opened %s again", p)
		}
	}
	if kept := keptFiles(t, pid, child); kept[pid] < 3 || kept[child] < 3 {
		t.Errorf("files kept open: %v", kept)
	}
}
