package usage

import (
	"math"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/internal/attrdoc"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// sample builds a sample at t0+at with the job's cumulative CPU (from an own
// cgroup), memory and IO, and the host's cumulative CPU times.
func sample(at time.Duration, jobCPU time.Duration, mem, wrote uint64, hostBusy, hostIdle float64) *hostmetrics.Sample {
	s := &hostmetrics.Sample{Time: t0.Add(at)}
	s.Host.NumCPU = 2
	s.Host.HasCPU = true
	s.Host.CPU.User = hostBusy
	s.Host.CPU.Idle = hostIdle
	s.Job.HasCgroup, s.Job.CgroupOwn = true, true
	us := uint64(jobCPU / time.Microsecond)
	c := &s.Job.Cgroup
	c.HasCPU = true
	c.CPU = time.Duration(us) * time.Microsecond
	c.CPUUser = time.Duration(us*3/4) * time.Microsecond
	c.CPUSystem = time.Duration(us-us*3/4) * time.Microsecond
	c.HasMemory, c.Memory = true, mem
	c.HasIO, c.ReadBytes, c.WriteBytes = true, 0, wrote
	c.Pressure.CPU.HasSome = true
	c.Pressure.CPU.Some = jobCPU / 10
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestWindowDeltasAndPeaks(t *testing.T) {
	var w Window
	// The job had used 5s of CPU before the phase.
	w.Begin(sample(0, 5*time.Second, 100, 1000, 10, 10))
	// First second: one CPU of two busy (0.5); second second: both (1.0).
	w.Add(sample(time.Second, 6*time.Second, 400, 1000, 11, 11))
	w.Add(sample(2*time.Second, 8*time.Second, 300, 5000, 13, 11))
	u := w.End(sample(2*time.Second+100*time.Millisecond, 8*time.Second+100*time.Millisecond, 200, 6000, 13.1, 11.1))

	if !u.HasCPU || u.CPU() != 3100*time.Millisecond {
		t.Errorf("CPU %v, want 3.1s", u.CPU())
	}
	if want := 3.1 / (2.1 * 2); !near(u.CPUAvg, want) {
		t.Errorf("avg utilisation %v, want %v", u.CPUAvg, want)
	}
	// The last 100 ms, shorter than MinPeakSpan, are joined to the second
	// second: 2.1 s of CPU over 1.1 s of two CPUs.
	if want := 2.1 / 2.2; !near(u.CPUPeak, want) {
		t.Errorf("peak utilisation %v, want %v (the second second and the last 100 ms)", u.CPUPeak, want)
	}
	if u.MemoryPeak != 400 {
		t.Errorf("memory peak %d, want 400", u.MemoryPeak)
	}
	if !u.HasIO || u.WriteBytes != 5000 || u.ReadBytes != 0 {
		t.Errorf("IO %d/%d, want 0/5000", u.ReadBytes, u.WriteBytes)
	}
	if !u.HasPressure || u.Pressure.CPUSome != 310*time.Millisecond || u.Pressure.HasIOSome {
		t.Errorf("stalls %+v", u.Pressure)
	}
	// The duration is the span's, which the window does not know.
	if u.Samples != 4 || u.Duration != 0 {
		t.Errorf("samples %d duration %v", u.Samples, u.Duration)
	}
	// Host: busy 3.1 of 4.2 CPU-seconds.
	if want := 3.1 / 4.2; !u.HasSystemCPU || math.Abs(u.SystemCPUAvg-want) > 1e-9 {
		t.Errorf("host avg %v, want %v", u.SystemCPUAvg, want)
	}
	if want := 2.1 / 2.2; !near(u.SystemCPUPeak, want) {
		t.Errorf("host peak %v, want %v", u.SystemCPUPeak, want)
	}
}

// A 50 ms phase: its deltas are exact, and its peak is its average.
func TestWindowShortPhase(t *testing.T) {
	var w Window
	w.Begin(sample(0, time.Second, 10, 0, 1, 1))
	u := w.End(sample(50*time.Millisecond, time.Second+40*time.Millisecond, 10, 0, 1.04, 1.06))
	if u.CPU() != 40*time.Millisecond {
		t.Errorf("CPU %v, want 40ms", u.CPU())
	}
	if !near(u.CPUPeak, u.CPUAvg) || !near(u.CPUAvg, 0.4) {
		t.Errorf("avg %v peak %v, want 0.4 both", u.CPUAvg, u.CPUPeak)
	}
}

// Boundary samples a few milliseconds apart do not make a peak: the span
// is joined to the next.
func TestWindowIgnoresShortSpansForPeaks(t *testing.T) {
	var w Window
	w.Begin(sample(0, 0, 0, 0, 0, 0))
	// 10ms later the tree's CPU has moved by one 10ms tick on each CPU:
	// 100% over that span, which says nothing.
	w.Add(sample(10*time.Millisecond, 20*time.Millisecond, 0, 0, 0.02, 0))
	u := w.End(sample(time.Second, 100*time.Millisecond, 0, 0, 0.1, 1.9))
	if u.CPUPeak > 0.051 {
		t.Errorf("peak %v from a 10ms span", u.CPUPeak)
	}
}

func TestWindowAbsentIsNotZero(t *testing.T) {
	var w Window
	s := &hostmetrics.Sample{Time: t0}
	w.Begin(s)
	e := &hostmetrics.Sample{Time: t0.Add(time.Second)}
	u := w.End(e)
	if u.HasCPU || u.HasMemory || u.HasIO || u.HasPressure || u.HasSystemCPU || u.HasNetwork || u.HasOOMKills {
		t.Errorf("figures present from empty samples: %+v", u)
	}
	for _, kv := range u.Attributes() {
		if kv.Key != AttrSamples {
			t.Errorf("attribute %s set from empty samples", kv.Key)
		}
	}
}

// Counters that go down (a cgroup recreated, a device gone) give zero, not
// a huge unsigned number.
func TestWindowCountersNeverNegative(t *testing.T) {
	var w Window
	w.Begin(sample(0, 2*time.Second, 0, 9000, 5, 5))
	u := w.End(sample(time.Second, time.Second, 0, 10, 4, 4))
	if u.CPU() != 0 || u.WriteBytes != 0 {
		t.Errorf("CPU %v write %d: want 0", u.CPU(), u.WriteBytes)
	}
}

func TestAttributesUnitsAndKeys(t *testing.T) {
	var w Window
	w.Begin(sample(0, 0, 0, 0, 0, 0))
	u := w.End(sample(time.Second, 1500*time.Millisecond, 1<<20, 4096, 1, 1))
	got := map[attribute.Key]attribute.Value{}
	for _, kv := range u.Attributes() {
		got[kv.Key] = kv.Value
	}
	if v := got[AttrCPUUser].AsFloat64() + got[AttrCPUSystem].AsFloat64(); !near(v, 1.5) {
		t.Errorf("cpu user+system %v s, want 1.5", v)
	}
	if got[AttrMemoryPeak].AsInt64() != 1<<20 || got[AttrDiskWrite].AsInt64() != 4096 {
		t.Errorf("memory %v write %v", got[AttrMemoryPeak], got[AttrDiskWrite])
	}
	known := map[attribute.Key]bool{}
	for _, k := range AttributeKeys() {
		known[k] = true
	}
	for k := range got {
		if !known[k] {
			t.Errorf("attribute %s is not in AttributeKeys", k)
		}
	}
}

// Every attribute is documented in docs/attributes.md.
func TestAttributesDocumented(t *testing.T) { attrdoc.Check(t, AttributeKeys()) }

// TestHostCPUWaitExact checks that iowait and steal, which the host gives as
// float seconds, come out as the nearest nanosecond, as FromAttributes reads
// them back, rather than truncated below (0.3 s as 299.999999 ms).
func TestHostCPUWaitExact(t *testing.T) {
	b := sample(0, 0, 0, 0, 1, 1)
	b.Host.CPU.IOWait, b.Host.CPU.Steal = 10, 20
	e := sample(time.Second, 0, 0, 0, 2, 1.5)
	e.Host.CPU.IOWait, e.Host.CPU.Steal = 10.3, 20.7
	var w Window
	w.Begin(b)
	u := w.End(e)
	if u.SystemCPUIOWait != 300*time.Millisecond || u.SystemCPUSteal != 700*time.Millisecond {
		t.Errorf("iowait %v, steal %v; want 300ms and 700ms", u.SystemCPUIOWait, u.SystemCPUSteal)
	}
	// A counter that stepped back is no wait at all.
	e.Host.CPU.IOWait = 9
	w.Begin(b)
	if u := w.End(e); u.SystemCPUIOWait != 0 {
		t.Errorf("iowait that went back: %v, want 0", u.SystemCPUIOWait)
	}
}

// netSample is a sample at t0+at whose host has received rx bytes.
func netSample(at time.Duration, rx uint64) *hostmetrics.Sample {
	s := sample(at, 0, 0, 0, 1, 1)
	s.Host.HasNet, s.Host.Net.RxBytes = true, rx
	return s
}

// A counter that went back between a phase's boundaries (a network
// interface went away, and the machine's sum lost its bytes) is taken by
// monotonic's rule: the change to the lower reading is unknown and left
// out, and the next counts from it, as the CSV's rows of the phase sum.
// Before, the phase took its end less its begin: with the end lower, no
// traffic at all.
func TestWindowAcrossAReset(t *testing.T) {
	var w Window
	w.Begin(netSample(0, 1000))
	w.Add(netSample(time.Second, 1200))       // +200
	w.Add(netSample(2*time.Second, 400))      // a reset: unknown
	u := w.End(netSample(3*time.Second, 700)) // +300
	if !u.HasNetwork || u.NetworkReceive != 500 {
		t.Errorf("received %d (has %v), want 500", u.NetworkReceive, u.HasNetwork)
	}
}

// The job's CPU time read from its tree at a phase's begin (its cgroup
// could not be read) and from its cgroup at its end are two counters: the
// change from one to the other is unknown, as the CSV's cells are empty.
// Before, the phase took the cgroup's figure less the tree's, which misses
// the processes reaped before they were seen.
func TestWindowAcrossASourceChange(t *testing.T) {
	b := sample(0, 0, 0, 0, 1, 1)
	b.Job.Cgroup.HasCPU = false
	b.Job.HasTree = true
	b.Job.Tree = hostmetrics.Tree{CPUUser: 4 * time.Second, At: b.Time}
	var w Window
	w.Begin(b)
	u := w.End(sample(time.Second, 12*time.Second, 0, 0, 2, 1))
	if u.CPU() != 0 {
		t.Errorf("CPU %v from the tree's 4s to the cgroup's 12s, want 0: unknown", u.CPU())
	}
}

// treeSample is a sample of a job measured by walking its tree, last walked
// at walked, when it had used cpu.
func treeSample(at, walked, cpu time.Duration) *hostmetrics.Sample {
	s := &hostmetrics.Sample{Time: t0.Add(at)}
	s.Host.NumCPU = 2
	s.Job.HasTree = true
	s.Job.Tree.At = t0.Add(walked)
	s.Job.Tree.CPUUser = cpu
	return s
}

// A job's tree walked every other sample (a large tree is walked less
// often): its CPU utilization is taken between the walks that read its CPU
// time, not between the samples. The job keeps one CPU of two busy: 0.5
// throughout. Before, the span after a sample without a walk held two
// seconds of CPU over one second, a peak of 1, and the one before it 0.
func TestCPUShareBetweenTheWalks(t *testing.T) {
	var w Window
	w.Begin(treeSample(0, 0, 0))
	w.Add(treeSample(time.Second, 0, 0))
	w.Add(treeSample(2*time.Second, 2*time.Second, 2*time.Second))
	w.Add(treeSample(3*time.Second, 2*time.Second, 2*time.Second))
	u := w.End(treeSample(4*time.Second, 4*time.Second, 4*time.Second))
	if !near(u.CPUAvg, 0.5) || !near(u.CPUPeak, 0.5) {
		t.Errorf("average %v, peak %v; want 0.5 and 0.5", u.CPUAvg, u.CPUPeak)
	}
	// A window whose end was read at an earlier walk: its average is over
	// the span up to that walk.
	w = Window{}
	w.Begin(treeSample(0, 0, 0))
	u = w.End(treeSample(3*time.Second, 2*time.Second, 2*time.Second))
	if !near(u.CPUAvg, 0.5) {
		t.Errorf("average to the last walk %v, want 0.5", u.CPUAvg)
	}
}

// A phase that begins between two walks of a large tree: the memory its
// begin sample carries is the last walk's, made before the phase (in the
// phase before it), and is not the phase's. Its peak is that of the walks
// made for it. Before, a phase after a 1 GiB one showed a 1 GiB peak.
func TestMemoryOfAnEarlierWalkIsNotThePhases(t *testing.T) {
	withRSS := func(s *hostmetrics.Sample, rss uint64) *hostmetrics.Sample {
		s.Job.Tree.RSS = rss
		return s
	}
	var w Window
	w.Begin(withRSS(treeSample(time.Second, 0, 0), 1<<30))
	w.Add(withRSS(treeSample(2*time.Second, 2*time.Second, time.Second), 100<<20))
	u := w.End(withRSS(treeSample(3*time.Second, 3*time.Second, 2*time.Second), 200<<20))
	if !u.HasMemory || u.MemoryPeak != 200<<20 {
		t.Errorf("memory peak %d (has %v), want the walks' 200 MiB, not the 1 GiB of the walk before the phase", u.MemoryPeak, u.HasMemory)
	}
}

// A phase's average share of the CPUs is its CPUs busy over the machine's,
// over its span's duration (SetSpan): a phase of 3 s whose window is the
// 10 s between the samples around it (2.5 s of CPU, two CPUs) kept 0.83
// CPUs busy, 42 % of two, not the window's 12.5 %; its peak is at least
// that. Without a duration the window's average stays.
func TestAverageIsBusyOverTheSpan(t *testing.T) {
	var w Window
	w.Begin(sample(0, 0, 0, 0, 0, 0))
	u := w.End(sample(10*time.Second, 2500*time.Millisecond, 0, 0, 4, 16))
	if !near(u.CPUAvg, 2.5/20) {
		t.Fatalf("the window's average %v, want %v", u.CPUAvg, 2.5/20)
	}
	windows := u
	u.SetSpan(t0.Add(4*time.Second), t0.Add(7*time.Second))
	busy, ok := u.CPUsBusy()
	if !ok || !near(busy, 2.5/3) || !near(u.CPUAvg, busy/2) || u.CPUPeak < u.CPUAvg {
		t.Errorf("busy %v %v, average %v, peak %v; want %v CPUs busy, %v of two, the peak at least that",
			busy, ok, u.CPUAvg, u.CPUPeak, 2.5/3, 2.5/6)
	}
	none := windows
	none.SetSpan(t0.Add(7*time.Second), t0.Add(4*time.Second))
	if _, ok := none.CPUsBusy(); ok || none.CPUAvg != windows.CPUAvg {
		t.Errorf("a span out of order: busy %v, average %v; want none, the window's %v", ok, none.CPUAvg, windows.CPUAvg)
	}
	// More CPU time than the span had CPUs for (a window wider than the
	// span) is all of them.
	u.SetDuration(time.Second)
	if busy, _ := u.CPUsBusy(); busy != 2 || u.CPUAvg != 1 {
		t.Errorf("2.5 s of CPU over 1 s of two CPUs: busy %v, average %v; want 2 and 1", busy, u.CPUAvg)
	}
}
