//go:build !linux && !illumos

package hostmetrics

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestGopsutilSourceHost(t *testing.T) {
	src, err := NewSource(Config{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var s Sample
	s.Time, s.Reason = time.Now(), ReasonStart
	if err := src.Read(&s); err != nil {
		t.Error(err)
	}
	h := &s.Host
	if !h.HasCPU || h.NumCPU < 1 || h.CPU.User+h.CPU.System <= 0 {
		t.Errorf("CPU %+v, %d CPUs", h.CPU, h.NumCPU)
	}
	if !h.HasMemory || h.Memory.Total == 0 || h.Memory.Used > h.Memory.Total {
		t.Errorf("memory %+v", h.Memory)
	}
	if !h.HasFS || h.FS.Total == 0 || h.FS.Used+h.FS.Free+h.FS.Reserved != h.FS.Total {
		t.Errorf("file system %+v", h.FS)
	}
	if !h.HasNet || len(h.Ifaces) == 0 {
		t.Errorf("network %+v, %d interfaces", h.Net, len(h.Ifaces))
	}
	if h.HasPaging || h.Pressure.CPU.HasSome || s.Job.HasCgroup {
		t.Error("paging, pressure or cgroup figures where there are none")
	}
	u := src.Unavailable()
	if !strings.HasPrefix(u, "on "+runtime.GOOS+": no ") || !strings.Contains(u, "cgroup") || strings.Contains(u, "CPU times") {
		t.Errorf("Unavailable says %q", u)
	}
	t.Log(u)
}

// burnEnv makes TestGopsutilBurn, run by TestGopsutilSourceTree in a
// process of its own, burn CPU and exit: the job of that test.
const burnEnv = "JOBTRACE_TEST_BURN"

func TestGopsutilBurn(t *testing.T) {
	if os.Getenv(burnEnv) != "1" {
		t.Skip("the job of TestGopsutilSourceTree")
	}
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
	}
	io.Copy(io.Discard, os.Stdin) // until the test has seen it running
}

func TestGopsutilSourceTree(t *testing.T) {
	src, err := NewSource(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestGopsutilBurn$")
	cmd.Env = append(os.Environ(), burnEnv+"=1")
	running, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	src.SetJob(cmd.Process.Pid)
	var s Sample
	s.Time, s.Reason = time.Now(), ReasonStart
	if err := src.Read(&s); err != nil {
		t.Error(err)
	}
	if !s.Job.HasTree || s.Job.Tree.Processes != 1 || s.Job.Tree.Roots != 1 || s.Job.Tree.RSS == 0 {
		t.Errorf("while running: %+v", s.Job.Tree)
	}
	running.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	exited := ExitUsageOf(cmd.ProcessState)
	src.JobExited(exited)
	s.Time, s.Reason = time.Now(), ReasonEnd
	if err := src.Read(&s); err != nil {
		t.Error(err)
	}
	tr := s.Job.Tree
	if tr.Processes != 0 || tr.Roots != 0 || tr.CPUUser+tr.CPUSystem < exited.User+exited.System || tr.CPUUser+tr.CPUSystem < 200*time.Millisecond {
		t.Errorf("after exit: %+v; the job's usage %+v", tr, exited)
	}
}
