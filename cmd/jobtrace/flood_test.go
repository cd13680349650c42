//go:build unix

package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"github.com/jobtrace/jobtrace/exporters/spool"
)

// envFlood makes the test binary, run as a job, write that many begin/end
// pairs to $JOBTRACE_SOCKET as fast as it can, then one message that waits
// for its reply.
const envFlood = "JOBTRACE_TEST_FLOOD"

func init() {
	n, err := strconv.Atoi(os.Getenv(envFlood))
	if err != nil {
		return
	}
	if err := flood(n); err != nil {
		fmt.Fprintln(os.Stderr, "flood:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func flood(pairs int) error {
	c, err := net.Dial("unix", os.Getenv("JOBTRACE_SOCKET"))
	if err != nil {
		return err
	}
	defer c.Close()
	w := bufio.NewWriterSize(c, 64<<10)
	for range pairs {
		w.WriteString(`{"type":"begin","name":"step","attrs":{"k":"v"}}` + "\n" + `{"type":"end","name":"step"}` + "\n")
	}
	w.WriteString(`{"type":"event","name":"done","ack":true}` + "\n")
	if err := w.Flush(); err != nil {
		return err
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.Contains(reply, `"ok":true`) {
		return fmt.Errorf("reply %q: %v", reply, err)
	}
	return nil
}

// A tool streaming begin/end pairs into the socket faster than the spool
// writes them is slowed down, not dropped: every pair is a span in the
// spool, with resource sampling on (the phase boundaries go through the
// sampler) and the spool queue overrun many times.
func TestSocketFloodLosesNoSpan(t *testing.T) {
	pairs := 6 * spool.MaxQueueSpans
	r := jt(t, []string{envFlood + "=" + strconv.Itoa(pairs)}, "run", "--summary", "off", "--interval", "1s", "--", os.Args[0])
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	steps := 0
	err := spool.ReadLines(filepath.Join(r.out, spool.TracesFile), 0, func(req *coltracepb.ExportTraceServiceRequest, _ int, _ int64) error {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					if s.Name == "step" {
						steps++
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if steps != pairs {
		t.Errorf("%d step spans in the spool, want %d; stderr:\n%s", steps, pairs, lastLines(r.stderr, 5))
	}
	if strings.Contains(r.stderr, "dropped") || strings.Contains(r.stderr, "not written") {
		t.Errorf("stderr reports a loss:\n%s", lastLines(r.stderr, 5))
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
