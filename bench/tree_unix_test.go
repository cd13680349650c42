//go:build unix

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
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
	script := fmt.Sprintf("i=0; while [ $i -lt %d ]; do sleep 300 & i=$((i+1)); done; wait", n)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &sleepTree{cmd: cmd, root: cmd.Process.Pid, n: n}
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := countSleepingChildren(t.root)
		if got == n {
			return t, nil
		}
		if time.Now().After(deadline) {
			t.stop()
			return nil, fmt.Errorf("tree of %d: only %d sleep children of pid %d after 60s", n, got, t.root)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop kills the whole process group and reaps the shell.
func (t *sleepTree) stop() {
	_ = syscall.Kill(-t.root, syscall.SIGKILL)
	_ = t.cmd.Wait()
}

// countSleepingChildren scans /proc/<pid>/stat for the children of ppid
// whose command is "sleep", so that the helper does not depend on the code
// being measured.
func countSleepingChildren(ppid int) int {
	d, err := os.Open("/proc")
	if err != nil {
		return -1
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return -1
	}
	count := 0
	for _, name := range names {
		if _, err := strconv.Atoi(name); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		comm, parent, ok := commAndPPID(data)
		if ok && parent == ppid && comm == "sleep" {
			count++
		}
	}
	return count
}

// commAndPPID takes the command name and parent pid from a stat line:
// "pid (comm) state ppid ...", where comm may hold spaces and parentheses.
func commAndPPID(stat []byte) (string, int, bool) {
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
		return "", 0, false
	}
	rest := stat[rp+4:] // skip ") S "
	end := 0
	for end < len(rest) && rest[end] != ' ' {
		end++
	}
	ppid, err := strconv.Atoi(string(rest[:end]))
	if err != nil {
		return "", 0, false
	}
	return string(stat[lp+1 : rp]), ppid, true
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
	stopTree()
	t, err := startSleepTree(n)
	if err != nil {
		tb.Fatal(err)
	}
	current = t
	return t.root
}

func stopTree() {
	if current != nil {
		current.stop()
		current = nil
	}
}
