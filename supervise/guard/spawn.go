package guard

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Delay is how long a job runs before its guard is started. A job that
// ends sooner (`jobtrace run -- true`) costs nothing for it: starting the
// guard takes a few milliseconds of CPU (exec of the binary, the Go
// runtime's start), which a short job would otherwise pay on a busy
// machine. If jobtrace is killed within Delay of the job's start, the
// job's first process still dies with it (parent-death signal), a cgroup
// of the job's own is ended by the next run (see the agent's stale-run
// clean-up), and other processes the job started in that time live on.
const Delay = 50 * time.Millisecond

// Options configure Start.
type Options struct {
	// Stderr is where the guard writes its line when it had to act; nil
	// for nowhere.
	Stderr *os.File
	// Warn receives one line when the guard cannot be started.
	Warn func(string)
}

// Guard is jobtrace's side of the guard process. Its methods tell the
// guard about the job; a nil *Guard does nothing, so callers need not
// check whether there is one. Close ends what it started.
type Guard struct {
	opts Options

	// arming counts the start of the guard process that Arm's timer will
	// run or is running; Close waits for it.
	arming sync.WaitGroup

	mu sync.Mutex
	// pending holds the messages told before the guard process is
	// started; they go into its pipe, w, when it is. A job that ends
	// within Delay costs no pipe and no system call.
	pending  []byte
	w        *os.File // the pipe to the guard process, once started
	timer    *time.Timer
	started  bool // the guard process was started, or tried to be
	released bool

	// spawning is held while the guard process is being started, so that
	// IsGuard never answers while the new child exists but its pid is not
	// known yet.
	spawning sync.RWMutex
	proc     *os.Process
	pid      atomic.Int64

	orphans map[int]uint64 // told to the guard, by pid: start time
	// overflow counts the orphans not told past MaxOrphans (one seen at
	// several walks of the tree counts at each).
	overflow int
}

// MaxOrphans bounds how many orphans of the job Orphan passes on to the
// guard: their lines stay well within a pipe's buffer (64 KiB), which the
// guard empties as they come, so writing them never blocks jobtrace. The
// orphans past it are found by the guard only through the job's session,
// process group and environment.
const MaxOrphans = 1024

// Orphan tells the guard about a process of the job that re-parented to
// jobtrace (a child subreaper) when its parent exited: it is killed with
// the job even if it left the job's session and environment. The start
// time (clock ticks after boot) tells it from a later process with the
// same pid. Orphans are told once each, at most MaxOrphans.
func (g *Guard) Orphan(pid int, start uint64) {
	if g == nil || pid <= 1 {
		return
	}
	g.mu.Lock()
	if g.orphans == nil {
		g.orphans = map[int]uint64{}
	}
	if s, ok := g.orphans[pid]; ok && s == start {
		g.mu.Unlock()
		return
	}
	if len(g.orphans) >= MaxOrphans {
		g.overflow++
		first := g.overflow == 1
		g.mu.Unlock()
		if first && g.opts.Warn != nil {
			g.opts.Warn(fmt.Sprintf("more than %d orphans of the job: if jobtrace is killed, its guard finds the others only by the job's session, process group and environment", MaxOrphans))
		}
		return
	}
	g.orphans[pid] = start
	g.mu.Unlock()
	g.send(msgOrphan, strconv.Itoa(pid)+" "+strconv.FormatUint(start, 10))
}

// IsGuard reports whether pid is the guard process: a child of jobtrace
// that is not the job's.
func (g *Guard) IsGuard(pid int) bool {
	if g == nil || pid <= 0 {
		return false
	}
	g.spawning.RLock()
	defer g.spawning.RUnlock()
	return int64(pid) == g.pid.Load()
}

// Arm starts the guard process after delay, unless Disarm or Release come
// first. Call it once the job has started.
func (g *Guard) Arm(delay time.Duration) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.started && g.timer == nil && !g.released {
		g.arming.Add(1)
		g.timer = time.AfterFunc(delay, func() {
			defer g.arming.Done()
			g.spawn()
		})
	}
}

// stopTimer stops Arm's timer if it has not fired yet. Called with g.mu
// held.
func (g *Guard) stopTimer() {
	if g.timer != nil && g.timer.Stop() {
		g.arming.Done()
	}
}

// Disarm cancels a guard process that has not been started yet: the job
// has ended, jobtrace ends what it left.
func (g *Guard) Disarm() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopTimer()
}

// Job tells the guard the job's pid, which is also its process group and
// session.
func (g *Guard) Job(pid int) { g.send(msgJob, strconv.Itoa(pid)) }

// Cgroup tells the guard the job's cgroup directory.
func (g *Guard) Cgroup(dir string) { g.send(msgCgroup, dir) }

// Dir tells the guard a directory to remove: the job's private directory.
func (g *Guard) Dir(path string) { g.send(msgDir, path) }

// Env tells the guard environment entries (KEY=VALUE) that only the job's
// processes have.
func (g *Guard) Env(kvs ...string) {
	for _, kv := range kvs {
		g.send(msgEnv, kv)
	}
}

func (g *Guard) send(kind, value string) {
	if g == nil || value == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.w != nil:
		// A few hundred bytes into a pipe's 64 KiB: never blocks. If the
		// guard is gone the write fails with EPIPE, and there is nothing
		// to do about it.
		_, _ = g.w.Write(appendMsg(nil, kind, value))
	case !g.started && !g.released:
		g.pending = appendMsg(g.pending, kind, value)
	}
}

// Release tells the guard that jobtrace is done with the job: a guard
// process that runs exits without doing anything, and none is started.
// It does not wait: Close does.
func (g *Guard) Release() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.released = true
	g.stopTimer()
	g.pending = nil
	if g.w != nil {
		_, _ = g.w.Write(appendMsg(nil, msgRelease, ""))
		g.w.Close()
		g.w = nil
	}
}

// Close releases the guard (Release) and waits for what it started: a
// start of the guard process under way, and the guard process itself,
// which exits once released and is reaped here, so that it does not
// linger as a zombie of a long-lived caller. Nothing the Guard started
// runs when Close returns. Released early (when the job's cgroup and
// private directory are gone), the guard process has mostly exited by the
// time Close is called at the end of the run.
func (g *Guard) Close() {
	if g == nil {
		return
	}
	g.Release()
	g.arming.Wait()
	g.spawning.Lock()
	p := g.proc
	g.proc = nil
	g.spawning.Unlock()
	if p != nil {
		_, _ = p.Wait()
	}
}

// openPipe makes the pipe to the guard process being started, with the
// messages told so far in it, and returns its read end; nil when the guard
// was released meanwhile, or the pipe cannot be made (err).
func (g *Guard) openPipe() (*os.File, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.released || g.started {
		return nil, nil
	}
	g.started = true
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// Within a pipe's 64 KiB (MaxOrphans bounds the longest part), so the
	// write does not wait for the guard to read.
	if _, err := w.Write(g.pending); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	g.pending, g.w = nil, w
	return r, nil
}

// failed drops the pipe after the guard process could not be started.
func (g *Guard) failed(err error) {
	g.mu.Lock()
	if g.w != nil {
		g.w.Close()
		g.w = nil
	}
	g.mu.Unlock()
	if g.opts.Warn != nil {
		g.opts.Warn("no guard process (" + err.Error() + "): if jobtrace is killed, processes the job started may outlive it")
	}
}
