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

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/spans"
)

// envFlood makes the test binary, run as a job, write that many begin/end
// pairs to $JOBTRACE_SOCKET as fast as it can, then one message that waits
// for its reply.
const envFlood = "JOBTRACE_TEST_FLOOD"

// envNest makes it begin that many phases, each inside the last, with
// names of 256 bytes, then end them.
const envNest = "JOBTRACE_TEST_NEST"

// envSend makes it write its value to $JOBTRACE_SOCKET as it is, then one
// message that waits for its reply.
const envSend = "JOBTRACE_TEST_SEND"

func init() {
	if v, ok := os.LookupEnv(envSend); ok {
		if err := send(v); err != nil {
			fmt.Fprintln(os.Stderr, "send:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if n, err := strconv.Atoi(os.Getenv(envNest)); err == nil {
		if err := nest(n); err != nil {
			fmt.Fprintln(os.Stderr, "nest:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
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

func send(lines string) error {
	c, err := net.Dial("unix", os.Getenv("JOBTRACE_SOCKET"))
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := fmt.Fprint(c, lines+"\n"+`{"type":"event","name":"done","ack":true}`+"\n"); err != nil {
		return err
	}
	_, err = bufio.NewReader(c).ReadString('\n')
	return err
}

func nest(n int) error {
	c, err := net.Dial("unix", os.Getenv("JOBTRACE_SOCKET"))
	if err != nil {
		return err
	}
	defer c.Close()
	w := bufio.NewWriterSize(c, 64<<10)
	name := func(i int) string { return fmt.Sprintf("%s%08d", strings.Repeat("n", 248), i) }
	for i := range n {
		fmt.Fprintf(w, `{"type":"begin","name":"%s"}`+"\n", name(i))
	}
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(w, `{"type":"end","name":"%s"}`+"\n", name(i))
	}
	w.WriteString(`{"type":"event","name":"done","ack":true}` + "\n")
	if err := w.Flush(); err != nil {
		return err
	}
	_, err = bufio.NewReader(c).ReadString('\n')
	return err
}

// A thousand phases nested in each other, with names of 256 bytes, cost
// what as many phases side by side cost: the depth is capped (the begins
// past it are refused, said once and counted), and no artifact repeats the
// names of the phases above a phase in each row or marker.
func TestDeepNestingIsCappedAndCostsLinearly(t *testing.T) {
	r := jt(t, []string{envNest + "=1000"}, "run", "--summary", "off", "--interval", "1s", "--", os.Args[0])
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "would be nested"); n != 1 {
		t.Errorf("%d warnings about the depth, want 1:\n%s", n, lastLines(r.stderr, 10))
	}
	if strings.Contains(r.stderr, "no phase of that name is open") {
		t.Errorf("the ends of the refused begins are taken for errors:\n%s", lastLines(r.stderr, 10))
	}
	if !strings.Contains(r.stderr, "936 phase messages were refused at a limit") {
		t.Errorf("the refused begins are not counted:\n%s", lastLines(r.stderr, 10))
	}
	nested := 0
	err := spool.ReadLines(filepath.Join(r.out, spool.TracesFile), 0, func(td ptrace.Traces, _ int, _ int64) error {
		req := otlptest.Proto(t, td)
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					if strings.HasPrefix(s.Name, "nnnn") {
						nested++
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if nested != spans.MaxDepth {
		t.Errorf("%d nested phases in the spool, want %d", nested, spans.MaxDepth)
	}
	for _, name := range []string{"profile.json", "resource-usage.csv", "report.html"} {
		fi, err := os.Stat(filepath.Join(r.out, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 1<<20 {
			t.Errorf("%s is %d bytes for %d phases of 256 bytes", name, fi.Size(), spans.MaxDepth)
		}
	}
}

// A tool streaming begin/end pairs into the socket faster than the spool
// writes them is slowed down, not dropped: every pair is a span in the
// spool, with resource sampling on (the phase boundaries go through the
// sampler), the spool queue overrun many times, and a collector that
// refuses every upload (the network side never costs the spool a span).
func TestSocketFloodLosesNoSpan(t *testing.T) {
	pairs := 6 * spool.MaxQueueSpans
	r := jt(t, []string{envFlood + "=" + strconv.Itoa(pairs), "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1"},
		"run", "--summary", "off", "--interval", "1s", "--export-timeout", "500ms", "--", os.Args[0])
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	steps := 0
	err := spool.ReadLines(filepath.Join(r.out, spool.TracesFile), 0, func(td ptrace.Traces, _ int, _ int64) error {
		req := otlptest.Proto(t, td)
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

// What is not turned into spans is said on stderr, in the summary, and
// added to the jobtrace.dropped metric, by what it was.
func TestDroppedInputIsCountedAsAMetric(t *testing.T) {
	c := &otlptest.Collector{}
	h := otlptest.StartHTTP(t, "127.0.0.1:0", c)
	bad := "garbage\n{\"type\":\"nope\",\"name\":\"x\"}\n{\"v\":\"1\",\"type\":\"begin\",\"name\":\"y\"}"
	r := jt(t, []string{envSend + "=" + bad, "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr},
		"run", "--summary", "text", "--interval", "0", "--", os.Args[0])
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "jobtrace: 3 socket messages were malformed or too long and were dropped") {
		t.Errorf("stderr does not say it:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "not turned into spans: 3 socket messages malformed or too long") {
		t.Errorf("the summary does not say it:\n%s", r.stderr)
	}
	if v, ok := c.Sum("jobtrace.dropped", "jobtrace.dropped.what=socket_messages"); !ok || v != 3 {
		t.Errorf("jobtrace.dropped{socket_messages} = %d, %v; want 3", v, ok)
	}
}
