package session

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/rundiff"
	"github.com/jobtrace/jobtrace/runmodel"
)

// tenSecondSource is a job that keeps half a CPU of two busy while the
// machine's tasks wait for a CPU a tenth of the time, sampled as if the
// samples were 10 s apart: the k-th read is dated t0 + 10k s.
type tenSecondSource struct {
	quietSource
	t0 time.Time
	mu sync.Mutex
	k  int
}

func (c *tenSecondSource) Read(s *hostmetrics.Sample) error {
	c.mu.Lock()
	s.Time = c.t0.Add(time.Duration(c.k) * 10 * time.Second)
	c.k++
	c.mu.Unlock()
	d := s.Time.Sub(c.t0)
	s.Host.NumCPU = 2
	s.Host.Pressure.CPU = hostmetrics.Pressure{Some: d / 10, HasSome: true}
	s.Job.HasCgroup, s.Job.CgroupOwn = true, true
	s.Job.Cgroup.HasCPU, s.Job.Cgroup.CPUUser = true, d/4
	return nil
}

// addedPhaseRun is the model, read back from its artifacts, of a run
// whose phase "tests", added after it ended, is 3 s long while its usage
// spans the 10 s between the samples around it (tenSecondSource: 2.5 s of
// CPU, 1 s of the machine's tasks waiting); and the phase in it.
func addedPhaseRun(t *testing.T) (*runmodel.Run, *runmodel.Span) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	t0 := time.Now().Add(-time.Minute)
	var log syncBuffer
	set := boundarySampled(dir, &log)
	set.Start, set.Summary, set.hooks.source = t0, "off", &tenSecondSource{t0: t0}
	s := New(set)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"one", "two"} {
		if err := s.Begin(name); err != nil {
			t.Fatal(err)
		}
		if err := s.End(name, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddPhase("tests", t0.Add(12*time.Second), t0.Add(15*time.Second), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Shutdown(context.Background(), Outcome{}); err != nil {
		t.Fatal(err)
	}
	run, warn, err := runmodel.ReadDir(dir)
	if err != nil || warn != nil {
		t.Fatal(err, warn)
	}
	for i := range run.Phases {
		if run.Phases[i].Name == "tests" {
			return run, &run.Phases[i]
		}
	}
	t.Fatalf("no phase tests in %+v", run.Phases)
	return nil, nil
}

// A phase's CPUs busy and its stall share are one figure in its verdict
// and in jobtrace diff (verdict.FiguresOf): the phase added after it
// ended of addedPhaseRun kept 0.83 CPUs busy in both, and waited 33 % of
// its time in both. Before, the verdict took the 10 s window (0.25 CPUs
// busy) where the diff took the span, and the diff had no stall share
// without the job's own.
func TestVerdictAndDiffAgreeOnBusy(t *testing.T) {
	run, _ := addedPhaseRun(t)
	var row *rundiff.Row
	d := rundiff.Compare([]*runmodel.Run{run}, run)
	for i := range d.Phases {
		if d.Phases[i].Name == "tests" {
			row = &d.Phases[i]
		}
	}
	if row == nil {
		t.Fatalf("no phase tests in %+v", d.Phases)
	}
	busy, ok := row.Cur.Get(rundiff.CPUsBusy)
	if want := 2.5 / 3; !ok || busy < want-1e-6 || busy > want+1e-6 {
		t.Errorf("the diff's CPUs busy %v, want %v", busy, want)
	}
	if v := row.Cur.Verdict; !strings.Contains(v.Reason, figure.Count(busy)+" of 2 CPUs") {
		t.Errorf("the verdict %s %q does not say the diff's %s CPUs busy", v.Kind, v.Reason, figure.Count(busy))
	}
	if stall, ok := row.Cur.Get(rundiff.CPUStall); !ok || stall < 1.0/3-1e-6 || stall > 1.0/3+1e-6 {
		t.Errorf("the diff's CPU stall share %v %v, want the machine's 1 s over the 3 s", stall, ok)
	}
}

// A phase's average share of the CPUs (the summary's, report.html's and
// profile.json's avg) is its CPUs busy (the verdict's and the diff's) over
// the machine's CPUs, whatever the window of samples its usage spans: the
// phase added after it ended of addedPhaseRun, 0.83 CPUs busy, used 42 %
// of two. Before, its average was over the 10 s window, 12.5 %, beside a
// verdict that said 0.83 of 2 CPUs.
func TestAverageIsBusyOverTheCPUs(t *testing.T) {
	_, p := addedPhaseRun(t)
	f := verdict.FiguresOf(&p.Usage)
	busy, ok := f.Busy, f.HasBusy
	if want := 2.5 / 3; !ok || math.Abs(busy-want) > 1e-6 {
		t.Fatalf("CPUs busy %v %v, want %v", busy, ok, want)
	}
	if avg := p.Usage.CPUAvg; math.Abs(avg-busy/2) > 1e-4 || !strings.Contains(p.Verdict.Reason, figure.Count(avg*2)+" of 2 CPUs") {
		t.Errorf("an average of %v of 2 CPUs beside %v CPUs busy and the verdict %q", avg, busy, p.Verdict.Reason)
	}
}
