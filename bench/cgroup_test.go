package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/cgroup"
)

var (
	group    *cgroup.Group
	groupErr error
)

// benchCgroup makes, once, a cgroup v2 below the one the test runs in, as
// the agent makes one for the job; it needs root or a delegated sub-tree.
// removeCgroup removes it once the trees are gone.
func benchCgroup(b *testing.B) *cgroup.Group {
	b.Helper()
	if group == nil && groupErr == nil {
		group, groupErr = makeCgroup()
	}
	if groupErr != nil {
		b.Skipf("no cgroup of the benchmark's own: %v", groupErr)
	}
	return group
}

func makeCgroup() (*cgroup.Group, error) {
	m, err := cgroup.FindMount("/proc")
	if err != nil {
		return nil, err
	}
	self, err := cgroup.SelfPath("/proc")
	if err != nil {
		return nil, err
	}
	dir, err := m.Dir(self)
	if err != nil {
		return nil, err
	}
	return cgroup.Create(m.Point, strings.TrimPrefix(dir, m.Point), fmt.Sprintf("jobtrace-bench-%d", os.Getpid()))
}

func removeCgroup() error {
	if group == nil {
		return nil
	}
	err := group.Remove(5 * time.Second)
	group = nil
	return err
}

// moveTree moves the tree's shell and its children into g.
func moveTree(g *cgroup.Group, root int) error {
	pids := []int{root}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", root, root))
	if err != nil {
		return err
	}
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return err
		}
		pids = append(pids, pid)
	}
	for _, pid := range pids {
		if err := g.AddProc(pid); err != nil {
			return err
		}
	}
	return nil
}
