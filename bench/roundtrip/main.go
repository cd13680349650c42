// Command roundtrip times the round trip of the messages a `jobtrace phase
// begin`, `end` and `jobtrace event` send to the agent, without the start
// of a process around them: it connects to JOBTRACE_SOCKET, sends one
// message asking for a reply, reads the reply, and closes, N times each in
// turn, with GAP between two messages (a job's phases come apart; the
// agent's caches cool meanwhile). It prints the 10th, 50th and 90th
// percentiles of each. Run it as a job:
//
//	jobtrace run -- roundtrip 200 2ms
package main

import (
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: roundtrip N GAP   (inside `jobtrace run`)")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	gap, err2 := time.ParseDuration(os.Args[2])
	path := os.Getenv("JOBTRACE_SOCKET")
	if err != nil || err2 != nil || n <= 0 || path == "" {
		fmt.Fprintln(os.Stderr, "roundtrip: N must be a positive number, GAP a duration, and JOBTRACE_SOCKET set")
		os.Exit(2)
	}
	kinds := []struct{ name, head string }{
		{"begin", `{"v":1,"type":"begin","name":"p"`},
		{"end", `{"v":1,"type":"end","name":"p"`},
		{"event", `{"v":1,"type":"event","name":"tick"`},
	}
	took := make([][]time.Duration, len(kinds))
	buf := make([]byte, 4096)
	for range n {
		for k, kind := range kinds {
			line := kind.head + `,"ts":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","ack":true}` + "\n"
			start := time.Now()
			c, err := net.Dial("unix", path)
			if err != nil {
				fmt.Fprintln(os.Stderr, "roundtrip:", err)
				os.Exit(1)
			}
			if _, err := c.Write([]byte(line)); err != nil {
				fmt.Fprintln(os.Stderr, "roundtrip:", err)
				os.Exit(1)
			}
			if _, err := c.Read(buf); err != nil {
				fmt.Fprintln(os.Stderr, "roundtrip: no reply:", err)
				os.Exit(1)
			}
			took[k] = append(took[k], time.Since(start))
			c.Close()
			time.Sleep(gap)
		}
	}
	for k, kind := range kinds {
		d := took[k]
		slices.Sort(d)
		fmt.Printf("%s: p10 %.3f ms, p50 %.3f ms, p90 %.3f ms\n", kind.name,
			ms(d[len(d)/10]), ms(d[len(d)/2]), ms(d[len(d)*9/10]))
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
