package resource

import (
	"os"
	"strings"
	"testing"
)

// uname's release is what /proc/sys/kernel/osrelease holds, and what New
// puts in os.description.
func TestKernelReleaseAsProc(t *testing.T) {
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Skip(err)
	}
	want := strings.TrimSpace(string(data))
	if got := kernelRelease(); got != want {
		t.Errorf("kernelRelease() = %q, /proc/sys/kernel/osrelease %q", got, want)
	}
	h := readHost("/", linuxFiles, kernelRelease)
	if !strings.Contains(h.osDescription, "Linux "+want) {
		t.Errorf("os.description %q, want it to name Linux %s", h.osDescription, want)
	}
	// A tree other than / is read from its files, not from the running
	// kernel.
	h = readHost("testdata/linux-metal", linuxFiles, func() string { return "running" })
	if strings.Contains(h.osDescription, "running") {
		t.Errorf("os.description of a tree: %q", h.osDescription)
	}
}
