//go:build unix

// Command workload does a known amount of work, for the tests that check the
// usage jobtrace measures against what the kernel reports for the same
// process. It is built by those tests; it is not part of jobtrace.
//
//	workload burn DURATION     keep one thread busy for DURATION of wall time
//	workload sleep DURATION    sleep for DURATION
//	workload alloc MIB HOLD    map MIB MiB, write to every page, hold it for HOLD
//	workload write BYTES PATH  write BYTES bytes to PATH, fsync, close
//
// When done, and just before it exits, it prints its own
// getrusage(RUSAGE_SELF) as one line on stderr, after its arguments:
//
//	workload burn 1s: start_unix_us=N wall_us=N utime_us=N stime_us=N maxrss_kib=N inblock=N oublock=N
//
// start_unix_us is when main began, in microseconds since the Unix epoch;
// wall_us the time from then to the account. The others are the figures wait4 reports to its parent for it (ru_maxrss in
// KiB, ru_inblock and ru_oublock in 512-byte blocks), short of what the exit
// itself costs: it has released its memory and closed its file before.
// Printing to stderr rather than to a file keeps the account out of the IO
// being measured.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	start := time.Now()
	args := os.Args[1:]
	var err error
	switch {
	case len(args) == 2 && args[0] == "burn":
		var d time.Duration
		if d, err = time.ParseDuration(args[1]); err == nil {
			burn(d)
		}
	case len(args) == 2 && args[0] == "sleep":
		var d time.Duration
		if d, err = time.ParseDuration(args[1]); err == nil {
			time.Sleep(d)
		}
	case len(args) == 3 && args[0] == "alloc":
		var mib int
		var hold time.Duration
		if mib, err = strconv.Atoi(args[1]); err == nil {
			if hold, err = time.ParseDuration(args[2]); err == nil {
				err = alloc(mib, hold)
			}
		}
	case len(args) == 3 && args[0] == "write":
		var n int64
		if n, err = strconv.ParseInt(args[1], 10, 64); err == nil {
			err = write(n, args[2])
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: workload burn DURATION | sleep DURATION | alloc MIB HOLD | write BYTES PATH")
		os.Exit(2)
	}
	if err == nil {
		err = account(strings.Join(args, " "), start)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "workload:", err)
		os.Exit(1)
	}
}

// sink keeps the busy loop from being optimised away.
var sink uint64

// burn spins on the calling thread until d of wall time has passed. The
// clock is read only every few thousand rounds so that the loop stays in
// user space (time.Now is a vDSO call, but cheap is not free).
func burn(d time.Duration) {
	runtime.LockOSThread()
	end := time.Now().Add(d)
	x := uint64(1)
	for {
		for range 4096 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if !time.Now().Before(end) {
			break
		}
	}
	sink = x
}

// alloc maps mib MiB of anonymous memory as one slice and writes a byte to
// every page, so every page is resident, holds it for hold, then unmaps it.
// The memory is outside the Go heap, so the garbage collector can neither
// free nor scavenge it while it is held; and it is unmapped before the
// rusage is read, so that the kernel time spent freeing 200 MiB of pages is
// in the account rather than in the exit that follows it.
func alloc(mib int, hold time.Duration) error {
	b, err := syscall.Mmap(-1, 0, mib<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return fmt.Errorf("mmap %d MiB: %w", mib, err)
	}
	page := os.Getpagesize()
	for i := 0; i < len(b); i += page {
		b[i] = 1
	}
	time.Sleep(hold)
	return syscall.Munmap(b)
}

// write writes n bytes of non-zero data to path in 1 MiB writes, then fsyncs
// it so the bytes have reached the disk (and the block counters) before it
// closes.
func write(n int64, path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i*7 + i>>8)
	}
	for n > 0 {
		k := min(n, int64(len(buf)))
		if _, err := f.Write(buf[:k]); err != nil {
			f.Close()
			return err
		}
		n -= k
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// account prints on stderr, after what, when main began and how long ago,
// and this process's rusage.
func account(what string, start time.Time) error {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	_, err := fmt.Fprintf(os.Stderr, "workload %s: start_unix_us=%d wall_us=%d utime_us=%d stime_us=%d maxrss_kib=%d inblock=%d oublock=%d\n",
		what, start.UnixMicro(), time.Since(start).Microseconds(), ru.Utime.Nano()/1000, ru.Stime.Nano()/1000, ru.Maxrss, ru.Inblock, ru.Oublock)
	return err
}
