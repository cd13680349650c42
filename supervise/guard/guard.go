package guard

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Arg is the one argument that makes the jobtrace binary the guard.
const Arg = "__jobtrace_guard"

// ControlFD is the descriptor on which the guard reads jobtrace's messages.
const ControlFD = 3

// MaxControlBytes bounds what the guard reads from jobtrace: the messages
// are a few lines of paths and environment entries, well below it. Lines
// beyond it are not read; the guard still acts on end-of-file.
const MaxControlBytes = 64 << 10

// Message kinds, one per line: "<kind> <quoted value>".
const (
	msgOwner   = "owner"   // jobtrace's pid
	msgSince   = "since"   // jobtrace's start time, clock ticks after boot
	msgJob     = "job"     // the job's pid
	msgCgroup  = "cgroup"  // the job's cgroup directory
	msgDir     = "dir"     // the private directory to remove
	msgEnv     = "env"     // an environment entry KEY=VALUE only the job has
	msgOrphan  = "orphan"  // "<pid> <start time>" of an orphan of the job
	msgRelease = "release" // jobtrace is done with the job: exit
)

var errBadLine = errors.New("guard: malformed control line")

// appendMsg encodes one message; values are quoted so that any path fits
// on one line.
func appendMsg(b []byte, kind, value string) []byte {
	b = append(b, kind...)
	if value != "" {
		b = append(b, ' ')
		b = strconv.AppendQuote(b, value)
	}
	return append(b, '\n')
}

// target is what the guard knows of the job.
type target struct {
	job      int    // the job's pid, process group and session; 0 when unknown
	since    uint64 // processes started before are never the job's
	owner    int    // jobtrace's pid
	orphans  map[int]uint64
	cgroup   string
	dirs     []string
	env      []string
	released bool
}

// apply adds one control line to t.
func (t *target) apply(line string) error {
	kind, value, _ := strings.Cut(line, " ")
	if kind == msgRelease {
		t.released = true
		return nil
	}
	v, err := strconv.Unquote(value)
	if err != nil {
		return fmt.Errorf("%w: %q", errBadLine, line)
	}
	switch kind {
	case msgSince:
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: %q", errBadLine, line)
		}
		t.since = n
	case msgJob, msgOwner:
		pid, err := strconv.Atoi(v)
		if err != nil || pid <= 1 {
			return fmt.Errorf("%w: %q", errBadLine, line)
		}
		if kind == msgJob {
			t.job = pid
		} else {
			t.owner = pid
		}
	case msgCgroup:
		t.cgroup = v
	case msgDir:
		t.dirs = append(t.dirs, v)
	case msgOrphan:
		p, st, _ := strings.Cut(v, " ")
		pid, err1 := strconv.Atoi(p)
		start, err2 := strconv.ParseUint(st, 10, 64)
		if err1 != nil || err2 != nil || pid <= 1 {
			return fmt.Errorf("%w: %q", errBadLine, line)
		}
		if t.orphans == nil {
			t.orphans = map[int]uint64{}
		}
		t.orphans[pid] = start
	case msgEnv:
		if !strings.Contains(v, "=") {
			return fmt.Errorf("%w: %q", errBadLine, line)
		}
		t.env = append(t.env, v)
	default:
		return fmt.Errorf("%w: %q", errBadLine, line)
	}
	return nil
}

// readControl reads control lines from r until "release" or end-of-file,
// at most MaxControlBytes. Malformed lines are skipped.
func readControl(r *bufio.Reader) target {
	var t target
	n := 0
	for !t.released {
		line, err := r.ReadString('\n')
		n += len(line)
		if len(line) > 0 && line[len(line)-1] == '\n' && n <= MaxControlBytes {
			_ = t.apply(line[:len(line)-1])
		}
		if err != nil {
			break
		}
	}
	return t
}
