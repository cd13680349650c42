package hostmetrics_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// jobExitScript is a job whose last phase ends as it exits: after each line
// on its stdin it burns some CPU, writes to the file $1 (head, a child it
// reaps, writes), and says so on its stdout; after the second, it exits.
const jobExitScript = `
read _
i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done
head -c 6291456 /dev/zero > "$1"
echo wrote
read _
i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done
head -c 2097152 /dev/zero >> "$1"
echo wrote
`

// A phase marked just before the job exits ends with a sample taken while
// the job exits. When jobtrace reaps the job after that sample looked at it
// and before the walk read it, the job's usage, and that of every
// descendant it waited for, is in no file the walk reads nor yet in
// JobExited's usage: the sample takes that usage once it comes, so the
// phase has what the job did in it. Taken as it stood before the walk, the
// usage was missing, the tree's figures, held at their highest, stood at
// the sample before, and the phase had what the job did up to that sample
// (46 of the 64 MiB written, in a CI run of the accuracy test) or nothing.
func TestJobReapedDuringTheLastSample(t *testing.T) {
	for _, inside := range []bool{true, false} {
		t.Run(fmt.Sprintf("sample inside %v", inside), func(t *testing.T) { testJobReapedDuringTheLastSample(t, inside) })
	}
}

func testJobReapedDuringTheLastSample(t *testing.T, inside bool) {
	cmd := exec.Command("sh", "-c", jobExitScript, "sh", filepath.Join(t.TempDir(), "data"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var ru syscall.Rusage
	reaped := false
	reap := func() {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, &ru); err != nil {
			t.Fatalf("wait4: %v", err)
		}
		reaped = true
	}
	defer func() {
		if !reaped {
			cmd.Process.Kill()
			reap()
		}
	}()
	lines := bufio.NewScanner(stdout)
	step := func() {
		t.Helper()
		if _, err := stdin.Write([]byte("\n")); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() || lines.Text() != "wrote" {
			t.Fatalf("the job said %q (%v)", lines.Text(), lines.Err())
		}
	}

	// The job is reaped right after the last sample looks at it (the first
	// look once reaping is set), and supervise gives its usage just after:
	// when the source looks again.
	reaping, looked := false, false
	var src hostmetrics.Source
	gone := func(int) bool {
		switch {
		case !reaping:
			return false
		case !looked:
			looked = true
			reap()
			return false
		}
		src.JobExited(hostmetrics.ExitUsageOfRusage(&ru))
		return true
	}
	src, err = hostmetrics.NewSourceForTest(hostmetrics.Config{}, gone)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	src.SetJob(pid)

	var s hostmetrics.Sample
	var w usage.Window
	var writes monotonic.Counter[uint64]
	sample := func(reason hostmetrics.Reason) hostmetrics.Tree {
		t.Helper()
		s.Time, s.Reason = time.Now(), reason
		src.Read(&s)
		tr := s.Job.Tree
		d, _ := writes.Next(tr.WriteBytes)
		t.Logf("%v sample: tree of %d processes; held: user %v, system %v, read %d, write %d (%+d)",
			reason, tr.Processes, tr.CPUUser, tr.CPUSystem, tr.ReadBytes, tr.WriteBytes, d)
		return tr
	}

	b := sample(hostmetrics.ReasonBoundary) // the phase begins
	w.Begin(&s)
	step()
	if inside {
		sample(hostmetrics.ReasonInterval)
		w.Add(&s)
	}
	step()
	// The job has printed END_PHASE and exits.
	stdin.Close()
	timingtest.Eventually(t, "the job's exit", func() bool {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		_, after, _ := strings.Cut(string(data), ") ")
		return err == nil && strings.HasPrefix(after, "Z")
	})
	reaping = true
	e := sample(hostmetrics.ReasonBoundary) // the phase ends
	u := w.End(&s)
	exit := hostmetrics.ExitUsageOfRusage(&ru)
	t.Logf("phase: user %v, system %v, read %d, write %d; the job's wait4: user %v, system %v, read %d, write %d",
		u.CPUUser, u.CPUSystem, u.ReadBytes, u.WriteBytes, exit.User, exit.System, exit.ReadBytes, exit.WriteBytes)
	if !looked || !reaped {
		t.Fatal("the job was not reaped during the last sample")
	}
	if e.Processes != 0 {
		t.Fatalf("the last sample read %d processes, the job among them: it was not reaped before the walk", e.Processes)
	}
	if exit.WriteBytes < 8<<20 {
		t.Logf("the kernel counted %d bytes written for 8 MiB: the temporary directory is not on a block device", exit.WriteBytes)
	}
	// The phase's figures are the job's usage at its reap less the tree's
	// at the phase's begin, exactly: the tree's CPU times are in clock
	// ticks, cut down, wait4's in microseconds.
	if !u.HasCPU || u.CPUUser != exit.User-b.CPUUser || u.CPUSystem != exit.System-b.CPUSystem {
		t.Errorf("phase: user %v, system %v (has %v); want the job's %v and %v less %v and %v at the begin",
			u.CPUUser, u.CPUSystem, u.HasCPU, exit.User, exit.System, b.CPUUser, b.CPUSystem)
	}
	if !u.HasIO || u.ReadBytes != exit.ReadBytes-b.ReadBytes || u.WriteBytes != exit.WriteBytes-b.WriteBytes {
		t.Errorf("phase: read %d, write %d (has %v); want the job's %d and %d less %d and %d at the begin",
			u.ReadBytes, u.WriteBytes, u.HasIO, exit.ReadBytes, exit.WriteBytes, b.ReadBytes, b.WriteBytes)
	}
}
