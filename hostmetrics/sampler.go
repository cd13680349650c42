package hostmetrics

import (
	"errors"
	"sync"
	"time"

	"github.com/jobtrace/jobtrace/internal/stackhint"
	"github.com/jobtrace/jobtrace/internal/warnlimit"
)

// Source reads samples. A Source is used by one Sampler goroutine at a time
// for Read; SetJob and JobExited may be called from any goroutine.
type Source interface {
	// Read fills s with what can be read now (Time and Reason are set by
	// the caller) and returns the problems met, joined. A figure that
	// could not be read is left absent; the error never stops sampling.
	Read(s *Sample) error
	// SetJob tells the source the pid of the job, once it has started,
	// or of the job's next command, when its commands are run one after
	// the other by the program that samples (see JobExited).
	SetJob(pid int)
	// JobOutsideCgroup tells the source, before SetJob, that the job is
	// not started in the cgroup of its own given in its Config: the
	// cgroup's members are not all of the job's processes.
	JobOutsideCgroup()
	// JobExited gives the usage the kernel reported when the job was
	// reaped, which completes the tree's figures. For a job whose commands
	// were each given by SetJob, the usages of those reaped add up.
	JobExited(u ExitUsage)
	// Unavailable names, in one sentence, the figures this system cannot
	// give; "" when it gives them all.
	Unavailable() string
	// Close releases the source's files.
	Close() error
}

// JobFirst is a Source that reads a sample's job figures and its host
// figures apart. The Sampler reads the job's first and lets the callers
// waiting for that sample (RequestWaited) go on before it reads the host's
// and hands the sample out: the reply to a `jobtrace phase` waits for the
// job's counters, from which the phase's usage is computed, not for the
// rest. Read is ReadJob then ReadHost.
type JobFirst interface {
	ReadJob(s *Sample) error
	ReadHost(s *Sample) error
}

// ExitUsage is the resource usage of a reaped process and of the
// descendants it waited for, as wait4(2) reports it.
type ExitUsage struct {
	User, System time.Duration
	// MaxRSS is the largest resident set of the process or of any one
	// descendant it waited for, in bytes.
	MaxRSS uint64
	// ReadBytes and WriteBytes are storage IO (ru_inblock and ru_oublock
	// in 512-byte blocks).
	ReadBytes, WriteBytes uint64
}

// Sink receives every sample, in the Sampler's goroutine. It must return
// quickly and copy what it keeps: the Sample is reused.
type Sink interface {
	Sample(s *Sample)
}

// DefaultInterval is the time between two interval samples.
const DefaultInterval = time.Second

// MinInterval is the shortest interval accepted: below it the agent's own
// CPU use would stop being negligible next to a job's.
const MinInterval = 10 * time.Millisecond

// MaxWarnings bounds the distinct read problems a Sampler reports in full;
// a problem met at every sample is said once, and those past the bound are
// counted (warnlimit), the count said when sampling stops.
const MaxWarnings = 20

// Options configure a Sampler.
type Options struct {
	// Interval between interval samples; DefaultInterval when zero, and no
	// interval samples at all (only start, boundary and end) when negative.
	Interval time.Duration
	// Sinks receive every sample, in order.
	Sinks []Sink
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Warn receives each distinct read problem once; nil drops them.
	Warn func(string)
}

// Sampler takes a sample every interval and, on request, at phase
// boundaries, and hands each to its sinks. A boundary far enough from the
// last sample (SyncGap) is sampled at once in the caller's goroutine, so
// that the sample precedes the phase's work; closer ones are queued for the
// Sampler's goroutine and share its next sample, so a flood of phases costs
// one sample per SyncGap. Sinks and boundary functions are called with one
// sample at a time, never concurrently.
type Sampler struct {
	src  Source
	opts Options
	// jobFirst is src when it reads the job's figures apart, else nil.
	jobFirst JobFirst

	mu      sync.Mutex
	pending []func(*Sample)
	// reads are the channels of RequestWaited, closed once the sample
	// pending's functions get has its job's figures read; taken with
	// pending.
	reads   []chan struct{}
	taken   chan struct{} // closed, and replaced, when pending is taken
	running bool
	stopped bool
	// later is a waited boundary's sample whose job figures were read in
	// the caller's goroutine, left for the finishing goroutine to read
	// the host's and hand out (serveJobFirst); laterWake tells it.
	later     *laterTake
	laterWake chan struct{}
	laterDone chan struct{} // closed when the finishing goroutine ends

	wake  chan struct{}
	ahead chan struct{} // ReadAhead's request to the sampling goroutine
	stop  chan struct{}
	done  chan struct{}
	first chan struct{} // closed once the first sample is taken

	// readMu is held while a sample is read and handed out: by the
	// sampling goroutine, or by a caller of Boundary that samples in its
	// own goroutine.
	readMu   sync.Mutex
	lastTake time.Time // guarded by mu
	cur      Sample
	// aheadRead is set when cur was read by ReadAhead and no sample has
	// been taken since: Finish hands it out as the last one. Guarded by
	// readMu.
	aheadRead bool
	spare     []func(*Sample)
	warnings  *warnlimit.Limiter
}

// MaxPendingBoundaries bounds the boundary functions waiting for the next
// sample. Each holds a phase's span until the sample is taken, so a flood of
// phase messages (a job sending 100,000 begin/end pairs to the socket) would
// otherwise keep every one of them in memory while a slow sample is read.
// When the bound is passed, Serve (and so Boundary) waits for the sampler to
// take the waiting ones: the flood slows to the sampler's pace instead of
// growing the agent. Request never waits, so the list may pass the bound by
// one function per goroutine between its Request and its Serve (a source:
// the output scanners, the marker dir, each socket connection). Many thousand boundaries share one sample, so the bound costs a
// flood little: a sample takes about a millisecond (50 ms with a tree of a
// thousand processes walked), in which the socket brings a few hundred
// messages.
const MaxPendingBoundaries = 4096

// SyncGap is how long after the last sample a boundary is sampled in the
// caller's own goroutine, at once, rather than queued for the sampling
// goroutine: a queued request waits for that goroutine to be scheduled,
// which on a loaded machine can take longer than a short phase, while the
// work of the phase has already begun. Boundaries closer together than
// SyncGap (a flood of phases) are queued and share samples, so the caller
// never pays for more than one sample per SyncGap.
const SyncGap = 10 * time.Millisecond

// NewSampler returns a Sampler reading src. Start begins sampling.
func NewSampler(src Source, opts Options) *Sampler {
	if opts.Interval == 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Interval > 0 && opts.Interval < MinInterval {
		opts.Interval = MinInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Sampler{
		warnings:  warnlimit.New("sampling: ", opts.Warn, MaxWarnings),
		src:       src,
		opts:      opts,
		wake:      make(chan struct{}, 1),
		ahead:     make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		taken:     make(chan struct{}),
		first:     make(chan struct{}),
		laterWake: make(chan struct{}, 1),
		laterDone: make(chan struct{}),
	}
	s.jobFirst, _ = src.(JobFirst)
	return s
}

// Start takes the first sample, in the caller's goroutine, and starts
// the sampling goroutine.
func (s *Sampler) Start() {
	if !s.begin() {
		return
	}
	s.takeFirst()
	go func() { stackhint.Grow(); s.loop(false) }()
	s.startFinishing()
}

// StartAside starts the sampling goroutine, which takes the first sample
// before anything else, and returns at once: the caller goes on with its
// own work while the sample is read, and FirstTaken waits for it. No sample
// is taken before that one: a boundary served meanwhile gets the sampling
// goroutine's next sample, and Finish waits for the first one.
func (s *Sampler) StartAside() {
	if s.begin() {
		go func() { stackhint.Grow(); s.loop(true) }()
		s.startFinishing()
	}
}

// FirstTaken waits until the first sample has been handed to the sinks; it
// returns at once when the Sampler was never started.
func (s *Sampler) FirstTaken() {
	s.mu.Lock()
	running := s.running
	s.mu.Unlock()
	if running {
		<-s.first
	}
}

// begin marks the Sampler running and takes readMu for the first sample,
// which takeFirst releases; it is false when the Sampler was started or
// stopped already.
func (s *Sampler) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.stopped {
		return false
	}
	s.running = true
	// Held from here, in the caller's goroutine, to the end of the first
	// sample, which the sampling goroutine may take: nothing is read
	// before it.
	s.readMu.Lock()
	return true
}

// takeFirst takes the first sample, with readMu held by begin.
func (s *Sampler) takeFirst() {
	s.take(ReasonStart)
	s.readMu.Unlock()
	close(s.first)
}

// Boundary asks for a sample now and calls fn with it after the sinks have
// seen it: it is Request(fn) followed by Serve.
func (s *Sampler) Boundary(fn func(*Sample)) {
	s.Request(fn)
	s.Serve()
}

// Request queues fn for the next sample and returns at once: it neither
// reads nor waits, so it may be called under a lock of the caller's, and
// functions requested one after the other are called in that order, with
// the same sample or successive ones. Serve, called after, has the sample
// taken.
func (s *Sampler) Request(fn func(*Sample)) {
	s.mu.Lock()
	s.pending = append(s.pending, fn)
	s.mu.Unlock()
}

// RequestWaited is Request for a caller that waits for its sample (a
// `jobtrace phase` waiting for its reply): the channel it returns is closed
// once that sample has its job's figures read, which, with a JobFirst
// source, is before fn is called; with another source, just before.
func (s *Sampler) RequestWaited(fn func(*Sample)) <-chan struct{} {
	read := make(chan struct{})
	s.mu.Lock()
	s.pending = append(s.pending, fn)
	s.reads = append(s.reads, read)
	s.mu.Unlock()
	return read
}

// Serve has the functions requested so far called: with a sample taken at
// once, in the caller's goroutine, when no sample was taken in the last
// SyncGap and none is being taken; otherwise with the sampling goroutine's
// next sample. When more than MaxPendingBoundaries are waiting, it first
// waits for the sampling goroutine to take them. Before Start and after Stop, it calls
// them with the last sample, in the caller's goroutine.
func (s *Sampler) Serve() { s.serve(false) }

// ServeWaited is Serve for a caller that then waits until its functions
// have been called (a `jobtrace phase` waiting for its reply): when no
// sample is being read, it takes the sample at once in its own goroutine,
// however soon after the last one, instead of handing the request to the
// sampling goroutine and waiting to be handed it back, two thread
// wake-ups that a busy machine makes long. Such a caller waits for its
// own sample in any case, so it is no more samples; what others ask while
// a sample is read still shares the next one.
func (s *Sampler) ServeWaited() { s.serve(true) }

func (s *Sampler) serve(waited bool) {
	s.mu.Lock()
	for s.running && !s.stopped && len(s.pending) > MaxPendingBoundaries {
		taken := s.taken
		s.mu.Unlock()
		poke(s.wake)
		<-taken
		s.mu.Lock()
	}
	if len(s.pending) == 0 {
		// Taken already, by a sample under way.
		s.mu.Unlock()
		return
	}
	if s.stopped || !s.running {
		s.mu.Unlock()
		s.readMu.Lock()
		defer s.readMu.Unlock()
		s.mu.Lock()
		fns, reads := s.pending, s.reads
		s.pending, s.reads = nil, nil
		s.mu.Unlock()
		release(reads)
		for _, fn := range fns {
			fn(&s.cur)
		}
		return
	}
	sync := waited || s.opts.Now().Sub(s.lastTake) >= SyncGap
	s.mu.Unlock()
	if sync && s.readMu.TryLock() {
		if s.jobFirst != nil && waited {
			s.serveJobFirst()
			return
		}
		s.take(ReasonBoundary)
		s.readMu.Unlock()
		return
	}
	poke(s.wake)
}

// laterTake is the rest of a sample taken by serveJobFirst.
type laterTake struct {
	fns []func(*Sample)
	err error
}

// serveJobFirst takes a waited boundary's sample in the caller's goroutine
// as far as the job's figures, releases its waiters, and leaves the host's
// figures and the handing out to the finishing goroutine, which releases
// readMu: the caller replies meanwhile. After Finish began, it takes the
// whole sample itself. The caller holds readMu.
func (s *Sampler) serveJobFirst() {
	now := s.opts.Now()
	fns, reads := s.takePending(now)
	s.cur.Time, s.cur.Reason = now, ReasonBoundary
	s.aheadRead = false
	err := s.jobFirst.ReadJob(&s.cur)
	release(reads)
	s.mu.Lock()
	handed := !s.stopped
	if handed {
		s.later = &laterTake{fns: fns, err: err}
	}
	s.mu.Unlock()
	if handed {
		poke(s.laterWake)
		return
	}
	s.finishTake(fns, err)
	s.readMu.Unlock()
}

// startFinishing starts the goroutine that finishes the samples
// serveJobFirst began, when the source is a JobFirst one.
func (s *Sampler) startFinishing() {
	if s.jobFirst == nil {
		close(s.laterDone)
		return
	}
	go func() {
		stackhint.Grow()
		defer close(s.laterDone)
		for {
			select {
			case <-s.laterWake:
				s.finishLater()
			case <-s.stop:
				// Finish set stopped first: no sample is left after
				// this one.
				s.finishLater()
				return
			}
		}
	}()
}

// finishLater finishes the sample serveJobFirst left, if any, and releases
// readMu, which serveJobFirst's caller took.
func (s *Sampler) finishLater() {
	s.mu.Lock()
	l := s.later
	s.later = nil
	s.mu.Unlock()
	if l == nil {
		return
	}
	s.finishTake(l.fns, l.err)
	s.readMu.Unlock()
}

// finishTake reads the host's figures of cur, whose job's figures were
// read with the problems in jobErr, and hands it out. The caller holds
// readMu.
func (s *Sampler) finishTake(fns []func(*Sample), jobErr error) {
	if err := errors.Join(jobErr, s.jobFirst.ReadHost(&s.cur)); err != nil {
		s.warn(err)
	}
	s.give(fns)
	s.mu.Lock()
	s.spare = fns[:0]
	s.mu.Unlock()
}

// release closes the channels of RequestWaited's callers.
func release(reads []chan struct{}) {
	for _, r := range reads {
		close(r)
	}
}

// ReadAhead has the sampling goroutine read the last sample now, and
// returns at once: a program whose job has just ended calls it, so that
// the sample is read while it reads what is left of the job's output and
// messages, and Finish, called after, hands that sample out as the last one
// instead of reading one of its own. A sample taken after it (a boundary,
// a phase ended by Finish's caller, an interval) makes it stale: Finish
// then reads the last sample anew, after that one, as it does without
// ReadAhead. The sample is handed to no sink and no function before
// Finish. ReadAhead does nothing before Start, after Finish, or while
// boundaries wait for a sample.
func (s *Sampler) ReadAhead() {
	s.mu.Lock()
	running := s.running && !s.stopped
	s.mu.Unlock()
	if !running {
		return
	}
	poke(s.ahead)
}

// poke asks the sampling goroutine for what ch stands for, without
// waiting: a request already there stands for this one too.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// waiting reports whether boundary functions wait for a sample.
func (s *Sampler) waiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) > 0
}

// readAhead reads the sample ReadAhead asked for into cur, unless samples
// are due first: boundaries waiting, which are served by the next take.
// The caller holds readMu.
func (s *Sampler) readAhead() {
	if s.waiting() {
		return
	}
	s.read(ReasonEnd, s.opts.Now(), nil)
	s.aheadRead = true
}

// Stop takes the last sample and stops the sampling goroutine: it is
// Finish(nil).
func (s *Sampler) Stop() { s.Finish(nil) }

// Finish stops sampling: in the caller's goroutine, it gives the boundaries
// still waiting a sample of their own (ReasonBoundary: each phase ended
// before has its row), then takes the last sample (ReasonEnd), hands it to
// the sinks and then to last (when not nil), and stops the sampling
// goroutine. It returns when all that is done. A caller that needs the last
// sample passes last rather than asking for a boundary just before: one
// sample then serves both. Before Start, the waiting functions and last get
// the last sample read (the zero Sample when none was); after a first
// Finish, last gets that Finish's last sample. The last sample is the one
// ReadAhead had read when no sample was taken after it.
func (s *Sampler) Finish(last func(*Sample)) {
	s.mu.Lock()
	already := s.stopped
	running := s.running && !already
	s.stopped = true
	s.mu.Unlock()
	if !running {
		s.Serve()
		if last != nil {
			s.readMu.Lock()
			last(&s.cur)
			s.readMu.Unlock()
		}
		if !already {
			s.warnings.Flush()
		}
		return
	}
	close(s.stop)
	s.readMu.Lock()
	if s.waiting() {
		s.take(ReasonBoundary)
	}
	s.takeLast()
	if last != nil {
		last(&s.cur)
	}
	s.readMu.Unlock()
	<-s.done
	<-s.laterDone
	s.warnings.Flush()
}

// loop takes the first sample when first is set (StartAside), then the
// interval samples and those queued by Serve until Finish, which takes the
// last ones itself.
func (s *Sampler) loop(first bool) {
	defer close(s.done)
	if first {
		s.takeFirst()
	}
	var tick <-chan time.Time
	if s.opts.Interval > 0 {
		t := time.NewTicker(s.opts.Interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		var reason Reason
		ahead := false
		select {
		case <-tick:
			reason = ReasonInterval
		case <-s.wake:
			reason = ReasonBoundary
		case <-s.ahead:
			ahead = true
		case <-s.stop:
			return
		}
		s.readMu.Lock()
		s.mu.Lock()
		stopped := s.stopped
		s.mu.Unlock()
		if stopped {
			// Finish takes the samples still due.
			s.readMu.Unlock()
			return
		}
		if ahead {
			s.readAhead()
		} else {
			s.take(reason)
		}
		s.readMu.Unlock()
	}
}

// take reads one sample, hands it to the sinks, then to the boundary
// functions that were waiting when the read began. The caller holds readMu.
func (s *Sampler) take(reason Reason) {
	now := s.opts.Now()
	fns, reads := s.takePending(now)
	if len(fns) > 0 && reason == ReasonInterval {
		reason = ReasonBoundary
	}
	s.read(reason, now, reads)
	s.give(fns)
	s.mu.Lock()
	s.spare = fns[:0]
	s.mu.Unlock()
}

// takePending takes the boundary functions waiting, and their waiters'
// channels, for a sample taken now.
func (s *Sampler) takePending(now time.Time) (fns []func(*Sample), reads []chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fns, reads = s.pending, s.reads
	s.pending, s.reads = s.spare[:0], nil
	s.lastTake = now
	if len(fns) > 0 {
		close(s.taken)
		s.taken = make(chan struct{})
	}
	return fns, reads
}

// read reads one sample into cur, and releases the waiters in reads once
// its job's figures are read. The caller holds readMu.
func (s *Sampler) read(reason Reason, now time.Time, reads []chan struct{}) {
	s.aheadRead = false
	s.cur.Time = now
	s.cur.Reason = reason
	var err error
	if s.jobFirst != nil {
		err = s.jobFirst.ReadJob(&s.cur)
		release(reads)
		err = errors.Join(err, s.jobFirst.ReadHost(&s.cur))
	} else {
		err = s.src.Read(&s.cur)
		release(reads)
	}
	if err != nil {
		s.warn(err)
	}
}

// give hands cur to the sinks, then to fns. The caller holds readMu.
func (s *Sampler) give(fns []func(*Sample)) {
	for _, k := range s.opts.Sinks {
		k.Sample(&s.cur)
	}
	for i, fn := range fns {
		fn(&s.cur)
		fns[i] = nil
	}
}

// takeLast takes the last sample: the one ReadAhead read, when no sample
// was taken since and no boundary waits (a boundary gets a sample read
// after it was asked for), else one read now. The caller holds readMu.
func (s *Sampler) takeLast() {
	if s.aheadRead {
		s.mu.Lock()
		waiting := len(s.pending) > 0
		if !waiting {
			s.lastTake = s.cur.Time
		}
		s.mu.Unlock()
		if !waiting {
			s.aheadRead = false
			s.cur.Reason = ReasonEnd
			s.give(nil)
			return
		}
	}
	s.take(ReasonEnd)
}

func (s *Sampler) warn(err error) {
	if s.opts.Warn == nil {
		return
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		msg := e.Error()
		s.warnings.WarnKey(msg, msg)
	}
}
