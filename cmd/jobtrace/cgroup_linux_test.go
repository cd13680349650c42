package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A process the job leaves running is killed with the job's cgroup, which
// is removed; with --cgroup off it is left alone.
func TestLeftoversKilledWithTheJobsCgroup(t *testing.T) {
	for _, mode := range []string{"auto", "off"} {
		t.Run(mode, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			r := jt(t, nil, "run", "--cgroup", mode, "--summary=off", "--", "sh", "-c",
				`sleep 300 >/dev/null 2>&1 & echo $! > `+pidFile)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			alive := syscall.Kill(pid, 0) == nil
			if alive {
				defer syscall.Kill(pid, syscall.SIGKILL)
			}
			own := !strings.Contains(r.stderr, "no cgroup") && mode == "auto"
			spans, _ := spansOf(t, r.out)
			for _, ev := range spans["jobtrace startup"].GetEvents() {
				if strings.Contains(ev.Name, "reading jobtrace's own cgroup") || strings.Contains(ev.Name, "no cgroup v2") {
					own = false
				}
			}
			switch {
			case mode == "auto" && !own:
				t.Skip("no cgroup of the job's own here")
			case mode == "auto":
				if alive {
					t.Errorf("the leftover process %d is still running", pid)
				}
				if !strings.Contains(r.stderr, "killed 1 process the job left running") {
					t.Errorf("stderr does not say it killed the leftover: %s", r.stderr)
				}
			default:
				if !alive {
					t.Errorf("with --cgroup off the leftover process %d was killed", pid)
				}
			}
		})
	}
}
