package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// Exit codes jobtrace gives, as a POSIX shell does.
const (
	ExitNotExecutable = 126
	ExitNotFound      = 127
	// ExitSignalBase is added to the number of the signal that killed the job.
	ExitSignalBase = 128
)

// PipeDrainTimeout is how long jobtrace keeps forwarding output after the
// job's main process has exited, while processes it left behind still hold
// its stdout or stderr open. A shell pipeline would wait for them forever;
// jobtrace waits this long so the job's result is not held up by a stray
// daemon, and says so when it stops forwarding.
const PipeDrainTimeout = 2 * time.Second

// copyBufferSize is the read size of the output passthrough: large enough
// that a fast writer costs few system calls (see also growPipe).
const copyBufferSize = 256 << 10

// TapQueueBytes bounds the output of one stream waiting for the marker
// scanner: the copy appends what it reads to a queue of this size, and the
// scanner takes the whole queue at once whenever it is free, so a burst of
// small writes costs no more room than its bytes. While the scanner works on
// one queue's worth, the next fills; output that comes while both are full
// is passed through and not scanned (see Tap). What is held is the copy's
// read buffer and two queues: 2.25 MiB per stream.
const TapQueueBytes = 1 << 20

// maxTapSegs bounds the read times a queue keeps (one per read, so that each
// marker is stamped with the time its own bytes were read); past it, the
// bytes of later reads are stamped with the time of the last one kept.
const maxTapSegs = 1024

// Tap is a scanner of the job's output that the copy never waits for. Each
// chunk is given to WriteRead with the time it was read, once it has been
// written to jobtrace's stdout or stderr. When the scanner is TapQueueBytes
// behind, with as much again queued, the next chunks go by unscanned and are
// given to Skip
// instead: n bytes, holding lines newlines, the last of them a newline if
// endsLine. These calls are made from one goroutine. Stop, called from
// another when the tap has not caught up TapDrainTimeout after the job's
// output ended, makes it skip the rest, counted as Skip counts it.
type Tap interface {
	WriteRead(p []byte, read time.Time)
	Skip(n, lines int64, endsLine bool)
	Stop()
}

// TapDrainTimeout bounds how long the end of the job waits for the taps to
// scan what they are behind with once the job's output has ended. A tap
// keeps up with ordinary output and has nothing left; after a flood of
// markers it may have TapQueueBytes of them left, whose spans take
// seconds when the tracker is slowed down by the spool. What is left then
// is not scanned, and counted.
const TapDrainTimeout = time.Second

var errNoCommand = errors.New("no command given")

// Options describe the process to supervise.
type Options struct {
	Args []string
	Env  []string
	// BaseEnv, when set, is Env without the variables jobtrace added to
	// it (its trace context, socket, marker dir, PATH's addition): the
	// job is started with it when Env is too large for the system (E2BIG:
	// the environment near ARG_MAX, PATH near the longest string a
	// program is given), with a warning, as it would have run without
	// jobtrace.
	BaseEnv []string
	Dir     string
	// Stdin, Stdout and Stderr are jobtrace's own standard files. The job
	// reads Stdin directly; its output passes through jobtrace to Stdout
	// and Stderr, byte for byte. When Stdout is a terminal the job gets a
	// pseudo-terminal, so it behaves as it would on that terminal. When
	// jobtrace runs in the foreground of a terminal, that pseudo-terminal
	// is the job's controlling terminal (its /dev/tty), what is typed on
	// jobtrace's terminal is passed to it, and it is the job's stdin where
	// Stdin is that terminal; with Stdout not a terminal, the job is given
	// one all the same for its stdin (openInputPTY).
	Stdin, Stdout, Stderr *os.File
	// OutStdout and OutStderr, when set, see a copy of every chunk of the
	// job's output after it was written to Stdout or Stderr. A Tap sees
	// what it can keep up with; any other writer is waited for.
	OutStdout, OutStderr io.Writer
	// WriteStdout and WriteStderr, when set, are where the job's output is
	// written instead of Stdout and Stderr (a gate that keeps jobtrace's
	// messages out of the job's lines).
	WriteStdout, WriteStderr io.Writer
	// GracePeriod is the time between a forwarded signal and SIGKILL to the
	// job's process group.
	GracePeriod time.Duration
	Warn        func(string)
	// CgroupFD, when positive, is an open cgroup v2 directory the job is
	// started in (Linux).
	CgroupFD int
	// BeforeFork, when set, is called once the program has been found and
	// the job's output set up, right before the job is forked: what must
	// come before the job (its first sample) is waited for there, while the
	// rest of the start was made beside it.
	BeforeFork func()
	// Direct gives the job Stdout and Stderr themselves: no pipe, no
	// pseudo-terminal, no copy, and OutStdout, OutStderr, WriteStdout and
	// WriteStderr are not used. It is how a job is run when jobtrace could
	// not set its output up (RetryDirect).
	Direct bool
	// OnExit, when set, is called as soon as the job has been reaped, before
	// its output is drained, with the resources the system reported for it
	// (the zero ExitUsage when it reported none).
	OnExit func(hostmetrics.ExitUsage)
}

// Job is a started job.
type Job struct {
	opts Options
	path string // the program, found as a shell finds it
	// stdout and stderr are the job's ends of its output: the write end of
	// a pipe, or a pseudo-terminal (the same file when both go to one).
	stdout, stderr *os.File
	// stdin, when set, is the job's pseudo-terminal, given as its stdin in
	// place of Options.Stdin, jobtrace's terminal, whose keys it is passed.
	stdin *os.File
	pid   int // the job's process id, once started

	copies  sync.WaitGroup // the copies of the output streams
	taps    sync.WaitGroup // their taps
	readers []*os.File
	// abandoned is set when Wait stops waiting for output after
	// PipeDrainTimeout; tapMu orders it with the scanners' writes, so no
	// scanner is written to once Wait has returned.
	abandoned atomic.Bool
	tapMu     sync.Mutex
	// tapsLate is set when the taps had not caught up TapDrainTimeout
	// after the output ended: they skip the rest.
	tapsLate atomic.Bool
	// streams count, per output stream with a tap, the bytes read from the
	// job and the bytes the tap has seen, for SyncOutput.
	streams []*stream
	closers []io.Closer // our copies of the child's ends, closed after start
	plat    platformJob
	// cgroupErr is why the job could not be started in Options.CgroupFD
	// (it was started without it).
	cgroupErr error
	// lostBytes counts the job's output that could not be written to
	// jobtrace's stdout or stderr (a full disk, /dev/full).
	lostBytes atomic.Uint64
}

// resolve finds the program as a shell would, and maps failures to the
// shell's exit codes.
func resolve(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err == nil || errors.Is(err, exec.ErrDot) {
		return p, nil
	}
	return "", lookPathFailed(name, err)
}

// Start starts the job. The returned error is a *StartError for a
// program that cannot be run.
func Start(o Options) (*Job, error) {
	if len(o.Args) == 0 {
		return nil, &StartError{ExitNotFound, errNoCommand}
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	SurviveBrokenOutput()
	path, err := resolve(o.Args[0])
	if err != nil {
		return nil, err
	}
	j := &Job{opts: o, path: path}
	if err := j.setupOutput(); err != nil {
		j.closeAll()
		return nil, fmt.Errorf("output: %w", err)
	}
	if o.BeforeFork != nil {
		o.BeforeFork()
	}
	err = j.start()
	if errors.Is(err, syscall.E2BIG) && o.BaseEnv != nil {
		o.Warn(fmt.Sprintf("%s: %v with the variables jobtrace adds to its environment: started without them, so its markers and steps cannot reach jobtrace",
			o.Args[0], errText(err)))
		j.opts.Env = o.BaseEnv
		err = j.start()
	}
	if err != nil {
		j.closeAll()
		return nil, execFailed(o.Args[0], err)
	}
	for _, c := range j.closers {
		c.Close()
	}
	j.closers = nil
	return j, nil
}

// closeAll undoes what Start did for a job that could not be started: it
// closes the child's ends and ours, stops watching the terminal's size, and
// waits for the copies of the output and their taps to end.
func (j *Job) closeAll() {
	for _, c := range j.closers {
		c.Close()
	}
	for _, r := range j.readers {
		r.Close()
	}
	j.plat.close()
	j.copies.Wait()
	j.taps.Wait()
}

// SameFile reports whether a and b are the same open file (for example both
// redirected to one log), in which case the job gets one pipe for both
// streams so their interleaving is kept exactly.
func SameFile(a, b *os.File) bool {
	if a == nil || b == nil {
		return false
	}
	sa, err1 := a.Stat()
	sb, err2 := b.Stat()
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// setupOutput gives the job its stdout and stderr: a pseudo-terminal where
// jobtrace's own is a terminal, a pipe otherwise, one shared pipe where both
// go to the same file.
func (j *Job) setupOutput() error {
	o := j.opts
	if o.Stdout == nil || o.Stderr == nil {
		return errors.New("stdout and stderr are required")
	}
	if o.Direct {
		j.stdout, j.stderr = o.Stdout, o.Stderr
		return nil
	}
	if isTerminal(o.Stdout) {
		tty, err := j.openPTY()
		if err == nil {
			j.stdout = tty
			if isTerminal(o.Stderr) {
				j.stderr = tty
				return nil
			}
			return j.pipe("stderr", &j.stderr, j.errW(), o.OutStderr)
		}
		o.Warn("no pseudo-terminal for the job (" + err.Error() + "): its output goes through a pipe")
	}
	j.openInputPTY()
	if SameFile(o.Stdout, o.Stderr) {
		if err := j.pipe("stdout and stderr", &j.stdout, j.outW(), o.OutStdout); err != nil {
			return err
		}
		j.stderr = j.stdout
		return nil
	}
	if err := j.pipe("stdout", &j.stdout, j.outW(), o.OutStdout); err != nil {
		return err
	}
	return j.pipe("stderr", &j.stderr, j.errW(), o.OutStderr)
}

// stdinFile is the job's stdin.
func (j *Job) stdinFile() *os.File {
	if j.stdin != nil {
		return j.stdin
	}
	return j.opts.Stdin
}

func (j *Job) outW() io.Writer {
	if j.opts.WriteStdout != nil {
		return j.opts.WriteStdout
	}
	return j.opts.Stdout
}

func (j *Job) errW() io.Writer {
	if j.opts.WriteStderr != nil {
		return j.opts.WriteStderr
	}
	return j.opts.Stderr
}

func (j *Job) pipe(name string, child **os.File, dst io.Writer, tap io.Writer) error {
	r, w, err := newPipe()
	if err != nil {
		return err
	}
	*child = w
	j.closers = append(j.closers, w)
	j.readers = append(j.readers, r)
	st := j.newStream(r, tap)
	j.copies.Add(1)
	go j.copy(name, r, dst, st, false)
	return nil
}

// copy forwards the job's output stream name from r to dst, then queues it
// for the stream's tap. When the reader of dst has gone away (a closed pipe
// or socket, a terminal that hung up), r is closed too, so the job sees the
// same broken pipe or hang-up on its next write that it would have seen
// without jobtrace. Any other failure to write (a full disk, /dev/full)
// drops that chunk, counted in OutputLost, and the next chunks are tried
// again, as each of the job's own writes would have been.
//
// The tap runs in a goroutine of its own, behind the copy, so scanning
// overlaps with copying instead of adding to it. A Tap is never waited for:
// when its queue is full, what is read meanwhile is copied and not scanned,
// and the tap is told what it missed. Another writer is waited for, which
// bounds the memory held as well.
func (j *Job) copy(name string, r *os.File, dst io.Writer, st *stream, isPTY bool) {
	defer j.copies.Done()
	buf := make([]byte, copyBufferSize)
	var q *tapQueue
	if st != nil {
		q = newTapQueue()
		j.taps.Add(1)
		go j.runTap(st, q)
		defer q.close()
	}
	failing := false // the last write to dst failed (and was warned about)
	for {
		counted := st != nil && waitReadable(r)
		if counted {
			st.gen.Add(1)
		}
		n, err := r.Read(buf)
		var read time.Time
		if n > 0 && st != nil {
			read = time.Now()
			st.read.Add(int64(n))
		}
		if counted {
			st.gen.Add(1)
		}
		if j.abandoned.Load() {
			return
		}
		if n > 0 {
			w, werr := writeOut(dst, buf[:n])
			switch {
			case werr == nil:
				failing = false
			case readerGone(werr, isPTY):
				// The job gets the broken pipe (or, on a terminal,
				// the hang-up) on its next write, as it would have
				// without jobtrace.
				j.opts.Warn(fmt.Sprintf("writing the job's %s: %v: the job's %s is closed, as it would be without jobtrace",
					name, errText(werr), name))
				r.Close()
				if st != nil {
					q.put(buf[:n], read, st)
				}
				return
			default:
				j.lostBytes.Add(uint64(n - w))
				if !failing {
					j.opts.Warn(fmt.Sprintf("writing the job's %s: %v: its output is dropped until writes succeed again (counted)",
						name, errText(werr)))
				}
				failing = true
			}
			if st != nil {
				q.put(buf[:n], read, st)
			}
		}
		if err != nil {
			// io.EOF for a pipe; EIO on a pseudo-terminal whose other
			// side is closed.
			return
		}
	}
}

// tapQueue is the output of one stream waiting for its tap: the copy
// appends, the tap's goroutine takes all of it at once.
type tapQueue struct {
	mu     sync.Mutex
	before tapGap   // went by unscanned before b
	b      []byte   // read, not yet taken; at most TapQueueBytes, grown as needed
	segs   []tapSeg // when each part of b was read
	after  tapGap   // went by unscanned after b, which was full
	closed bool     // the copy has ended
	// ready holds a token when there is something to take or the copy
	// has ended; space when the tap has taken the queue.
	ready, space chan struct{}
}

// tapSeg is the part of a queue up to end, read at read.
type tapSeg struct {
	end  int
	read time.Time
}

func newTapQueue() *tapQueue {
	return &tapQueue{
		ready: make(chan struct{}, 1),
		space: make(chan struct{}, 1),
	}
}

func signal1(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// put queues p, read at read. For a Tap it never waits: when the queue is
// full, p goes by unscanned, counted in st.skipped. Another writer sees
// every byte: put waits for room.
func (q *tapQueue) put(p []byte, read time.Time, st *stream) {
	q.mu.Lock()
	for st.skip == nil && len(q.b)+len(p) > TapQueueBytes {
		q.mu.Unlock()
		<-q.space
		q.mu.Lock()
	}
	if q.after.n == 0 && len(q.b)+len(p) <= TapQueueBytes {
		q.b = appendBounded(q.b, p, TapQueueBytes)
		if k := len(q.segs); k > 0 && (k >= maxTapSegs || q.segs[k-1].read.Equal(read)) {
			q.segs[k-1].end = len(q.b)
		} else {
			q.segs = append(q.segs, tapSeg{end: len(q.b), read: read})
		}
	} else {
		q.after.add(p)
		st.skipped.Add(int64(len(p)))
	}
	q.mu.Unlock()
	signal1(q.ready)
}

func (q *tapQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	signal1(q.ready)
}

// take swaps the queue's content for the empty buffers given, and returns
// it with whether the copy has ended.
func (q *tapQueue) take(b []byte, segs []tapSeg) (before tapGap, out []byte, outSegs []tapSeg, after tapGap, closed bool) {
	q.mu.Lock()
	before, out, outSegs, after, closed = q.before, q.b, q.segs, q.after, q.closed
	q.before, q.after = tapGap{}, tapGap{}
	q.b, q.segs = b[:0], segs[:0]
	q.mu.Unlock()
	signal1(q.space)
	return
}

// appendBounded appends p to b, growing b to at most limit bytes, which
// len(b)+len(p) must not exceed. The queue's buffers start empty and grow
// with the output: a job that prints little holds little, and a run does
// not start with its bounds allocated.
func appendBounded(b, p []byte, limit int) []byte {
	if need := len(b) + len(p); need > cap(b) {
		nb := make([]byte, len(b), min(max(need, 2*cap(b), 4<<10), limit))
		copy(nb, b)
		b = nb
	}
	return append(b, p...)
}

// tapGap is output that went by unscanned.
type tapGap struct {
	n, lines int64
	endsLine bool
}

func (g *tapGap) add(p []byte) {
	g.n += int64(len(p))
	g.lines += int64(bytes.Count(p, []byte{'\n'}))
	g.endsLine = p[len(p)-1] == '\n'
}

// runTap gives what the copy queues to the stream's tap, in order, until
// the copy has ended and nothing is left. Once Wait has abandoned the
// output, the tap is not called any more.
func (j *Job) runTap(st *stream, q *tapQueue) {
	defer j.taps.Done()
	var spare []byte
	var spareSegs []tapSeg
	for {
		<-q.ready
		before, b, segs, after, closed := q.take(spare, spareSegs)
		if before.n > 0 || len(b) > 0 || after.n > 0 {
			j.tapMu.Lock()
			if !j.abandoned.Load() {
				j.feedTap(st, before, b, segs, after)
			}
			j.tapMu.Unlock()
			st.scanned.Add(int64(len(b)))
		}
		spare, spareSegs = b, segs
		if closed {
			return
		}
	}
}

// feedTap gives the tap one queue's worth: the gap before, the bytes with
// the time each part was read, the gap after.
func (j *Job) feedTap(st *stream, before tapGap, b []byte, segs []tapSeg, after tapGap) {
	if st.skip == nil {
		st.tap.Write(b)
		return
	}
	if before.n > 0 {
		st.skip.Skip(before.n, before.lines, before.endsLine)
	}
	if len(b) > 0 && j.tapsLate.Load() {
		var g tapGap
		g.add(b)
		st.skip.Skip(g.n, g.lines, g.endsLine)
	} else {
		start := 0
		for _, sg := range segs {
			st.skip.WriteRead(b[start:sg.end], sg.read)
			start = sg.end
		}
	}
	if after.n > 0 {
		st.skip.Skip(after.n, after.lines, after.endsLine)
	}
}

// stream is one output stream that has a tap.
type stream struct {
	r    *os.File
	tap  io.Writer
	skip Tap // tap as a Tap, or nil
	// read counts the bytes read from the job, scanned those the tap has
	// seen, skipped those it has not and will not.
	read, scanned, skipped atomic.Int64
	// gen is odd while a read is taking bytes out of the pipe and has not
	// added them to read yet (see target).
	gen atomic.Uint64
}

// newStream registers r for SyncOutput; nil when there is no tap. Streams
// are registered before the job starts.
func (j *Job) newStream(r *os.File, tap io.Writer) *stream {
	if tap == nil {
		return nil
	}
	st := &stream{r: r, tap: tap}
	st.skip, _ = tap.(Tap)
	j.streams = append(j.streams, st)
	return st
}

// SyncOutput waits, at most timeout, until the taps have seen (or skipped)
// every byte the job had written to its output when SyncOutput was called,
// including bytes still in the pipes. A client that prints a marker line and
// then talks to the socket gets its socket message handled after the
// marker. It reports whether it got there in time.
func (j *Job) SyncOutput(timeout time.Duration) bool {
	if j == nil {
		return true
	}
	deadline := time.Now().Add(timeout)
	for _, st := range j.streams {
		target, ok := st.target(deadline)
		for st.scanned.Load()+st.skipped.Load() < target {
			if j.abandoned.Load() {
				break
			}
			if !time.Now().Before(deadline) {
				return false
			}
			time.Sleep(syncPause)
		}
		if !ok {
			return false
		}
	}
	return true
}

// target is how many bytes of the stream had been written by the job: read
// by the copy, or waiting in the pipe. Where the copy can wait for the pipe
// to be readable before it reads (waitReadable), the figure is exact: gen
// is odd while a read that takes bytes from the pipe has not counted them
// yet. Elsewhere a read in progress may hold bytes that are in neither
// count; ok is false when the deadline passed first.
func (st *stream) target(deadline time.Time) (n int64, ok bool) {
	for {
		g := st.gen.Load()
		if g%2 == 0 {
			n := st.read.Load() + pendingBytes(st.r)
			if st.gen.Load() == g {
				return n, true
			}
		}
		if !time.Now().Before(deadline) {
			return st.read.Load(), false
		}
		runtime.Gosched()
	}
}

// syncPause is how long SyncOutput sleeps while the tap has not caught up.
const syncPause = 20 * time.Microsecond

// Wait waits for the job to exit and for its output to be forwarded, and
// returns its exit code as a shell reports it: the exit status, or 128+N
// for a job killed by signal N.
func (j *Job) Wait() int {
	code, usage := j.wait()
	j.plat.jobEnded()
	if j.opts.OnExit != nil {
		j.opts.OnExit(usage)
	}
	drained := make(chan struct{})
	go func() { j.copies.Wait(); close(drained) }()
	select {
	case <-drained:
		j.waitTaps()
	case <-time.After(PipeDrainTimeout):
		j.opts.Warn(fmt.Sprintf("processes left behind by the job still hold its output open after %v: their output is no longer forwarded", PipeDrainTimeout))
		// A blocking read cannot be interrupted: the copies are left to
		// end when those processes close their output, or with jobtrace,
		// and write nothing more.
		j.tapMu.Lock()
		j.abandoned.Store(true)
		j.tapMu.Unlock()
	}
	for _, r := range j.readers {
		r.Close()
	}
	j.plat.close()
	return code
}

// waitTaps waits until the taps have scanned what they were behind with,
// at most TapDrainTimeout; then it stops them, and waits for them to count
// the rest. A tap that is not a Tap is waited for.
func (j *Job) waitTaps() {
	done := make(chan struct{})
	go func() { j.taps.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(TapDrainTimeout):
	}
	j.tapsLate.Store(true)
	for _, st := range j.streams {
		if st.skip != nil {
			st.skip.Stop()
		}
	}
	<-done
}

// ExitCode is the exit code of a process as a shell reports it: 128+N for
// one killed by signal N; when it was not waited for (ps is nil) because
// of err, the code of a command that could not be started (StartCode).
func ExitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			code, _ := StartCode(err)
			return code
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		return exitCode(ws)
	}
	return ps.ExitCode()
}

// exitCode is the exit code of a process that ended with ws, as a shell
// reports it.
func exitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return ExitSignalBase + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// OutputLost is how many bytes of the job's output could not be written
// to jobtrace's stdout or stderr for another reason than a reader that went
// away (a full disk, an I/O error), and were dropped.
func (j *Job) OutputLost() uint64 { return j.lostBytes.Load() }

// Pid is the job's process id.
func (j *Job) Pid() int { return j.pid }

// CgroupErr returns why the job could not be started in the cgroup of
// Options.CgroupFD, or nil when it was (or none was asked for).
func (j *Job) CgroupErr() error { return j.cgroupErr }
