package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullDiskSize is the tmpfs the artifacts are written to: far less than the
// spool of the job below (about 250 bytes a span, 1,000 spans).
const fullDiskSize = "size=64k"

// TestFullDisk writes the artifacts to a small tmpfs that the spool fills:
// every failed write is one jobtrace: line (said once per artifact), no
// temporary file is left, and the job's exit code stands.
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, fullDiskSize); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	out := filepath.Join(mnt, "out")
	job := `i=0; while [ $i -lt 1000 ]; do echo "::group::phase-with-a-long-name-$i"; echo ::endgroup::; i=$((i+1)); done; exit 3`
	r := jt(t, nil, "run", "--out", out, "--summary", "off", "--", "sh", "-c", job)
	if r.code != 3 {
		t.Errorf("exit code %d, want the job's 3", r.code)
	}
	checkLines(t, r.stderr)
	if !strings.Contains(r.stderr, "no space left on device") {
		t.Fatalf("the disk did not fill: %q", r.stderr)
	}
	for what, most := range map[string]int{"span spool:": 2, "profile.json": 1, "report": 1, "resource-usage.csv": 1} {
		n := 0
		for _, l := range strings.Split(r.stderr, "\n") {
			if strings.Contains(l, "warning:") && strings.Contains(l, what) {
				n++
			}
		}
		if n > most {
			t.Errorf("%d warnings about %s, want at most %d:\n%s", n, what, most, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, "lost: the spool could not be written") {
		t.Errorf("the end line does not say spans were lost: %q", r.stderr)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
