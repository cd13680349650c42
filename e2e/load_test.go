//go:build linux

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The load: loadJobs `jobtrace run` at once into one collector, each job
// with loadPhases phases from output markers and as many over the socket.
const (
	loadJobs   = 50
	loadPhases = 20
	// loadMaxRSS bounds each agent's peak resident memory: the budget for
	// whatever a job sends (docs/performance.md).
	loadMaxRSS = 200 << 20
)

// loadRun is one job of the load and what its jobtrace said.
type loadRun struct {
	out                        string
	exit                       int
	stderr                     string
	maxRSS                     int64 // bytes
	cpu                        time.Duration
	pending, uncertain, resent int
	spooled                    []span
	replaySent, replayResent   int
}

var (
	rePending   = regexp.MustCompile(`(\d+) spans pending`)
	reUncertain = regexp.MustCompile(`(\d+) of the pending spans were in an upload abandoned`)
	reResent    = regexp.MustCompile(`(\d+) spans were sent again after an upload abandoned`)
	reSent      = regexp.MustCompile(`sent (\d+) spans to`)
)

func count(re *regexp.Regexp, s string) int {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestLoadFiftyJobsIntoOneCollector runs loadJobs jobs at once, half over
// OTLP/gRPC and half over OTLP/HTTP, into one real Collector that writes
// what it receives to a file, and checks delivery as docs/export.md states
// it: after the runs every span is at the collector or reported pending;
// after `jobtrace replay` of each directory every span of every spool is
// there, and a span is there twice only if jobtrace said its upload had been
// abandoned and sent again. It logs the figures: spans received in all and
// distinct, after the runs and after replay, and the agents' peak memory.
func TestLoadFiftyJobsIntoOneCollector(t *testing.T) {
	bin := requireJobtrace(t)
	c := StartFileCollector(t)
	script := fmt.Sprintf(`i=1; while [ $i -le %d ]; do echo "BEGIN_PHASE marker-$i"; echo "END_PHASE marker-$i"; jobtrace phase begin socket-$i; jobtrace phase end socket-$i; i=$((i+1)); done`, loadPhases)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	runs := make([]*loadRun, loadJobs)
	protocols := []string{"grpc", "http/protobuf"}
	var wg sync.WaitGroup
	start := time.Now()
	for i := range runs {
		r := &loadRun{out: filepath.Join(t.TempDir(), "out")}
		runs[i] = r
		proto := protocols[i%2]
		cmd := exec.CommandContext(ctx, bin, "run", "--out", r.out, "--name", fmt.Sprintf("load-%d", i), "--", "sh", "-c", script)
		cmd.Env = jobEnv(c.Endpoint("http", proto), proto)
		var se bytes.Buffer
		cmd.Stderr = &se
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := cmd.Wait()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				r.exit = -1
			} else {
				r.exit = cmd.ProcessState.ExitCode()
			}
			r.stderr = se.String()
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				r.maxRSS = int64(ru.Maxrss) * 1024 // KiB on Linux
			}
			r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}()
	}
	wg.Wait()
	took := time.Since(start)

	var spooled []span
	var pending, uncertain, resent int
	for i, r := range runs {
		if r.exit != 0 {
			t.Errorf("job %d exited %d; stderr:\n%s", i, r.exit, r.stderr)
			continue
		}
		r.spooled, _ = jobSpans(t, r.out, fmt.Sprintf("load-%d", i))
		if n := len(r.spooled); n != 2*loadPhases+3 {
			t.Errorf("job %d spooled %d spans, want %d: its %d phases, the job, start-up and shutdown", i, n, 2*loadPhases+3, 2*loadPhases)
		}
		r.pending, r.uncertain, r.resent = count(rePending, r.stderr), count(reUncertain, r.stderr), count(reResent, r.stderr)
		spooled = append(spooled, r.spooled...)
		pending += r.pending
		uncertain += r.uncertain
		resent += r.resent
	}
	if t.Failed() {
		t.FailNow()
	}

	// After the runs: what arrived, and what jobtrace said is pending.
	afterRuns := c.SettledSpans(t, len(spooled)-pending)
	total1, unique1 := distinct(afterRuns)
	missing1 := len(spooled) - countIn(spooled, afterRuns)
	t.Logf("%d jobs at once, %d phases each: all ended in %s", loadJobs, 2*loadPhases, took.Round(time.Millisecond))
	t.Logf("after the runs: %d spans spooled, %d received (%d distinct); %d not received, %d reported pending (%d of them possibly received), %d reported sent again",
		len(spooled), total1, unique1, missing1, pending, uncertain, resent)
	if missing1 > pending {
		t.Errorf("after the runs %d spans are missing at the collector but only %d were reported pending", missing1, pending)
	}
	if total1-unique1 > resent {
		t.Errorf("after the runs %d spans arrived twice, but only %d were reported sent again after an abandoned upload", total1-unique1, resent)
	}

	// Replay every directory: what was pending goes now.
	var replaySent, replayResent int
	for i, r := range runs {
		rep := runJobtrace(t, jobEnv(c.Endpoint("http", protocols[i%2]), protocols[i%2]), "replay", r.out)
		r.replaySent, r.replayResent = count(reSent, rep.Stderr), count(reResent, rep.Stderr)
		replaySent += r.replaySent
		replayResent += r.replayResent
		if r.replayResent != r.uncertain {
			t.Errorf("replay of job %d said %d spans were sent again after an abandoned upload; the run said %d", i, r.replayResent, r.uncertain)
		}
		if rep.ExitCode != 0 {
			t.Errorf("replay of job %d exited %d; stderr:\n%s", i, rep.ExitCode, rep.Stderr)
		}
		if r.replaySent != r.pending {
			t.Errorf("replay of job %d sent %d spans; the run reported %d pending", i, r.replaySent, r.pending)
		}
	}
	c.Stop(t) // the file exporter writes what it still holds
	afterReplay, err := c.Spans()
	if err != nil {
		t.Fatal(err)
	}
	total2, unique2 := distinct(afterReplay)
	missing2 := len(spooled) - countIn(spooled, afterReplay)
	t.Logf("after replay: %d spans sent by replay (%d of them reported sent again); %d received in all (%d distinct); %d spooled spans missing",
		replaySent, replayResent, total2, unique2, missing2)
	if missing2 != 0 || unique2 != len(spooled) {
		t.Errorf("after replay %d of the %d spooled spans are missing; %d distinct spans received", missing2, len(spooled), unique2)
	}
	if total2-unique2 > replayResent+resent {
		t.Errorf("%d spans arrived twice; jobtrace reported %d sent again by the runs and %d by the replays", total2-unique2, resent, replayResent)
	}

	// The agents' peak memory and CPU.
	var rss []int64
	var cpu []time.Duration
	for _, r := range runs {
		rss = append(rss, r.maxRSS)
		cpu = append(cpu, r.cpu)
		if r.maxRSS > loadMaxRSS {
			t.Errorf("an agent peaked at %.1f MiB, over %d MiB", float64(r.maxRSS)/(1<<20), loadMaxRSS>>20)
		}
	}
	slices.Sort(rss)
	slices.Sort(cpu)
	t.Logf("agents' peak resident memory (wait4 maxrss): median %.1f MiB, max %.1f MiB; CPU per agent: median %s, max %s",
		float64(rss[len(rss)/2])/(1<<20), float64(rss[len(rss)-1])/(1<<20),
		cpu[len(cpu)/2].Round(time.Millisecond), cpu[len(cpu)-1].Round(time.Millisecond))
}

// distinct returns how many spans there are and how many distinct ones.
func distinct(spans []span) (total, unique int) {
	seen := map[string]bool{}
	for _, s := range spans {
		seen[s.TraceID+s.SpanID] = true
	}
	return len(spans), len(seen)
}

// countIn returns how many spans of want are in got.
func countIn(want, got []span) int {
	have := map[string]bool{}
	for _, s := range got {
		have[s.TraceID+s.SpanID] = true
	}
	n := 0
	for _, s := range want {
		if have[s.TraceID+s.SpanID] {
			n++
		}
	}
	return n
}
