package proctree

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/jobtrace/jobtrace/internal/procstat"
)

// Ident is who a process is, from /proc/<pid>/stat: enough to walk up to
// its ancestors and to tell it from a later process given the same pid.
type Ident struct {
	Pid, PPid int
	// Comm is the command name the kernel keeps (at most 15 bytes).
	Comm string
	// Start is when it started, in clock ticks after boot.
	Start uint64
	// Exited says it has exited and waits to be reaped (a zombie).
	Exited bool
}

// Lookup reads the identity of process pid under procRoot. On systems
// other than Linux, where /proc/<pid>/stat is not there, it fails.
func Lookup(procRoot string, pid int) (Ident, error) {
	data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return Ident{}, err
	}
	st, ok := procstat.Parse(data)
	if !ok {
		return Ident{}, fmt.Errorf("%w: /proc/%d/stat", ErrParse, pid)
	}
	return Ident{Pid: pid, PPid: st.PPID, Comm: string(st.Comm), Start: st.StartTime, Exited: st.Exited()}, nil
}
