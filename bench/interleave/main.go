//go:build linux

// Command interleave runs `BIN run --out DIR -- JOB` for two or more jobtrace
// binaries alternately, N times each, and prints per binary the wall time of
// jobtrace (mean, median, min), the CPU (user + system; mean and median) of
// jobtrace and of every process it left behind (its guard), which this
// program reaps as a child subreaper, and how many processes it left behind.
// Alternating the binaries spreads a busy machine's noise over all of them
// alike, which one hyperfine benchmark after the other does not.
//
// Usage: go run ./interleave N BIN1 BIN2... [-- JOB...]   (JOB: true)
//
// With -c, each argument after N is a whole command line instead, split at
// blanks, in which OUT stands for a directory removed before each run:
//
//	go run ./interleave -c 300 'otel-cli exec -- true' 'jobtrace run --out OUT -- true'
//
// Each round starts one command further on, so that no command always
// follows the same one. With -o, every round runs the commands in the order
// given: `jobtrace phase begin p` and `jobtrace phase end p` then take
// turns as a job's phases do.
//
//	jobtrace run -- go run ./interleave -c -o 300 'jobtrace phase begin p' 'otel-cli span -n p' 'jobtrace phase end p' empty
package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

func main() {
	args := os.Args[1:]
	lines, fixed := false, false
	for len(args) > 0 && (args[0] == "-c" || args[0] == "-o") {
		lines = lines || args[0] == "-c"
		fixed = fixed || args[0] == "-o"
		args = args[1:]
	}
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: interleave [-o] N BIN1 BIN2... [-- JOB...]\n       interleave -c [-o] N 'COMMAND LINE' 'COMMAND LINE'...")
		os.Exit(2)
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n <= 0 {
		fmt.Fprintln(os.Stderr, "interleave: N must be a positive number")
		os.Exit(2)
	}
	bins, job := args[1:], []string{"true"}
	for i, a := range bins {
		if !lines && a == "--" {
			bins, job = bins[:i], bins[i+1:]
			break
		}
	}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0); e != 0 {
		fmt.Fprintln(os.Stderr, "interleave: not a child subreaper:", e)
		os.Exit(1)
	}
	tmp, err := os.MkdirTemp("", "interleave-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	walls := make([][]time.Duration, len(bins))
	cpus := make([][]time.Duration, len(bins))
	left := make([]int, len(bins))
	for i := 0; i < n; i++ {
		for k := range bins {
			b := (k + i) % len(bins)
			if fixed {
				b = k
			}
			out := fmt.Sprintf("%s/o%d", tmp, b)
			os.RemoveAll(out)
			argv := append([]string{bins[b], "run", "--out", out, "--"}, job...)
			if lines {
				argv = strings.Fields(bins[b])
				for i, a := range argv {
					if a == "OUT" {
						argv[i] = out
					}
				}
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			t := time.Now()
			if err := cmd.Start(); err != nil {
				panic(err)
			}
			var ws syscall.WaitStatus
			var ru syscall.Rusage
			if _, err := syscall.Wait4(cmd.Process.Pid, &ws, 0, &ru); err != nil {
				panic(err)
			}
			walls[b] = append(walls[b], time.Since(t))
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			for {
				// What jobtrace left re-parented here: wait for it all.
				var r2 syscall.Rusage
				pid, err := syscall.Wait4(-1, &ws, 0, &r2)
				if err != nil || pid <= 0 {
					break
				}
				cpu += time.Duration(r2.Utime.Nano() + r2.Stime.Nano())
				left[b]++
			}
			cpus[b] = append(cpus[b], cpu)
		}
	}
	for b, w := range walls {
		c := cpus[b]
		fmt.Printf("%s: wall mean %.1f ms, median %.1f ms, min %.1f ms; CPU with what it left, mean %.1f ms, median %.1f ms; processes left behind: %d\n", bins[b],
			ms(mean(w)), ms(median(w)), ms(slices.Min(w)), ms(mean(c)), ms(median(c)), left[b])
	}
}

func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}

// median sorts d and returns its middle element: a few runs slowed by the
// rest of a busy machine move the mean, not the median.
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
