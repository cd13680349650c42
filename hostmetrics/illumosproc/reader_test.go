package illumosproc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestSampleFixtureTree(t *testing.T) {
	now := time.Unix(1700002000, 0)
	r := NewReader("testdata/proc/")
	u, err := r.Sample([]int{200}, now)
	if err != nil {
		t.Fatal(err)
	}
	// 200 sh, 201 make, 204 sudo, 202 cc (zombie), 203 ld; 205 is gone.
	want := Usage{
		Time:      now,
		Processes: 5,
		Threads:   1 + 1 + 1 + 0 + 4,
		// own time: sh, make, sudo, cc (its children folded in), ld
		CPUUser:   (500 + 300 + 10 + 1400 + 2000) * time.Millisecond,
		CPUSystem: (250 + 100 + 20 + 300 + 600) * time.Millisecond,
		// reaped children: sh's and make's from status, sudo's pr_ctime
		// whole; the zombie's pr_ctime is not counted again
		ChildUser:    (2500 + 1000 + 600) * time.Millisecond,
		ChildSystem:  (500 + 200) * time.Millisecond,
		ChildUnsplit: 600 * time.Millisecond,
		RSS:          (2048 + 4096 + 1536 + 0 + 8192) * 1024,
		MinorFaults:  300 + 900 + 5000,
		MajorFaults:  2 + 7,
		InBlocks:     3 + 12,
		OutBlocks:    1 + 40,
		IOChars:      4096 + 1<<20,
	}
	if u != want {
		t.Errorf("got  %+v\nwant %+v", u, want)
	}
	var pids []int
	for _, p := range r.Procs() {
		pids = append(pids, p.PID)
	}
	if !slices.Equal(pids, []int{200, 201, 204, 202, 203}) {
		t.Errorf("visited %v, want breadth-first 200 201 204 202 203", pids)
	}

	// The same tree again, through a root reached twice: counted once.
	u2, err := r.Sample([]int{200, 201, 200}, now)
	if err != nil || u2 != want {
		t.Errorf("roots 200, 201, 200: %+v, %v", u2, err)
	}

	// A root that does not exist (the job has been reaped): nothing.
	u3, err := r.Sample([]int{999}, now)
	if err != nil || u3 != (Usage{Time: now}) {
		t.Errorf("root 999: %+v, %v", u3, err)
	}

	// The scheduler is its own parent: the walk from it ends, and covers
	// every process but 205 once.
	u4, err := r.Sample([]int{0}, now)
	if err != nil || u4.Processes != len(fixtureTree)-1 {
		t.Errorf("root 0: %d processes, %v", u4.Processes, err)
	}
}

func TestSampleProblems(t *testing.T) {
	missing := NewReader(filepath.Join(t.TempDir(), "none"))
	if _, err := missing.Sample([]int{1}, time.Time{}); !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrList) {
		t.Errorf("missing root: %v", err)
	}
	// No roots (the job has not started, or has been reaped): nothing is
	// listed.
	if u, err := missing.Sample(nil, time.Time{}); err != nil || u.Processes != 0 {
		t.Errorf("no roots: %+v, %v", u, err)
	}

	root := t.TempDir()
	write := func(name string, data []byte) {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job, child, other := *fixture(200), *fixture(203), *fixture(201)
	child.ppid = 200
	other.ppid = 200
	write("200/psinfo", job.psinfo())
	write("200/usage", job.usage())
	write("200/status", job.status()[:pstatusPrefix])
	write("203/psinfo", child.psinfo())
	write("203/usage", child.usage()[:10]) // truncated
	write("201/psinfo", other.psinfo()[:100])
	write("77/psinfo", job.psinfo()) // pr_pid is 200

	u, err := NewReader(root).Sample([]int{200}, time.Time{})
	if !errors.Is(err, ErrParse) {
		t.Fatalf("error %v, want ErrParse", err)
	}
	for _, what := range []string{"201/psinfo", "77/psinfo", "203/usage"} {
		if !containsPath(err, filepath.Join(root, what)) {
			t.Errorf("no error names %s: %v", what, err)
		}
	}
	// 203's usage could not be decoded: psinfo's pr_time stands in.
	if u.Processes != 2 || u.CPUUser != (500+2600)*time.Millisecond || u.ChildUser != 2500*time.Millisecond {
		t.Errorf("%+v", u)
	}
}

func containsPath(err error, path string) bool {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		if len(e.Error()) >= len(path) && e.Error()[:len(path)] == path {
			return true
		}
	}
	return false
}
