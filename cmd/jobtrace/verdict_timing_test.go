//go:build linux && timing

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
)

// The verdict tests run real workloads of each kind as phases of a real
// `jobtrace run` (stress-ng's stressors, a sleep, a download from a local
// server, a CPU hog started beside the job) and check the verdict on each
// phase's span. Whether a workload is what it says depends on the machine:
// a CPU stressor beside a busy build is starved, rightly. So the job raises
// its own priority (its autogroup's and its processes' nice to -19, as root
// may) for every kind but starved, and each phase records the kernel's own
// view of the machine (/proc/stat, /proc/pressure) at its begin and end,
// which a failure prints beside jobtrace's figures.

const (
	// verdictWork is how long each stressor runs: several samples at the
	// 1 s interval the tests use, well over verdict.MinDuration.
	verdictWork = "4"

	// memLimit is the memory the memory-pressured phase is limited to, and
	// memFile the file-backed memory each of its two stressors maps, four
	// times as much: without swap (CI machines have none) anonymous memory
	// over a limit is killed rather than pressured, while file pages are
	// dropped and read back, which is memory pressure. One stressor mapping
	// twice the limit stalled 9–14 % of the time on a quiet machine, at the
	// rule's edge; two mapping four times it, 29 %.
	memLimit = 128 << 20
	memFile  = 512 << 20

	// starvedShare is the share of a CPU the starved phase's one busy
	// thread should get beside the CPU hog, on a machine with nothing
	// else to do: well inside the band where the machine's stall alone
	// tells starved (verdict.MinActiveCPUs to verdict.SingleThreadCPUs),
	// with room for the neighbours of a shared machine to take more.
	starvedShare = 0.4

	// downloadRate is the bytes per second the local server sends, in
	// downloadChunk pieces, for downloadFor.
	downloadRate  = 1 << 20
	downloadChunk = 64 << 10
	downloadFor   = 4 * time.Second
)

// boostScript raises the job's priority, as far as root may: the autogroup
// the job's session has (Linux groups a session's CPU time when
// sched_autogroup is on) and its own nice, which its children inherit.
const boostScript = `echo -19 > /proc/self/autogroup 2>/dev/null; renice -n -19 -p $$ >/dev/null 2>&1;`

// snapScript defines snap, which appends the kernel's view of the machine
// to $K: a header with the phase and the time, the first line of /proc/stat
// and the "some" line of each /proc/pressure file.
const snapScript = `snap() { { echo "== $1 $2 $(date +%s.%N)"; head -n 1 /proc/stat; for r in cpu io memory; do printf '%s ' $r; head -n 1 /proc/pressure/$r 2>/dev/null || echo; done; } >> "$K"; };`

// workloadPhase is one phase of a verdict test: its name, the shell
// command it runs and the verdict it should get.
type workloadPhase struct {
	name string
	cmd  string
	want verdict.Kind
}

func (p workloadPhase) script() string {
	return fmt.Sprintf("echo 'BEGIN_PHASE %[1]s'; snap begin %[1]s; %[2]s; snap end %[1]s; echo 'END_PHASE %[1]s';\n", p.name, p.cmd)
}

// TestVerdictWorkloads runs workloads of every kind under jobtrace, with
// the job in a cgroup of its own where this machine permits (its own
// pressure stall figures) and with --cgroup off (the machine's alone).
func TestVerdictWorkloads(t *testing.T) {
	if _, err := exec.LookPath("stress-ng"); err != nil {
		t.Skip("no stress-ng here (.ci/run installs it)")
	}
	if os.Geteuid() != 0 {
		t.Skip("the workloads raise their priority and limit their memory, which needs root")
	}
	disk := diskDir(t)
	srv := httptest.NewServer(http.HandlerFunc(slowDownload))
	t.Cleanup(srv.Close)

	cpu := []workloadPhase{{"cpu-bound", "stress-ng --cpu 0 --timeout " + verdictWork + "s -q", verdict.CPUBound}}
	if runtime.NumCPU() >= 2 {
		// One stressor process: a single thread busy all the time.
		cpu = append(cpu, workloadPhase{"single-thread", "stress-ng --cpu 1 --timeout " + verdictWork + "s -q", verdict.SingleThread})
	} else {
		t.Log("one CPU: no single-thread phase")
	}
	waiting := []workloadPhase{{"sleep", "sleep " + verdictWork, verdict.Waiting}}
	if fetch := downloader(srv.URL); fetch != "" {
		waiting = append(waiting, workloadPhase{"download", fetch, verdict.Waiting})
	} else {
		t.Log("neither curl nor wget here: no download phase")
	}

	t.Run("cgroup=auto", func(t *testing.T) {
		phases := append(append([]workloadPhase{}, cpu...), waiting...)
		phases = append(phases, workloadPhase{"io-bound", "(cd " + disk + " && stress-ng --hdd 1 --hdd-opts direct --timeout " + verdictWork + "s -q)", verdict.IOBound})
		if limit, ok := memoryLimitScript(t, disk); ok {
			// Last: the limit may hold the job's whole cgroup.
			phases = append(phases, workloadPhase{"memory-pressured", limit + " && (cd " + disk + " && stress-ng --mmap 2 --mmap-file --mmap-bytes " +
				fmt.Sprint(memFile) + " --timeout " + verdictWork + "s -q)", verdict.MemoryPressured})
		}
		runVerdictJob(t, "auto", boostScript, phases)
		starvedBesideHog(t, "auto")
	})
	t.Run("cgroup=off", func(t *testing.T) {
		runVerdictJob(t, "off", boostScript, append(append([]workloadPhase{}, cpu...), waiting...))
		starvedBesideHog(t, "off")
	})
}

// starvedBesideHog runs a single-threaded stressor at normal priority while
// a CPU hog, started by the test beside the job (not in it), keeps every
// CPU busy with the weight (hogNice) that leaves the job starvedShare of a
// CPU.
func starvedBesideHog(t *testing.T, cgroup string) {
	nice := strconv.Itoa(hogNice(runtime.NumCPU(), autogroupOn()))
	hog := exec.Command("nice", "-n", nice, "stress-ng", "--cpu", "0", "--timeout", "120s", "-q")
	hog.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := hog.Start(); err != nil {
		t.Fatalf("starting the CPU hog: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-hog.Process.Pid, syscall.SIGKILL)
		_ = hog.Wait()
	})
	// The hog's session is an autogroup of its own (when they are on),
	// whose nice weighs it against the job's.
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/autogroup", hog.Process.Pid), []byte(nice), 0)
	t.Logf("CPU hog: a stressor per CPU at nice %s (autogroups on: %v)", nice, autogroupOn())
	time.Sleep(500 * time.Millisecond) // its workers started
	runVerdictJob(t, cgroup, "", []workloadPhase{{"starved", "stress-ng --cpu 1 --timeout " + verdictWork + "s -q", verdict.Starved}})
}

// niceWeights are the kernel's weights of the nice values -20 to 19
// (sched_prio_to_weight, kernel/sched/core.c): a task's share of a CPU is
// its weight over the sum of the weights of the tasks that want it.
var niceWeights = [40]float64{
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
	110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
}

// hogNice is the nice, the highest that is heavy enough, of a hog of one
// stressor on each of n CPUs beside a job's one busy thread at nice 0, for
// the job to get at most starvedShare of a CPU. With autogroups, the hog's
// session and the job's share the machine by their weights: the job's
// gets n × 1024 / (1024 + W). Without, the job's thread shares a CPU with
// one of the hog's: 1024 / (1024 + W).
func hogNice(n int, autogroup bool) int {
	want := 1024 * (1/starvedShare - 1)
	if autogroup {
		want = 1024 * (float64(n)/starvedShare - 1)
	}
	for i := len(niceWeights) - 1; i >= 0; i-- {
		if niceWeights[i] >= want {
			return i - 20
		}
	}
	return -20
}

// autogroupOn says whether the kernel groups each session's CPU time.
func autogroupOn() bool {
	data, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	return err == nil && strings.TrimSpace(string(data)) == "1"
}

// runVerdictJob runs the phases as one job and checks each phase's verdict.
func runVerdictJob(t *testing.T, cgroup, prelude string, phases []workloadPhase) {
	t.Helper()
	dir := t.TempDir()
	out, kernel := filepath.Join(dir, "out"), filepath.Join(dir, "kernel")
	var script strings.Builder
	script.WriteString(snapScript + prelude + "\n")
	for _, p := range phases {
		script.WriteString(p.script())
	}
	r := jt(t, []string{"K=" + kernel}, "run", "--out", out, "--interval", "1s", "--cgroup", cgroup, "--summary", "text",
		"--", "sh", "-c", script.String())
	if r.code != 0 {
		t.Fatalf("exit code %d\n%s", r.code, r.stderr)
	}
	run, warn, err := runmodel.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if warn != nil {
		t.Log(warn)
	}
	views := readKernelViews(t, kernel)
	for _, p := range phases {
		var span *runmodel.Span
		for i := range run.Phases {
			if run.Phases[i].Name == p.name {
				span = &run.Phases[i]
			}
		}
		if span == nil {
			t.Errorf("no phase %s in the run:\n%s", p.name, r.stderr)
			continue
		}
		if p.want == verdict.MemoryPressured && strings.Contains(r.stdout, noMemoryLimit) {
			t.Logf("%s: not checked: the job could not limit its memory", p.name)
			continue
		}
		v, ok := verdict.FromAttributes(span.Attributes)
		u := &span.Usage
		if steal := u.SystemCPUSteal.Seconds() / (span.End.Sub(span.Start).Seconds() * float64(runtime.NumCPU())); ok && v.Kind == verdict.Starved && p.want != verdict.Starved && steal >= verdict.StealShare {
			// The verdict's first rule: a machine whose hypervisor
			// took that much of it starved the job, whatever it ran.
			t.Logf("%s: not checked: the hypervisor took %.0f %% of the machine's CPU time (steal): %s", p.name, 100*steal, v.Reason)
			continue
		}
		got := fmt.Sprintf("%s: %s (%s); jobtrace: %.2f CPUs busy of %d, machine %.0f %% busy, stall (the job's: %v) cpu %.2fs io %.2fs memory %.2fs, machine's cpu %.2fs io %.2fs memory %.2fs, over %v",
			p.name, v.Kind, v.Reason, u.CPU().Seconds()/span.End.Sub(span.Start).Seconds(), runtime.NumCPU(), 100*u.SystemCPUAvg,
			u.HasPressure, u.Pressure.CPUSome.Seconds(), u.Pressure.IOSome.Seconds(), u.Pressure.MemorySome.Seconds(),
			u.SystemPressure.CPUSome.Seconds(), u.SystemPressure.IOSome.Seconds(), u.SystemPressure.MemorySome.Seconds(),
			span.End.Sub(span.Start).Round(time.Millisecond))
		if !ok || v.Kind != p.want {
			t.Errorf("%s; want %s\nthe kernel over the phase: %s\nsummary:\n%s", got, p.want, views[p.name], r.stderr)
			continue
		}
		t.Logf("%s\n\tthe kernel: %s", got, views[p.name])
	}
}

// diskDir is a directory on a block device, for the phases whose files
// must reach a disk (O_DIRECT, page cache that can be dropped): the test's
// temporary directory, else /var/tmp, else the package's directory.
func diskDir(t *testing.T) string {
	t.Helper()
	const tmpfsMagic = 0x01021994
	for _, base := range []string{os.TempDir(), "/var/tmp", "."} {
		var st syscall.Statfs_t
		if syscall.Statfs(base, &st) != nil || st.Type == tmpfsMagic {
			continue
		}
		dir, err := os.MkdirTemp(base, "jobtrace-verdict-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		abs, _ := filepath.Abs(dir)
		return abs
	}
	t.Skip("no directory on a block device here: the IO and memory workloads need one")
	return ""
}

// downloader is the command that downloads url to nowhere, or "".
func downloader(url string) string {
	if _, err := exec.LookPath("curl"); err == nil {
		return "curl -sSf -o /dev/null " + url
	}
	if _, err := exec.LookPath("wget"); err == nil {
		return "wget -q -O /dev/null " + url
	}
	return ""
}

// slowDownload sends downloadRate bytes a second for downloadFor: a
// download that waits on the network, not on the CPU.
func slowDownload(w http.ResponseWriter, r *http.Request) {
	chunk := make([]byte, downloadChunk)
	n := int(downloadFor.Seconds() * downloadRate / downloadChunk)
	w.Header().Set("Content-Length", fmt.Sprint(n*downloadChunk))
	rc := http.NewResponseController(w)
	pause := time.Duration(float64(time.Second) * downloadChunk / downloadRate)
	for range n {
		if _, err := w.Write(chunk); err != nil {
			return
		}
		_ = rc.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(pause):
		}
	}
}
