//go:build linux

package sleeptree

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Start starts sh with n sleeping children in a process group of its own,
// waits until every child has become sleep, and kills the group at the end
// of the test.
func Start(tb testing.TB, n int) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command("sh", "-c", "for i in $(seq "+strconv.Itoa(n)+"); do sleep 300 & done; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Skipf("cannot start sh: %v", err)
	}
	tb.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	pid := strconv.Itoa(cmd.Process.Pid)
	// Forking is slow on some CI machines: poll at most four times a second.
	deadline := time.Now().Add(180 * time.Second)
	for {
		data, _ := os.ReadFile("/proc/" + pid + "/task/" + pid + "/children")
		kids := strings.Fields(string(data))
		sleepers := 0
		for _, k := range kids {
			if comm, _ := os.ReadFile("/proc/" + k + "/comm"); string(comm) == "sleep\n" {
				sleepers++
			}
		}
		if sleepers == n {
			return cmd
		}
		if time.Now().After(deadline) {
			tb.Fatalf("after 180 s, %d of %d sleepers are there", sleepers, n)
		}
		time.Sleep(min(250*time.Millisecond, time.Duration(n)*time.Millisecond))
	}
}
