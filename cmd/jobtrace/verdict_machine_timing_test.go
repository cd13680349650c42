//go:build linux && timing

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// What the verdict tests need of the machine: the kernel's view of it over
// each phase, and a memory limit.

// kernelView is what the kernel said of the machine over one phase.
type kernelView struct {
	secs                    float64
	busy, iowait            float64 // shares of all CPUs' time
	cpuSome, ioSome, memory float64 // stall shares of the phase's time
	hasPSI                  bool
}

func (k kernelView) String() string {
	s := fmt.Sprintf("over %.2fs the machine's CPUs were %.0f %% busy, %.0f %% in iowait", k.secs, 100*k.busy, 100*k.iowait)
	if k.hasPSI {
		s += fmt.Sprintf("; some task waited for CPU %.0f %%, IO %.0f %%, memory %.0f %% of the time (/proc/pressure)", 100*k.cpuSome, 100*k.ioSome, 100*k.memory)
	}
	return s
}

// kernelSnap is one snap of snapScript.
type kernelSnap struct {
	at                  float64
	total, idle, iowait float64 // /proc/stat's first line, in ticks
	psi                 map[string]float64
}

// readKernelViews reads the snaps of snapScript: a view per phase, from its
// begin snap to its end snap.
func readKernelViews(t *testing.T, path string) map[string]kernelView {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the kernel's view: %v", err)
	}
	defer f.Close()
	begins := map[string]kernelSnap{}
	views := map[string]kernelView{}
	var which, phase string
	var cur kernelSnap
	flush := func() {
		switch which {
		case "begin":
			begins[phase] = cur
		case "end":
			b := begins[phase]
			d := cur.total - b.total
			v := kernelView{secs: cur.at - b.at}
			if d > 0 {
				v.busy = 1 - (cur.idle+cur.iowait-b.idle-b.iowait)/d
				v.iowait = (cur.iowait - b.iowait) / d
			}
			if v.secs > 0 && len(cur.psi) == 3 && len(b.psi) == 3 {
				v.hasPSI = true
				share := func(r string) float64 { return (cur.psi[r] - b.psi[r]) / 1e6 / v.secs }
				v.cpuSome, v.ioSome, v.memory = share("cpu"), share("io"), share("memory")
			}
			views[phase] = v
		}
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 4 && fields[0] == "==":
			flush()
			which, phase = fields[1], fields[2]
			cur = kernelSnap{psi: map[string]float64{}}
			cur.at, _ = strconv.ParseFloat(fields[3], 64)
		case len(fields) == 6 && fields[1] == "some":
			if total, ok := strings.CutPrefix(fields[5], "total="); ok {
				cur.psi[fields[0]], _ = strconv.ParseFloat(total, 64)
			}
		case len(fields) > 5 && fields[0] == "cpu":
			for i, s := range fields[1:] {
				n, _ := strconv.ParseFloat(s, 64)
				if i < 8 { // user to steal; guest time is in user already
					cur.total += n
				}
				switch i {
				case 3:
					cur.idle = n
				case 4:
					cur.iowait = n
				}
			}
		}
	}
	flush()
	return views
}

// noMemoryLimit is what the job prints when it could not limit its memory
// (the job's cgroup is not its own, or has no memory controller): the
// memory-pressured phase is then not checked.
const noMemoryLimit = "JOBTRACE_TEST_NO_MEMORY_LIMIT"

// memoryLimitScript returns the shell command that puts the rest of the
// job under a limit of memLimit, and fails (printing noMemoryLimit) when
// it cannot: the job's own cgroup's memory.max on a cgroup v2 host, else a
// cgroup v1 memory group the test makes (removed when the test ends).
// false when neither can be had.
func memoryLimitScript(t *testing.T, disk string) (string, bool) {
	t.Helper()
	v2 := `cg=$(sed -n 's/^0:://p' /proc/self/cgroup); f=/sys/fs/cgroup$cg/memory.max;`
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		if data, err := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control"); err == nil && strings.Contains(string(data), "memory") {
			return v2 + fmt.Sprintf(` [ -w "$f" ] && echo %d > "$f" || { echo %s; false; }`, memLimit, noMemoryLimit), true
		}
	}
	const v1 = "/sys/fs/cgroup/memory"
	if _, err := os.Stat(filepath.Join(v1, "memory.limit_in_bytes")); err != nil {
		t.Log("no memory controller to limit the job with: no memory-pressured phase")
		return "", false
	}
	memcg := filepath.Join(v1, "jobtrace-verdict-"+filepath.Base(disk))
	if err := os.Mkdir(memcg, 0o755); err != nil {
		t.Logf("no memory group: %v: no memory-pressured phase", err)
		return "", false
	}
	t.Cleanup(func() { _ = os.Remove(memcg) })
	if err := os.WriteFile(filepath.Join(memcg, "memory.limit_in_bytes"), []byte(strconv.Itoa(memLimit)), 0); err != nil {
		t.Logf("limiting the memory group: %v: no memory-pressured phase", err)
		return "", false
	}
	return fmt.Sprintf("echo $$ > %s/cgroup.procs || { echo %s; false; }", memcg, noMemoryLimit), true
}
