package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics/cgroup"
	"github.com/jobtrace/jobtrace/supervise/guard"
)

// killWait bounds the waits of these tests: long, since they check what
// happens, not how fast, on a machine that may be busy.
const killWait = 60 * time.Second

// place is where the jobtrace runs of one test make their private
// directory and their job's cgroup: a runtime directory (XDG_RUNTIME_DIR)
// and a cgroup of the test's own. A run sweeps what dead runs left in the
// same places (the private directories beside its own, the cgroups beside
// its job's), so every other jobtrace run on the machine, of another test or
// another package, in /dev/shm and the cgroup the tests run in, would remove
// what a killed run of this test left before this test's next run could.
type place struct {
	runtimeDir string
	cgroupFD   int // -1: the runs stay in the test's cgroup
}

// newPlace makes a place for t's runs, removed with what is left in it
// once the test and its other clean-ups are done. Without a cgroup of its
// own for the test (no cgroup v2, no permission), a run cannot make one for
// its job either: then only the runtime directory is the test's own.
func newPlace(t *testing.T) place {
	t.Helper()
	p := place{runtimeDir: t.TempDir(), cgroupFD: -1}
	// A run uses XDG_RUNTIME_DIR only when it is private to the user.
	if err := os.Chmod(p.runtimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	m, err := cgroup.FindMount("/proc")
	if err != nil {
		return p
	}
	self, err := cgroup.SelfDir("/proc")
	if err != nil {
		return p
	}
	dir, err := os.MkdirTemp(self, "jobtrace-test-")
	if err != nil {
		t.Logf("no cgroup of the test's own in %s (%s): %v", self, m.Point, err)
		return p
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		t.Fatal(err)
	}
	p.cgroupFD = fd
	t.Cleanup(func() {
		syscall.Close(fd)
		if err := cgroup.Open(dir).End(killWait); err != nil {
			t.Errorf("the test's cgroup: %v", err)
		}
	})
	return p
}

// command is 'jobtrace args...' in the place, with env.
func (p place) command(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(env, "PATH="+os.Getenv("PATH"), "TMPDIR="+os.TempDir(), "XDG_RUNTIME_DIR="+p.runtimeDir)
	if p.cgroupFD >= 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: p.cgroupFD}
	}
	return cmd
}

// startRun starts 'jobtrace run' in p with a job that records in dir the
// pids of the processes it leaves behind, and waits until they are all
// there. It returns the command, the pids by name, and where the job's
// private directory is.
func startRun(t *testing.T, p place, mode string) (*exec.Cmd, *bytes.Buffer, map[string]int, string) {
	t.Helper()
	dir := t.TempDir()
	// bg: a background child in the job's process group and session;
	// setsid: a daemon in a session of its own; orphan: a daemon whose
	// parent exited (re-parented to jobtrace); noenv: a daemon in a
	// session of its own with a cleared environment; orphan-noenv: one
	// whose parent exited as well.
	job := `d=$1
sleep 1001 & echo $! > "$d/bg"
setsid sleep 1002 & echo $! > "$d/setsid"
(setsid sh -c 'sleep 1003 & echo $! > "$1"' sh "$d/orphan" &)
setsid env -i sleep 1004 & echo $! > "$d/noenv"
(setsid env -i sleep 1009 & echo $! > "$d/orphan-noenv")
echo "$JOBTRACE_SOCKET" > "$d/sock"
wait`
	cmd := p.command([]string{"HOME=" + dir}, "run", "--cgroup", mode, "--interval", "100ms", "--summary=off", "--out", filepath.Join(dir, "out"), "--", "sh", "-c", job, "sh", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	t.Cleanup(func() {
		cmd.Process.Kill()
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	var sock string
	deadline := time.Now().Add(killWait)
	for _, name := range []string{"bg", "setsid", "orphan", "noenv", "orphan-noenv", "sock"} {
		for {
			data, _ := os.ReadFile(filepath.Join(dir, name))
			if s, ok := strings.CutSuffix(string(data), "\n"); ok {
				if name == "sock" {
					sock = s
				} else if pids[name], _ = strconv.Atoi(s); pids[name] <= 0 {
					t.Fatalf("%s: %q", name, data)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the job did not write %s; stderr: %s", name, stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if sock == "" {
		t.Fatal("the job has no JOBTRACE_SOCKET")
	}
	// Two more samples: jobtrace has walked its children since the last
	// orphan appeared.
	csv := filepath.Join(dir, "out", usagecsv.FileName)
	rows := func() int { data, _ := os.ReadFile(csv); return bytes.Count(data, []byte("\n")) }
	for n := rows(); rows() < n+2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no new rows in %s; stderr: %s", csv, stderr.String())
		}
	}
	return cmd, &stderr, pids, filepath.Dir(sock)
}

// guardOf returns the pid of jobtrace's guard process, which starts once
// the job has run for guard.Delay.
func guardOf(t *testing.T, jobtrace int) int {
	t.Helper()
	deadline := time.Now().Add(killWait)
	for {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(jobtrace) + "/task/*/children")
		for _, f := range tasks {
			data, _ := os.ReadFile(f)
			for _, c := range strings.Fields(string(data)) {
				cmdline, _ := os.ReadFile("/proc/" + c + "/cmdline")
				if strings.Contains(string(cmdline), guard.Arg) {
					pid, _ := strconv.Atoi(c)
					return pid
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobtrace (pid %d) has no guard process", jobtrace)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports whether pid runs: it exists and is not a zombie.
func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && i+2 < len(data) && data[i+2] != 'Z' && data[i+2] != 'X'
}

// waitGone waits until none of pids runs and returns those still running.
func waitGone(pids map[string]int) []string {
	deadline := time.Now().Add(killWait)
	for {
		var left []string
		for name, pid := range pids {
			if running(pid) {
				left = append(left, name)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// jobCgroupDir returns the cgroup directory made for jobtrace's job, ""
// when pid is not in one.
func jobCgroupDir(t *testing.T, pid, jobtrace int) string {
	m, err := cgroup.FindMount("/proc")
	if err != nil {
		return ""
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok && filepath.Base(p) == "jobtrace-"+strconv.Itoa(jobtrace) {
			dir, _ := m.Dir(p)
			return dir
		}
	}
	return ""
}

func waitNotExist(path string) bool {
	deadline := time.Now().Add(killWait)
	for {
		if _, err := os.Lstat(path); os.IsNotExist(err) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill -9 jobtrace: its guard kills the job's processes, removes its
// cgroup and its private directory.
func TestKilledJobtraceTakesItsJobAlong(t *testing.T) {
	for _, mode := range []string{"auto", "off"} {
		t.Run(mode, func(t *testing.T) {
			cmd, stderr, pids, private := startRun(t, newPlace(t), mode)
			jt := cmd.Process.Pid
			guardOf(t, jt)
			cg := jobCgroupDir(t, pids["bg"], jt)
			if mode == "auto" && cg == "" {
				t.Log("no cgroup of the job's own here: checking what the guard finds without one")
			}
			// An orphan with a cleared environment is found because
			// jobtrace, its subreaper, told the guard.
			want := map[string]int{"bg": pids["bg"], "setsid": pids["setsid"], "orphan": pids["orphan"], "orphan-noenv": pids["orphan-noenv"]}
			if cg != "" {
				// Only a cgroup finds a daemon that left the job's
				// session and environment.
				want["noenv"] = pids["noenv"]
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if left := waitGone(want); len(left) > 0 {
				t.Errorf("still running %v after jobtrace was killed: %v", killWait, left)
			}
			if cg != "" && !waitNotExist(cg) {
				t.Errorf("the job's cgroup %s is left", cg)
			}
			if !waitNotExist(private) {
				t.Errorf("the job's private directory %s is left", private)
			}
			line := "jobtrace: jobtrace (pid " + strconv.Itoa(jt) + ") ended before its job: killed"
			deadline := time.Now().Add(killWait)
			for !strings.Contains(stderr.String(), line) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if !strings.Contains(stderr.String(), line) {
				t.Errorf("stderr has no %q: %s", line, stderr.String())
			}
		})
	}
}

// When the guard dies with jobtrace, the next run removes the dead run's
// private directory and its cgroup, killing what is left in it.
func TestTheNextRunCleansUpAfterAKilledRun(t *testing.T) {
	for _, mode := range []string{"auto", "off"} {
		t.Run(mode, func(t *testing.T) {
			p := newPlace(t)
			cmd, _, pids, private := startRun(t, p, mode)
			jt := cmd.Process.Pid
			g := guardOf(t, jt)
			cg := jobCgroupDir(t, pids["bg"], jt)
			syscall.Kill(g, syscall.SIGKILL)
			for running(g) {
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if !running(pids["setsid"]) {
				t.Fatal("nothing was left running: the test cannot see a clean-up")
			}
			if _, err := os.Stat(private); err != nil {
				t.Fatalf("the private directory is gone already: %v", err)
			}
			// A private directory is taken for a dead run's only once it
			// has not changed for a while.
			old := time.Now().Add(-time.Hour)
			os.Chtimes(private, old, old)

			r := jt2(t, p, mode)
			if !waitNotExist(private) {
				t.Errorf("the next run left the dead run's private directory %s", private)
			}
			if !strings.Contains(r, "removed the private director") {
				t.Errorf("the next run did not say it removed a private directory: %s", r)
			}
			if cg == "" {
				t.Logf("no cgroup of the job's own (mode %s): what the dead run left running stays", mode)
				return
			}
			if !waitNotExist(cg) {
				t.Errorf("the next run left the dead run's cgroup %s", cg)
			}
			if left := waitGone(pids); len(left) > 0 {
				t.Errorf("still running after the next run: %v", left)
			}
			if !strings.Contains(r, "removed "+cg+", left by a jobtrace run (pid "+strconv.Itoa(jt)+") that was killed, and killed the") {
				t.Errorf("the next run did not say it removed %s: %s", cg, r)
			}
		})
	}
}

// jt2 runs 'jobtrace run -- true' in p as the next run and returns its
// stderr.
func jt2(t *testing.T, p place, mode string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := p.command([]string{"HOME=" + dir}, "run", "--cgroup", mode, "--summary=off", "--out", filepath.Join(dir, "out"), "--", "true")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("next run: %v: %s", err, stderr.String())
	}
	return stderr.String()
}

// After a run that ends by itself, or by a forwarded SIGTERM or SIGINT, the guard
// exits without a word and without touching what the job left.
func TestTheGuardLeavesAfterANormalEnd(t *testing.T) {
	for _, how := range []string{"exit", "SIGTERM", "SIGINT"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			ready, left := filepath.Join(dir, "ready"), filepath.Join(dir, "left")
			cmd := exec.Command(bin, "run", "--cgroup", "off", "--summary=off", "--out", filepath.Join(dir, "o"), "--", "sh", "-c",
				`trap 'exit 42' TERM; trap 'exit 43' INT; setsid sleep 1008 >/dev/null 2>&1 & echo $! > "$2"; touch "$1"; while [ ! -e "$1.end" ]; do sleep 0.05; done`, "sh", ready, left)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			deadline := time.Now().Add(killWait)
			for {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the job did not start")
				}
				time.Sleep(10 * time.Millisecond)
			}
			g := guardOf(t, cmd.Process.Pid)
			data, _ := os.ReadFile(left)
			daemon, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			defer syscall.Kill(daemon, syscall.SIGKILL)
			want := 0
			switch how {
			case "exit":
				os.WriteFile(ready+".end", nil, 0o644)
			case "SIGTERM":
				cmd.Process.Signal(syscall.SIGTERM)
				want = 42
			case "SIGINT":
				cmd.Process.Signal(syscall.SIGINT)
				want = 43
			}
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != want {
				t.Errorf("exit %d (%v), want %d: %s", code, err, want, stderr.String())
			}
			if left := waitGone(map[string]int{"guard": g}); len(left) > 0 {
				t.Errorf("the guard (pid %d) still runs after jobtrace ended", g)
			}
			if strings.Contains(stderr.String(), "ended before its job") {
				t.Errorf("the guard acted after a normal end: %s", stderr.String())
			}
			if !running(daemon) {
				t.Errorf("with --cgroup off, the daemon the job left was killed at the end of the job")
			}
		})
	}
}
