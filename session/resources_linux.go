package session

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/hostmetrics/cgroup"
	"github.com/jobtrace/jobtrace/internal/cgrouptree"
)

// subreaperSupported: Linux has PR_SET_CHILD_SUBREAPER.
const subreaperSupported = true

// CgroupRemoveWait is how long jobtrace waits, at the end of the job, for
// the processes the job left in its cgroup to exit by themselves before it
// kills them so the cgroup can be removed.
const CgroupRemoveWait = 100 * time.Millisecond

// CgroupKillWait bounds how long jobtrace waits, once it has killed them,
// for the processes left in the job's cgroup to leave it.
const CgroupKillWait = 2 * time.Second

// jobCgroup is the cgroup made for the job, and a descriptor of its
// directory to start the job in.
type jobCgroup struct {
	g  *cgroup.Group
	fd int
}

// setupCgroup makes a cgroup for the job below the one jobtrace is in,
// when makeOwn says the session has a child to put there. It returns the
// directory to read (the new cgroup, else jobtrace's own, else ""), the new
// cgroup if there is one, and a note on what it found.
func setupCgroup(procRoot string, log Logger, makeOwn bool) (dir string, own *jobCgroup, note string) {
	m, selfDir, err := cgroup.FindSelf(procRoot)
	if err != nil {
		return "", nil, "no cgroup v2: " + err.Error()
	}
	if !makeOwn {
		return selfDir, nil, "reading jobtrace's own cgroup " + selfDir + ": the job's steps are not jobtrace's children"
	}
	parent := strings.TrimPrefix(selfDir, m.Point)
	for _, msg := range sweepCgroups(selfDir) {
		log.Printf("%s", msg)
	}
	g, err := cgroup.Create(m.Point, parent, fmt.Sprintf("%s%d", runPrefix, os.Getpid()))
	if err != nil {
		return selfDir, nil, "reading jobtrace's own cgroup " + selfDir + ": no cgroup of the job's own (" + err.Error() + ")"
	}
	fd, err := unix.Open(g.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		g.Remove(0)
		return selfDir, nil, "reading jobtrace's own cgroup " + selfDir + ": " + err.Error()
	}
	// The lock says the cgroup's run is alive (see sweepCgroups); the
	// kernel drops it when jobtrace ends, however it ends.
	_ = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	what := "job cgroup " + g.Dir
	if len(g.Controllers) > 0 {
		what += " (" + strings.Join(g.Controllers, " ") + ")"
	} else {
		what += " (no controllers: cpu.stat and pressure only)"
	}
	return g.Dir, &jobCgroup{g: g, fd: fd}, what
}

// dir is the job's cgroup directory, "" when it has none.
func (c *jobCgroup) dir() string {
	if c == nil {
		return ""
	}
	return c.g.Dir
}

func (c *jobCgroup) cgroupFD() int {
	if c == nil {
		return 0
	}
	return c.fd
}

// remove removes the job's cgroup, killing what the job left running in it.
// It returns a line for the job's log when it had to kill, or failed.
func (c *jobCgroup) remove() string {
	if c.fd > 0 {
		unix.Close(c.fd)
		c.fd = 0
	}
	if err := c.g.Remove(CgroupRemoveWait); err == nil {
		return ""
	}
	n := len(cgrouptree.Procs(c.g.Dir))
	err := c.g.End(CgroupKillWait)
	reapAll()
	if err != nil {
		return err.Error()
	}
	what := "processes"
	if n == 1 {
		what = "process"
	}
	return fmt.Sprintf("killed %d %s the job left running (its cgroup %s is removed at the end)", n, what, c.g.Dir)
}

func (c *jobCgroup) addProc(pid int) error { return c.g.AddProc(pid) }

// reapAll waits for every child that has exited. jobtrace is a child
// subreaper, so what the job left behind and the cgroup killed are its
// children: reaped here, they do not linger as zombies after jobtrace ends.
// It is called once the job itself has been waited for.
func reapAll() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
	}
}

// StaleCgroupWait bounds how long a run waits for the processes of a dead
// run's cgroup to die once it has killed them.
const StaleCgroupWait = 2 * time.Second

// sweepCgroups removes from parent the cgroups of jobtrace runs that are
// gone: named jobtrace-<pid>, the pid not running, and the lock the run
// held on it free. What is still running in such a cgroup is the job of a
// jobtrace that was killed, and whose guard could not end it: it is killed
// first. It returns a line for the log about each cgroup it removed or
// could not remove.
func sweepCgroups(parent string) []string {
	if n, err := cgroup.Descendants(parent); err == nil && n == 0 {
		return nil // no cgroup below: nothing to list
	}
	var out []string
	forDeadRuns(parent, parseCgroupName, func(path string, pid int) {
		if msg := removeStaleCgroup(path, pid); msg != "" {
			out = append(out, msg)
		}
	})
	return out
}

func removeStaleCgroup(dir string, pid int) string {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer unix.Close(fd)
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return ""
	}
	n := len(cgrouptree.Procs(dir))
	err = cgroup.Open(dir).End(StaleCgroupWait)
	reapAll()
	switch {
	case err != nil:
		return fmt.Sprintf("could not remove %s, left by a jobtrace run (pid %d) that was killed: %v", dir, pid, err)
	case n > 0:
		return fmt.Sprintf("removed %s, left by a jobtrace run (pid %d) that was killed, and killed the %d processes still running in it", dir, pid, n)
	}
	return ""
}

// parseCgroupName returns the pid in the name of a job's cgroup,
// jobtrace-<pid>.
func parseCgroupName(name string) (int, bool) {
	p, ok := strings.CutPrefix(name, runPrefix)
	if !ok || !allDigits(p) {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	return pid, err == nil && pid > 0
}
