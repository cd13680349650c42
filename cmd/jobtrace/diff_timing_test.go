//go:build timing && linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
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
// puts it down to neighbours, and the phases that sleep the same.
func TestDiffBlamesTheHog(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(job, []byte(diffJob), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(out string) {
		cmd := exec.Command(bin, "run", "--out", filepath.Join(dir, out), "--", job)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("jobtrace run: %v\n%s", err, b)
		}
	}
	run("base")
	stop := hog(t, 2*runtime.NumCPU())
	time.Sleep(time.Second) // the hog at full speed before the job starts
	run("hog")
	stop()

	text := jt(t, nil, "diff", filepath.Join(dir, "base"), filepath.Join(dir, "hog"))
	r := jt(t, nil, "diff", "--format", "json", filepath.Join(dir, "base"), filepath.Join(dir, "hog"))
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
	if saw["compile"] != "slower neighbours" {
		t.Errorf("compile: %q, want slower, put down to neighbours; the diff saw:\n%s", saw["compile"], text.stdout)
	}
	for _, name := range []string{"setup", "test"} {
		if !strings.HasPrefix(saw[name], "same") {
			t.Logf("%s: %q (a sleep slowed by the hog's load; not checked)", name, saw[name])
		}
	}
	t.Logf("\n%s", text.stdout)
}

// hog keeps n CPUs' worth of work running beside the test until the
// returned function is called: stress-ng --cpu n, or n goroutines spinning
// in this process where stress-ng is not installed.
func hog(t *testing.T, n int) (stop func()) {
	if path, err := exec.LookPath("stress-ng"); err == nil {
		cmd := exec.Command(path, "--cpu", fmt.Sprint(n), "--timeout", "120s", "--quiet")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		stop = func() {
			once.Do(func() {
				cmd.Process.Signal(os.Interrupt)
				cmd.Wait()
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
