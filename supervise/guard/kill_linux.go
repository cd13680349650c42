//go:build linux

package guard

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jobtrace/jobtrace/internal/cgrouptree"
)

const procRoot = "/proc"

// KillTimeout bounds the guard's work once jobtrace is gone: stopping and
// killing the job's processes, and waiting for its cgroup to empty so it
// can be removed. Processes in uninterruptible sleep (a hung NFS mount) may
// outlast it; the guard then says how many are left.
const KillTimeout = 10 * time.Second

// MaxRounds bounds how often the guard scans /proc for processes of the job
// that appeared (forked before they were stopped) since the last scan.
const MaxRounds = 50

// MaxEnvironBytes is how much of a process's environment the guard reads
// to find the job's entries in it. An environment is rarely more than a
// few KiB; the job's entries are among the first when jobtrace set them.
const MaxEnvironBytes = 1 << 20

// pollInterval is how often the guard looks again at processes that were
// killed and at a cgroup that is not empty yet.
const pollInterval = 5 * time.Millisecond

type result struct {
	killed    int
	survivors int
	cgroupErr error
}

// end kills the job and removes its cgroup and private directories.
func (t *target) end(root string, self int) result {
	deadline := time.Now().Add(KillTimeout)
	var r result
	killed := map[int]bool{}
	if t.cgroup != "" {
		// The cgroup's processes first, at once, before any of them can
		// fork or (as root) leave the cgroup while the rest are found.
		for _, pid := range cgrouptree.Kill(t.cgroup) {
			killed[pid] = true
		}
	}
	r.survivors = t.killTree(root, t.since, self, deadline, killed)
	if t.cgroup != "" {
		if err := cgrouptree.Remove(t.cgroup, deadline, true); err != nil {
			r.cgroupErr = fmt.Errorf("its cgroup %s could not be removed: %v", t.cgroup, err)
		}
	}
	for _, d := range t.dirs {
		os.RemoveAll(d)
	}
	r.killed = len(killed)
	return r
}

// killTree stops every process of the job it finds, scanning again until
// no new one appears (a stopped process cannot fork, and its children stay
// its children), then kills them all and waits until they are gone. It
// returns how many were still running at the deadline.
func (t *target) killTree(root string, since uint64, self int, deadline time.Time, killed map[int]bool) int {
	if t.job == 0 && len(t.env) == 0 && len(t.orphans) == 0 {
		return 0
	}
	env := func(pid int) []byte { return readEnviron(root, pid) }
	stopped := map[int]*os.Process{}
	for round := 0; round < MaxRounds && time.Now().Before(deadline); round++ {
		fresh := 0
		for pid, p := range members(scanProcs(root), t, since, self, env) {
			if _, ok := stopped[pid]; ok || p.zombie {
				continue
			}
			fresh++
			stopped[pid] = nil
			if h := openProc(root, p); h != nil {
				_ = h.Signal(syscall.SIGSTOP)
				stopped[pid] = h
			}
		}
		if fresh == 0 {
			break
		}
	}
	for pid, h := range stopped {
		if h == nil {
			continue
		}
		if h.Signal(syscall.SIGKILL) == nil {
			killed[pid] = true
		}
		h.Release()
	}
	// Wait for them to go; kill any that still appeared.
	for {
		alive := 0
		for pid, p := range members(scanProcs(root), t, since, self, env) {
			if p.zombie {
				continue
			}
			alive++
			if h := openProc(root, p); h != nil {
				if h.Signal(syscall.SIGKILL) == nil {
					killed[pid] = true
				}
				h.Release()
			}
		}
		if alive == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(pollInterval)
	}
}

// openProc returns a handle on p (a pidfd where the kernel has them), or
// nil when p is gone or its pid is another process's by now.
func openProc(root string, p procStat) *os.Process {
	h, err := os.FindProcess(p.pid)
	if err != nil {
		return nil
	}
	// The handle was taken after the scan: it is p's only if p still
	// has the same start time.
	if s, ok := readStat(root, p.pid); !ok || s.start != p.start {
		h.Release()
		return nil
	}
	return h
}

// scanProcs reads the stat of every process in root.
func scanProcs(root string) []procStat {
	d, err := os.Open(root)
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]procStat, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		if s, ok := readStat(root, pid); ok {
			out = append(out, s)
		}
	}
	return out
}

func readStat(root string, pid int) (procStat, bool) {
	data, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, false
	}
	return parseStat(data)
}

func readEnviron(root string, pid int) []byte {
	f, err := os.Open(filepath.Join(root, strconv.Itoa(pid), "environ"))
	if err != nil {
		return nil
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, MaxEnvironBytes))
	return data
}
