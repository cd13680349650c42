package hostmetrics

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// fakeSource counts reads and can fail.
type fakeSource struct {
	reads atomic.Int64
	err   error
	delay time.Duration
}

func (f *fakeSource) Read(s *Sample) error {
	n := f.reads.Add(1)
	time.Sleep(f.delay)
	s.Host.HasCPU = true
	s.Host.CPU.User = float64(n)
	return f.err
}
func (f *fakeSource) SetJob(int)          {}
func (f *fakeSource) JobOutsideCgroup()   {}
func (f *fakeSource) JobExited(ExitUsage) {}
func (f *fakeSource) Unavailable() string { return "" }
func (f *fakeSource) Close() error        { return nil }

type reasons struct {
	mu  sync.Mutex
	got []Reason
}

func (r *reasons) Sample(s *Sample) {
	r.mu.Lock()
	r.got = append(r.got, s.Reason)
	r.mu.Unlock()
}

func (r *reasons) list() []Reason {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Reason(nil), r.got...)
}

func TestSamplerStartBoundaryStop(t *testing.T) {
	src := &fakeSource{}
	rec := &reasons{}
	s := NewSampler(src, Options{Interval: -1, Sinks: []Sink{rec}})
	s.Start()
	got := make(chan float64, 1)
	s.Boundary(func(x *Sample) {
		if x.Reason != ReasonBoundary {
			t.Errorf("boundary function got a %v sample", x.Reason)
		}
		got <- x.Host.CPU.User
	})
	select {
	case v := <-got:
		if v != 2 {
			t.Errorf("boundary sample is read %v, want the second read", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no boundary sample")
	}
	ended := false
	s.Boundary(func(*Sample) {}) // gets a sample before the last one
	s.Stop()
	s.Boundary(func(x *Sample) { ended = x.Reason == ReasonEnd })
	if !ended {
		t.Error("a boundary after Stop was not given the last sample")
	}
	r := rec.list()
	if len(r) < 3 || r[0] != ReasonStart || r[len(r)-1] != ReasonEnd {
		t.Errorf("reasons %v: want start first and end last", r)
	}
	for _, x := range r {
		if x == ReasonInterval {
			t.Errorf("an interval sample with a negative interval: %v", r)
		}
	}
}

// Requests that arrive while a sample is being read share the next one,
// and every function is called exactly once.
func TestSamplerCoalescesBoundaries(t *testing.T) {
	src := &fakeSource{delay: 2 * time.Millisecond}
	s := NewSampler(src, Options{Interval: -1})
	s.Start()
	const n = 500
	var calls atomic.Int64
	for range n {
		s.Boundary(func(*Sample) { calls.Add(1) })
	}
	s.Stop()
	if c := calls.Load(); c != n {
		t.Fatalf("%d boundary functions called, want %d", c, n)
	}
	if r := src.reads.Load(); r > n/4 {
		t.Errorf("%d reads for %d boundary requests: they were not shared", r, n)
	}
}

// Interval samples come, and never more often than the interval: a ticker
// drops the ticks a busy reader misses rather than bunching them.
func TestSamplerInterval(t *testing.T) {
	const interval = 20 * time.Millisecond
	src := &fakeSource{}
	rec := &reasons{}
	s := NewSampler(src, Options{Interval: interval, Sinks: []Sink{rec}})
	intervals := func() int {
		n := 0
		for _, x := range rec.list() {
			if x == ReasonInterval {
				n++
			}
		}
		return n
	}
	start := time.Now()
	s.Start()
	timingtest.Eventually(t, "three interval samples", func() bool { return intervals() >= 3 })
	s.Stop()
	took := time.Since(start)
	if n, most := intervals(), int(took/interval); n > most {
		t.Errorf("%d interval samples in %v at %v: more than %d", n, took, interval, most)
	}
}

// A read problem met at every sample is reported once, and sampling goes
// on.
func TestSamplerWarnsOnce(t *testing.T) {
	src := &fakeSource{err: errors.Join(errors.New("cannot read x"), errors.New("cannot read y"))}
	var warnings []string
	s := NewSampler(src, Options{Interval: MinInterval, Warn: func(w string) { warnings = append(warnings, w) }})
	s.Start()
	timingtest.Eventually(t, "three reads", func() bool { return src.reads.Load() >= 3 })
	s.Stop()
	if len(warnings) != 2 {
		t.Errorf("warnings %q: want each problem once", warnings)
	}
}

func TestSamplerMinInterval(t *testing.T) {
	s := NewSampler(&fakeSource{}, Options{Interval: time.Microsecond})
	if s.opts.Interval != MinInterval {
		t.Errorf("interval %v, want the minimum %v", s.opts.Interval, MinInterval)
	}
}

func TestCopyToReusesSlices(t *testing.T) {
	a := Sample{Reason: ReasonEnd}
	a.Host.Ifaces = append(a.Host.Ifaces, Iface{Name: "eth0"}, Iface{Name: "eth1"})
	var b Sample
	a.CopyTo(&b)
	if b.Reason != ReasonEnd || len(b.Host.Ifaces) != 2 {
		t.Fatalf("copy %+v", b)
	}
	a.Host.Ifaces[0].Name = "changed"
	if b.Host.Ifaces[0].Name == "changed" {
		t.Error("CopyTo shares the slice")
	}
}

// A boundary far from the last sample is sampled before Boundary returns.
func TestSamplerBoundaryAtOnce(t *testing.T) {
	src := &fakeSource{}
	s := NewSampler(src, Options{Interval: -1})
	s.Start()
	defer s.Stop()
	time.Sleep(2 * SyncGap)
	called := false
	s.Boundary(func(*Sample) { called = true })
	if !called {
		t.Error("the boundary function was not called before Boundary returned")
	}
	if r := src.reads.Load(); r != 2 {
		t.Errorf("%d reads, want 2", r)
	}
}

// blockingSource holds every read after the first until released.
type blockingSource struct {
	fakeSource
	reading chan struct{}
	release chan struct{}
}

func (b *blockingSource) Read(s *Sample) error {
	if b.fakeSource.reads.Load() > 0 {
		select {
		case b.reading <- struct{}{}:
		default:
		}
		<-b.release
	}
	return b.fakeSource.Read(s)
}

// While a sample is being read, at most MaxPendingBoundaries functions
// wait for the next one: the next Boundary waits for them to be taken,
// instead of the waiting list growing with a flood of phases.
func TestSamplerBoundsWaitingBoundaries(t *testing.T) {
	src := &blockingSource{reading: make(chan struct{}, 1), release: make(chan struct{})}
	t0 := time.Now()
	// A clock that never moves: every boundary goes to the sampling
	// goroutine rather than being sampled in the caller's.
	s := NewSampler(src, Options{Interval: -1, Now: func() time.Time { return t0 }})
	s.Start()
	var calls atomic.Int64
	fn := func(*Sample) { calls.Add(1) }
	s.Boundary(fn)
	<-src.reading // the sampling goroutine took fn and is reading
	for range MaxPendingBoundaries {
		s.Boundary(fn)
	}
	returned := make(chan struct{})
	go func() { s.Boundary(fn); close(returned) }()
	select {
	case <-returned:
		t.Fatalf("Boundary returned with %d functions waiting", MaxPendingBoundaries)
	case <-time.After(50 * time.Millisecond):
	}
	close(src.release)
	<-returned
	s.Stop()
	if c := calls.Load(); c != MaxPendingBoundaries+2 {
		t.Errorf("%d boundary functions called, want %d", c, MaxPendingBoundaries+2)
	}
}

// Request never reads and never waits, even while a sample is being read
// and more than MaxPendingBoundaries functions wait: a phase tracker calls
// it under its lock. The functions are called in the order requested.
func TestSamplerRequestNeverWaits(t *testing.T) {
	src := &blockingSource{reading: make(chan struct{}, 1), release: make(chan struct{})}
	var mu sync.Mutex
	t0 := time.Now()
	clock := t0
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	s := NewSampler(src, Options{Interval: -1, Now: now})
	s.Start()
	mu.Lock()
	clock = t0.Add(SyncGap)
	mu.Unlock()
	var order []int
	first := make(chan struct{})
	go func() {
		// Sampled at once, in this goroutine, which blocks in Read.
		s.Boundary(func(*Sample) { order = append(order, 0) })
		close(first)
	}()
	<-src.reading
	const n = MaxPendingBoundaries + 10
	for i := 1; i <= n; i++ {
		s.Request(func(*Sample) { order = append(order, i) })
	}
	if r := src.reads.Load(); r != 1 {
		t.Errorf("%d reads finished while the second one is held, want 1", r)
	}
	close(src.release)
	<-first
	s.Serve()
	s.Stop()
	if len(order) != n+1 {
		t.Fatalf("%d functions called, want %d", len(order), n+1)
	}
	for i, v := range order {
		if v != i {
			t.Fatalf("function %d called in place %d", v, i)
		}
	}
}

// A boundary asked for before Stop gets a sample of its own, taken before
// the last one, however the sampling goroutine's wake-up and the stop race:
// the phase it ends has its own row, and the end sample stays the end.
func TestSamplerBoundaryBeforeStopIsNotTheEnd(t *testing.T) {
	for i := range 200 {
		rec := &reasons{}
		s := NewSampler(&fakeSource{}, Options{Interval: -1, Sinks: []Sink{rec}})
		s.Start() // a sample just taken: the next boundary wakes the goroutine
		var got Reason
		s.Request(func(x *Sample) { got = x.Reason })
		s.Serve()
		s.Stop()
		if got != ReasonBoundary {
			t.Fatalf("run %d: the boundary got a %v sample; samples %v", i, got, rec.list())
		}
		if r := rec.list(); r[len(r)-1] != ReasonEnd {
			t.Fatalf("run %d: samples %v, want the end last", i, r)
		}
	}
}

// Past MaxWarnings distinct problems, problems are counted, and the count
// is said when sampling stops.
func TestSamplerCountsProblemsPastTheLimit(t *testing.T) {
	var errs []error
	for i := range MaxWarnings + 5 {
		errs = append(errs, fmt.Errorf("cannot read file %d", i))
	}
	var warnings []string
	s := NewSampler(&fakeSource{}, Options{Warn: func(w string) { warnings = append(warnings, w) }})
	s.warn(errors.Join(errs...))
	s.warn(errors.Join(errs...))
	s.Stop()
	if len(warnings) != MaxWarnings+2 {
		t.Fatalf("%d warnings, want MaxWarnings (%d), a note and a count: %q", len(warnings), MaxWarnings, warnings)
	}
	if w := warnings[MaxWarnings-1]; w != fmt.Sprintf("sampling: cannot read file %d", MaxWarnings-1) {
		t.Errorf("last in full: %q", w)
	}
	if w := warnings[len(warnings)-1]; w != "sampling: 5 warnings suppressed in total" {
		t.Errorf("last: %q", w)
	}
}

// Finish's function gets the last sample, read for it and the sinks alike:
// no sample of its own is read before it. Before Start, Finish still calls
// the functions waiting and its own.
func TestSamplerFinishServesTheLastSample(t *testing.T) {
	rec := &reasons{}
	s := NewSampler(&fakeSource{}, Options{Interval: -1, Sinks: []Sink{rec}})
	s.Start()
	got, served := ReasonStart, false
	s.Finish(func(x *Sample) { got, served = x.Reason, true })
	if !served || got != ReasonEnd {
		t.Errorf("Finish's function got a %v sample (called: %v), want end", got, served)
	}
	if r := rec.list(); len(r) != 2 || r[0] != ReasonStart || r[1] != ReasonEnd {
		t.Errorf("samples %v, want start and end only", r)
	}

	never := NewSampler(&fakeSource{}, Options{Interval: -1})
	waiting, last := false, false
	never.Request(func(*Sample) { waiting = true })
	never.Finish(func(*Sample) { last = true })
	if !waiting || !last {
		t.Errorf("Finish before Start: the waiting function called %v, Finish's %v", waiting, last)
	}
}

// firstHeldSource holds its first read until released.
type firstHeldSource struct {
	fakeSource
	release chan struct{}
}

func (f *firstHeldSource) Read(s *Sample) error {
	if f.fakeSource.reads.Load() == 0 {
		<-f.release
	}
	return f.fakeSource.Read(s)
}

// StartAside returns while the first sample is still being read, in the
// sampling goroutine; FirstTaken waits for it; a boundary served meanwhile
// is not sampled before it (it gets the first sample, or one after it).
func TestSamplerStartAside(t *testing.T) {
	src := &firstHeldSource{release: make(chan struct{})}
	rec := &reasons{}
	s := NewSampler(src, Options{Interval: -1, Sinks: []Sink{rec}})
	s.StartAside()
	var got Reason
	s.Request(func(x *Sample) { got = x.Reason })
	s.Serve()
	if n := src.reads.Load(); n != 0 {
		t.Errorf("%d reads done with the first one held, want 0", n)
	}
	close(src.release)
	s.FirstTaken()
	if r := rec.list(); len(r) == 0 || r[0] != ReasonStart {
		t.Errorf("samples %v once the first was taken, want the start sample first", r)
	}
	s.Stop()
	if got != ReasonStart && got != ReasonBoundary {
		t.Errorf("the boundary got a %v sample, want the start or one of its own", got)
	}
	if r := rec.list(); r[0] != ReasonStart || r[len(r)-1] != ReasonEnd {
		t.Errorf("samples %v, want the start first and the end last", r)
	}
}

// readSignal is a fakeSource that says when each read is done.
type readSignal struct {
	fakeSource
	done chan int64
}

func (r *readSignal) Read(s *Sample) error {
	err := r.fakeSource.Read(s)
	r.done <- r.fakeSource.reads.Load()
	return err
}

// userOf records the sinks' samples by the read that filled them.
type userOf struct {
	mu  sync.Mutex
	got []string
}

func (u *userOf) Sample(s *Sample) {
	u.mu.Lock()
	u.got = append(u.got, fmt.Sprintf("%v:%v", s.Reason, s.Host.CPU.User))
	u.mu.Unlock()
}

func (u *userOf) list() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return fmt.Sprint(u.got)
}

// readAheadSampler is a started Sampler whose sinks record what each
// sample was read by (userOf), once ReadAhead has read its sample.
func readAheadSampler(t *testing.T) (*readSignal, *userOf, *Sampler) {
	t.Helper()
	src := &readSignal{done: make(chan int64, 8)}
	rec := &userOf{}
	s := NewSampler(src, Options{Interval: -1, Sinks: []Sink{rec}})
	s.Start()
	<-src.done
	s.ReadAhead()
	if n := <-src.done; n != 2 {
		t.Fatalf("read %d after ReadAhead, want the second", n)
	}
	return src, rec, s
}

// The sample ReadAhead read is the last one when nothing is sampled after
// it: Finish reads none of its own, and the sinks and Finish's function get
// it as the end sample.
func TestSamplerReadAheadIsTheLast(t *testing.T) {
	src, rec, s := readAheadSampler(t)
	if got := rec.list(); got != "[start:1]" {
		t.Errorf("before Finish the sinks had %s, want the start sample only", got)
	}
	var last string
	s.Finish(func(x *Sample) { last = fmt.Sprintf("%v:%v", x.Reason, x.Host.CPU.User) })
	if n := src.reads.Load(); n != 2 {
		t.Errorf("%d reads, want 2: Finish read a sample of its own", n)
	}
	if got := rec.list(); got != "[start:1 end:2]" {
		t.Errorf("samples %s, want the start and the one read ahead as the end", got)
	}
	if last != "end:2" {
		t.Errorf("Finish's function got %s, want end:2", last)
	}
}

// A sample taken after ReadAhead's makes it stale: a phase ended after the
// job (a boundary served before Finish, or one waiting when Finish is
// called) gets a sample read after it, and the last sample is read after
// that one, so that the end comes last.
func TestSamplerReadAheadStaleAfterABoundary(t *testing.T) {
	for _, served := range []bool{true, false} {
		_, rec, s := readAheadSampler(t)
		var boundary string
		fn := func(x *Sample) { boundary = fmt.Sprintf("%v:%v", x.Reason, x.Host.CPU.User) }
		if served {
			s.Boundary(fn)
		} else {
			s.Request(fn)
		}
		var last string
		s.Finish(func(x *Sample) { last = fmt.Sprintf("%v:%v", x.Reason, x.Host.CPU.User) })
		if boundary != "boundary:3" || last != "end:4" {
			t.Errorf("served %v: the boundary got %s and Finish %s, want boundary:3 and end:4", served, boundary, last)
		}
		if got := rec.list(); got != "[start:1 boundary:3 end:4]" {
			t.Errorf("served %v: samples %s, want start, the boundary's, then the end read after it", served, got)
		}
	}
}

// ReadAhead does nothing once the Sampler has finished, nor before it
// started.
func TestSamplerReadAheadOutsideItsRun(t *testing.T) {
	src := &fakeSource{}
	s := NewSampler(src, Options{Interval: -1})
	s.ReadAhead()
	s.Start()
	s.Stop()
	s.ReadAhead()
	if n := src.reads.Load(); n != 2 {
		t.Errorf("%d reads, want the start and the end only", n)
	}
}

// stackSource records whether each read was made from a goroutine whose
// stack holds the function named in.
type stackSource struct {
	fakeSource
	in     string
	caller atomic.Bool
}

func (c *stackSource) Read(s *Sample) error {
	buf := make([]byte, 16<<10)
	c.caller.Store(strings.Contains(string(buf[:runtime.Stack(buf, false)]), c.in))
	return c.fakeSource.Read(s)
}

// A boundary whose caller waits for it (ServeWaited) is sampled in the
// caller's goroutine even right after the last sample, where Serve hands
// it to the sampling goroutine.
func TestSamplerServeWaitedReadsInTheCaller(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		name   string
		serve  func(*Sampler)
		caller bool
	}{
		{"ServeWaited", (*Sampler).ServeWaited, true},
		{"Serve", (*Sampler).Serve, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &stackSource{in: "TestSamplerServeWaitedReadsInTheCaller"}
			s := NewSampler(src, Options{Interval: -1, Now: func() time.Time { return now }})
			s.Start()
			defer s.Stop()
			done := make(chan struct{})
			s.Request(func(*Sample) { close(done) })
			c.serve(s)
			select {
			case <-done:
			case <-time.After(timingtest.Patience):
				t.Fatal("the boundary was not sampled")
			}
			if got := src.caller.Load(); got != c.caller {
				t.Errorf("read in the caller's goroutine: %v, want %v", got, c.caller)
			}
			if r := src.reads.Load(); r != 2 {
				t.Errorf("%d reads, want 2 (the first and the boundary's)", r)
			}
		})
	}
}

// jobFirstSource is a JobFirst source whose host reads wait, once hold is
// called, until release is closed; it records the order of its reads.
type jobFirstSource struct {
	fakeSource
	mu      sync.Mutex
	order   []string
	held    bool
	release chan struct{}
	hosting chan struct{} // gets a value when a held host read begins
}

func newJobFirstSource() *jobFirstSource {
	return &jobFirstSource{release: make(chan struct{}), hosting: make(chan struct{}, 1)}
}

func (j *jobFirstSource) ReadJob(s *Sample) error {
	j.mu.Lock()
	j.order = append(j.order, "job")
	j.mu.Unlock()
	n := j.reads.Add(1)
	s.Job.HasTree = true
	s.Job.Tree.Processes = int(n)
	return nil
}

func (j *jobFirstSource) ReadHost(s *Sample) error {
	j.mu.Lock()
	j.order = append(j.order, "host")
	held := j.held
	j.mu.Unlock()
	if held {
		j.hosting <- struct{}{}
		<-j.release
	}
	s.Host.HasCPU = true
	s.Host.CPU.User = float64(s.Job.Tree.Processes)
	return nil
}

func (j *jobFirstSource) Read(s *Sample) error {
	return errors.Join(j.ReadJob(s), j.ReadHost(s))
}

func (j *jobFirstSource) hold() {
	j.mu.Lock()
	j.held = true
	j.mu.Unlock()
}

// A waited boundary with a JobFirst source: its waiter goes on once the
// job's figures are read, while the host's are still being read; the
// boundary's function then gets the whole sample, read in that order, and
// Stop waits for it.
func TestSamplerJobFirstReleasesTheWaiterBeforeTheHost(t *testing.T) {
	for _, c := range []struct {
		name  string
		serve func(*Sampler)
		// returns is set when serve returns before the host's figures
		// are read: the caller replies meanwhile.
		returns bool
	}{
		{"ServeWaited", (*Sampler).ServeWaited, true},
		{"Serve", (*Sampler).Serve, false}, // the whole sample read at once
	} {
		t.Run(c.name, func(t *testing.T) {
			src := newJobFirstSource()
			clock := time.Now()
			s := NewSampler(src, Options{Interval: -1, Now: func() time.Time { clock = clock.Add(SyncGap); return clock }})
			s.Start()
			src.hold()
			var got Sample
			called := make(chan struct{})
			read := s.RequestWaited(func(smp *Sample) { smp.CopyTo(&got); close(called) })
			served := make(chan struct{})
			go func() { c.serve(s); close(served) }()
			select {
			case <-read:
			case <-time.After(timingtest.Patience):
				t.Fatal("the waiter was not released once the job's figures were read")
			}
			<-src.hosting // the host read is under way, held
			select {
			case <-called:
				t.Fatal("the boundary's function ran before the host's figures were read")
			default:
			}
			if c.returns {
				select {
				case <-served:
				case <-time.After(timingtest.Patience):
					t.Fatal("ServeWaited did not return before the host's figures were read")
				}
			}
			stopped := make(chan struct{})
			go func() { s.Stop(); close(stopped) }()
			close(src.release)
			<-stopped
			<-served
			select {
			case <-called:
			default:
				t.Fatal("Stop returned before the boundary's function ran")
			}
			if !got.Job.HasTree || !got.Host.HasCPU || got.Host.CPU.User != float64(got.Job.Tree.Processes) {
				t.Errorf("the boundary's sample %+v lacks figures read after its waiter went on", got)
			}
			src.mu.Lock()
			defer src.mu.Unlock()
			if want := []string{"job", "host", "job", "host", "job", "host"}; fmt.Sprint(src.order) != fmt.Sprint(want) {
				t.Errorf("reads %v, want %v (first, boundary, last)", src.order, want)
			}
		})
	}
}

// With a source that reads all at once, RequestWaited's channel is closed
// once the sample is read.
func TestSamplerRequestWaitedPlainSource(t *testing.T) {
	src := &fakeSource{}
	s := NewSampler(src, Options{Interval: -1})
	s.Start()
	defer s.Stop()
	read := s.RequestWaited(func(*Sample) {})
	s.ServeWaited()
	select {
	case <-read:
	case <-time.After(timingtest.Patience):
		t.Fatal("the waiter was never released")
	}
	if n := src.reads.Load(); n != 2 {
		t.Errorf("%d reads, want the first and the boundary's", n)
	}
}
