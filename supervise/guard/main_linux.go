//go:build linux

package guard

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Main runs the guard: it reads jobtrace's messages on ControlFD and, when
// jobtrace dies without releasing it, ends the job. It never returns.
func Main() {
	var st syscall.Stat_t
	if err := syscall.Fstat(ControlFD, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		os.Stderr.WriteString("jobtrace: " + Arg + " is started by 'jobtrace run' only\n")
		os.Exit(2)
	}
	t := readControl(bufio.NewReaderSize(os.NewFile(ControlFD, "control"), 4096))
	if t.released {
		os.Exit(0)
	}
	r := t.end(procRoot, os.Getpid())
	os.Stderr.WriteString(r.line(t.owner, &t))
	os.Exit(0)
}

// line is the guard's one line on stderr.
func (r *result) line(parent int, t *target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "jobtrace: jobtrace (pid %d) ended before its job: ", parent)
	switch r.killed {
	case 0:
		b.WriteString("no process of the job was left")
	case 1:
		b.WriteString("killed 1 process of the job")
	default:
		fmt.Fprintf(&b, "killed %d processes of the job", r.killed)
	}
	if t.cgroup != "" && r.cgroupErr == nil {
		fmt.Fprintf(&b, ", removed its cgroup %s", t.cgroup)
	}
	if r.survivors > 0 {
		fmt.Fprintf(&b, "; %d still running after %v", r.survivors, KillTimeout)
	}
	if r.cgroupErr != nil {
		fmt.Fprintf(&b, "; %v", r.cgroupErr)
	}
	b.WriteString("\n")
	return b.String()
}
