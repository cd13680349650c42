package guard

import (
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// Options configure Start.
type Options struct {
	// Stderr is where the guard writes its line when it had to act; nil
	// for nowhere.
	Stderr *os.File
}

// Guard is jobtrace's side of the guard process. Its methods tell the
// guard about the job; a nil *Guard does nothing, so callers need not
// check whether there is one.
type Guard struct {
	mu      sync.Mutex
	w       *os.File // the pipe's write end; nil once released or failed
	spawned chan struct{}
	proc    *os.Process
	pid     atomic.Int64
	err     error
}

// Wait waits until the guard process has been started and returns why it
// could not be, if so. Call it before starting the job, so that the job
// never runs unguarded.
func (g *Guard) Wait() error {
	if g == nil {
		return nil
	}
	<-g.spawned
	return g.err
}

// IsGuard reports whether pid is the guard process: a child of jobtrace
// that is not the job's.
func (g *Guard) IsGuard(pid int) bool {
	return g != nil && pid > 0 && int64(pid) == g.pid.Load()
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
	if g.w != nil {
		// A few hundred bytes into an empty pipe: never blocks. If the
		// guard is gone the write fails with EPIPE, and there is nothing
		// to do about it.
		_, _ = g.w.Write(appendMsg(nil, kind, value))
	}
}

// Release tells the guard that jobtrace is done with the job: the guard
// exits without doing anything.
func (g *Guard) Release() {
	if g == nil {
		return
	}
	g.mu.Lock()
	if g.w != nil {
		_, _ = g.w.Write(appendMsg(nil, msgRelease, ""))
		g.w.Close()
		g.w = nil
	}
	g.mu.Unlock()
	go func() {
		<-g.spawned
		if g.proc != nil {
			// Reap it, so it does not linger as a zombie of a
			// long-lived caller.
			_, _ = g.proc.Wait()
		}
	}()
}
