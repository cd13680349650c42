package session

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// runPrefix starts the name of what a run makes for itself and a later
// run may sweep when it is gone (forDeadRuns): its private directory,
// jobtrace-<pid>-<random>, and its job's cgroup, jobtrace-<pid>, pid being
// the run's jobtrace.
const runPrefix = "jobtrace-"

// StalePrivateDirAge is how long a private directory must have been left
// unmodified before a later run takes it for a dead run's and removes it:
// longer than the few microseconds between its creation and its lock, so a
// run never removes the directory another run (in another pid namespace,
// sharing /dev/shm) is still setting up.
const StalePrivateDirAge = 10 * time.Second

// newPrivateDir makes a private directory (0700) in parent, named after
// this process, and locks it for as long as the run holds the returned
// Closer. Private directories of dead runs in parent are removed first.
func newPrivateDir(parent string) (dir string, lock io.Closer, removed int, err error) {
	removed = sweepPrivateDirs(parent, time.Now())
	dir, err = os.MkdirTemp(parent, fmt.Sprintf("%s%d-", runPrefix, os.Getpid()))
	if err != nil {
		return "", nil, removed, err
	}
	lock, err = lockPrivateDir(dir)
	if err != nil {
		os.Remove(dir)
		return "", nil, removed, err
	}
	return dir, lock, removed, nil
}

// IsPrivateDirName reports whether name is that of a run's private
// directory, jobtrace-<pid>-<digits>.
func IsPrivateDirName(name string) bool {
	_, ok := parsePrivateDirName(name)
	return ok
}

// parsePrivateDirName returns the pid in the name of a run's private
// directory, jobtrace-<pid>-<digits>.
func parsePrivateDirName(name string) (pid int, ok bool) {
	rest, ok := strings.CutPrefix(name, runPrefix)
	if !ok {
		return 0, false
	}
	p, r, ok := strings.Cut(rest, "-")
	if !ok || !allDigits(p) || !allDigits(r) {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	return pid, err == nil && pid > 0
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
