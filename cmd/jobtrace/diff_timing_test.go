//go:build timing && linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/runmodel"
)

// diffJob is a small job of three phases: setup sleeps, compile does a
// fixed amount of CPU work on one CPU (about 2 s of a shell's arithmetic),
// test sleeps.
const diffJob = `#!/bin/sh
jobtrace exec setup -- sleep 0.3
jobtrace exec compile -- sh -c 'i=0; while [ $i -lt 1500000 ]; do i=$((i+1)); done'
jobtrace exec test -- sleep 0.5
`

// The same job run twice under jobtrace, the second time with a CPU hog
// beside it (stress-ng --cpu, two workers a CPU; a Go busy loop where
// stress-ng is not installed): jobtrace diff finds compile slower and
// puts it down to neighbours, and the phases that sleep the same. A base
// run crowded by others than the job (more than crowdedShare of all CPUs
// busy) leaves the hog little to add: the pair is run again, up to
// workloadAttempts times.
func TestDiffBlamesTheHog(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(job, []byte(diffJob), 0o755); err != nil {
		t.Fatal(err)
	}
	var before []string
	for attempt := 1; ; attempt++ {
		saw, crowding := diffWithHog(t, dir, job, attempt)
		if saw == "" {
			return
		}
		if crowding == "" || attempt == workloadAttempts {
			t.Fatalf("%s\nearlier runs: %q", saw, before)
		}
		t.Logf("run %d: the base run was crowded (%s): tried again", attempt, crowding)
		before = append(before, saw+" ("+crowding+")")
	}
}

// diffWithHog runs the job alone and beside a hog, into base-N and hog-N,
// and diffs them. It returns what was wrong ("" when nothing) and, when
// the base run was crowded by others, by how much.
func diffWithHog(t *testing.T, dir, job string, attempt int) (wrong, crowding string) {
	base, slow := filepath.Join(dir, fmt.Sprint("base-", attempt)), filepath.Join(dir, fmt.Sprint("hog-", attempt))
	run := func(out string) {
		cmd := exec.Command(bin, "run", "--out", out, "--", job)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("jobtrace run: %v\n%s", err, b)
		}
	}
	run(base)
	stop := hog(t, 2*runtime.NumCPU())
	time.Sleep(time.Second) // the hog at full speed before the job starts
	run(slow)
	stop()

	text := jt(t, nil, "diff", base, slow)
	r := jt(t, nil, "diff", "--format", "json", base, slow)
	var d struct {
		Phases []struct{ Name, Status, Cause, Reason string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("diff --format json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	saw := map[string]string{}
	for _, p := range d.Phases {
		saw[p.Name] = p.Status + " " + p.Cause
	}
	for _, name := range []string{"setup", "test"} {
		if !strings.HasPrefix(saw[name], "same") {
			t.Logf("%s: %q (a sleep slowed by the hog's load; not checked)", name, saw[name])
		}
	}
	t.Logf("\n%s", text.stdout)
	if saw["compile"] == "slower neighbours" {
		return "", ""
	}
	wrong = fmt.Sprintf("compile: %q, want slower, put down to neighbours; the diff saw:\n%s", saw["compile"], text.stdout)
	rm, _, err := runmodel.ReadDir(base)
	if err != nil {
		t.Fatalf("reading the base run: %v", err)
	}
	if u := &rm.Job.Usage; u.HasSystemCPU && u.SystemCPUAvg-u.CPUAvg > crowdedShare {
		crowding = fmt.Sprintf("the machine %.0f%% busy, the job %.0f%%, of %d CPUs", 100*u.SystemCPUAvg, 100*u.CPUAvg, runtime.NumCPU())
	}
	return wrong, crowding
}

// hog keeps the CPUs busy beside the test until the returned function is
// called: stress-ng --cpu 0 in a session of its own, with the weight
// (hogNice, its nice and its autogroup's) that leaves one busy thread of
// the job starvedShare of a CPU whether or not the kernel groups each
// session's CPU time; or n goroutines spinning in this process where
// stress-ng is not installed.
func hog(t *testing.T, n int) (stop func()) {
	if path, err := exec.LookPath("stress-ng"); err == nil {
		nice := strconv.Itoa(hogNice(runtime.NumCPU(), autogroupOn()))
		cmd := exec.Command("nice", "-n", nice, path, "--cpu", "0", "--timeout", "120s", "--quiet")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(fmt.Sprintf("/proc/%d/autogroup", cmd.Process.Pid), []byte(nice), 0)
		var once sync.Once
		stop = func() {
			once.Do(func() {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				_ = cmd.Wait()
			})
		}
		t.Cleanup(stop)
		return stop
	}
	t.Log("no stress-ng on PATH: a Go busy loop is the hog")
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for x := 0; ; x++ {
				if x%1e6 == 0 {
					select {
					case <-done:
						return
					default:
					}
				}
			}
		})
	}
	var once sync.Once
	stop = func() { once.Do(func() { close(done); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}
