//go:build unix

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sleepTree is a shell with n sleeping children, all in a process group
// of their own so that one signal ends them all.
type sleepTree struct {
	cmd  *exec.Cmd
	root int
	n    int
}

func startSleepTree(n int) (*sleepTree, error) {
	// The sleepers outlive the slowest benchmark (gopsutil's Children() at
	// N=1000 takes minutes); they are killed when the tree is stopped.
	script := fmt.Sprintf("i=0; while [ $i -lt %d ]; do sleep 7200 & i=$((i+1)); done; wait", n)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &sleepTree{cmd: cmd, root: cmd.Process.Pid, n: n}
	// A busy machine can be slow to fork a thousand processes.
	deadline := time.Now().Add(180 * time.Second)
	for {
		got := countSleepingChildren(t.root)
		if got == n {
			return t, nil
		}
		if time.Now().After(deadline) {
			t.stop()
			return nil, fmt.Errorf("tree of %d: only %d sleep children of pid %d after 180s", n, got, t.root)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop kills the whole process group, reaps the shell and waits until the
// orphaned sleepers have been reaped too, so that the next benchmark's scans
// of all of /proc do not meet them.
func (t *sleepTree) stop() error {
	_ = syscall.Kill(-t.root, syscall.SIGKILL)
	_ = t.cmd.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for {
		left := countGroup(t.root)
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d processes of group %d still in /proc 30s after SIGKILL", left, t.root)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countSleepingChildren scans /proc for the children of ppid whose command
// is "sleep", so that the helper does not depend on the code being measured.
func countSleepingChildren(ppid int) int {
	count := 0
	scanProc(func(stat []byte) {
		comm, parent, _, ok := statIDs(stat)
		if ok && parent == ppid && comm == "sleep" {
			count++
		}
	})
	return count
}

// countGroup counts the processes of group pgid still in /proc, zombies
// included.
func countGroup(pgid int) int {
	count := 0
	scanProc(func(stat []byte) {
		if _, _, pgrp, ok := statIDs(stat); ok && pgrp == pgid {
			count++
		}
	})
	return count
}

// statIDs takes the command name, parent pid and process group from a stat
// line: "pid (comm) state ppid pgrp ...", where comm may hold spaces and
// parentheses.
func statIDs(stat []byte) (comm string, ppid, pgrp int, ok bool) {
	lp, rp := -1, -1
	for i, c := range stat {
		if c == '(' && lp < 0 {
			lp = i
		}
		if c == ')' {
			rp = i
		}
	}
	if lp < 0 || rp < lp || rp+4 > len(stat) {
		return "", 0, 0, false
	}
	fields := strings.Fields(string(stat[rp+4:])) // after ") S "
	if len(fields) < 2 {
		return "", 0, 0, false
	}
	ppid, err1 := strconv.Atoi(fields[0])
	pgrp, err2 := strconv.Atoi(fields[1])
	if err1 != nil || err2 != nil {
		return "", 0, 0, false
	}
	return string(stat[lp+1 : rp]), ppid, pgrp, true
}

// scanProc calls f with the stat line of every process in /proc.
func scanProc(f func(stat []byte)) {
	d, err := os.Open("/proc")
	if err != nil {
		return
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return
	}
	for _, name := range names {
		if _, err := strconv.Atoi(name); err != nil {
			continue
		}
		if data, err := os.ReadFile("/proc/" + name + "/stat"); err == nil {
			f(data)
		}
	}
}

var current *sleepTree

// treeRoot returns the pid of a live tree of n sleepers. Only one tree is
// alive at a time, so that scans of all of /proc (which gopsutil needs)
// see the same host for every benchmark of a given n.
func treeRoot(tb testing.TB, n int) int {
	tb.Helper()
	if current != nil && current.n == n {
		return current.root
	}
	if err := stopTree(); err != nil {
		tb.Fatal(err)
	}
	t, err := startSleepTree(n)
	if err != nil {
		tb.Fatal(err)
	}
	current = t
	return t.root
}

func stopTree() error {
	if current == nil {
		return nil
	}
	err := current.stop()
	current = nil
	return err
}
