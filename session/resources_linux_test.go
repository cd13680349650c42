package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestParseCgroupName(t *testing.T) {
	for name, want := range map[string]int{
		"jobtrace-123": 123, "jobtrace-0": 0, "jobtrace-": 0, "jobtrace-12a": 0,
		"jobtrace-test-1-2": 0, "jobtrace-1-2": 0, "other-12": 0,
	} {
		pid, ok := parseCgroupName(name)
		if ok != (want > 0) || pid != want {
			t.Errorf("%q: %d, %v", name, pid, ok)
		}
	}
}

// TestSweepListsOnlyWhenThereAreChildren checks, on a directory made to
// look like a cgroup, that the sweep believes cgroup.stat: with no
// descendants it lists nothing (the cgroup of a dead run is left, as the
// kernel would never show one there), with some it removes the dead run's,
// and without cgroup.stat it lists.
func TestSweepListsOnlyWhenThereAreChildren(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := cmd.ProcessState.Pid()
	for _, c := range []struct {
		stat    string // "" for none
		removed bool
	}{
		{"nr_descendants 0\nnr_dying_descendants 0\n", false},
		{"nr_descendants 1\nnr_dying_descendants 0\n", true},
		{"", true},
	} {
		parent := t.TempDir()
		if c.stat != "" {
			if err := os.WriteFile(filepath.Join(parent, "cgroup.stat"), []byte(c.stat), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		stale := filepath.Join(parent, runPrefix+strconv.Itoa(dead))
		if err := os.Mkdir(stale, 0o755); err != nil {
			t.Fatal(err)
		}
		sweepCgroups(parent)
		_, err := os.Stat(stale)
		if removed := os.IsNotExist(err); removed != c.removed {
			t.Errorf("cgroup.stat %q: the dead run's cgroup removed: %v, want %v", c.stat, removed, c.removed)
		}
	}
}
