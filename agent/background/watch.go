package background

import (
	"fmt"
	"slices"

	"github.com/jobtrace/jobtrace/hostmetrics/proctree"
)

// Process is a process the agent watches: its pid, and its start time to
// tell it from a later process given the same pid.
type Process struct {
	Pid   int
	Name  string
	Start uint64
}

func (p Process) String() string {
	if p.Pid == 0 {
		return "no process"
	}
	return fmt.Sprintf("process %d (%s)", p.Pid, p.Name)
}

// Alive reports whether p is still there; the zero Process always is.
func (p Process) Alive(procRoot string) bool {
	if p.Pid == 0 {
		return true
	}
	id, err := proctree.Lookup(procRoot, p.Pid)
	return err == nil && !id.Exited && id.Start == p.Start
}

// LookupProcess returns the process pid is now.
func LookupProcess(procRoot string, pid int) (Process, error) {
	id, err := proctree.Lookup(procRoot, pid)
	if err != nil {
		return Process{}, fmt.Errorf("process %d: %v", pid, err)
	}
	if id.Exited {
		return Process{}, fmt.Errorf("process %d has exited", pid)
	}
	return Process{Pid: pid, Name: id.Comm, Start: id.Start}, nil
}

// ciProcesses are the names of the processes that run a whole CI job and
// start each of its steps: GitHub Actions' runner, GitLab's runner (shell
// executor) and Buildkite's agent.
var ciProcesses = []string{"Runner.Worker", "gitlab-runner", "buildkite-agent"}

// shells are the processes that run a step's script, which end with it.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox", "jobtrace"}

// DefaultWatch finds the process an agent started by process from watches
// (see docs/steps.md): the nearest ancestor of from that is one of the CI
// systems' job processes, else the nearest one that is not a shell, short
// of pid 1. The zero Process when there is none, or on a system without
// Linux /proc.
func DefaultWatch(procRoot string, from int) Process {
	var chain []proctree.Ident
	for pid := from; pid > 1 && len(chain) < maxAncestors; {
		id, err := proctree.Lookup(procRoot, pid)
		if err != nil {
			break
		}
		chain = append(chain, id)
		pid = id.PPid
	}
	if len(chain) == 0 {
		return Process{}
	}
	// chain[0] is from itself: jobtrace start.
	chain = chain[1:]
	for _, id := range chain {
		if slices.Contains(ciProcesses, id.Comm) {
			return Process{Pid: id.Pid, Name: id.Comm, Start: id.Start}
		}
	}
	for _, id := range chain {
		if !slices.Contains(shells, id.Comm) {
			return Process{Pid: id.Pid, Name: id.Comm, Start: id.Start}
		}
	}
	return Process{}
}

// maxAncestors bounds the walk up from a process: real chains are a few
// processes long; a loop in a corrupt /proc stops here.
const maxAncestors = 64
