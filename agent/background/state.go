package background

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/jobtrace/jobtrace/internal/regularfile"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/session"
)

// Files of the agent in the out directory.
const (
	// StateFile says which agent holds the directory, and, once it has
	// ended, how it ended.
	StateFile = "jobtrace-agent.json"
	// LockFile is held locked by the agent while it lives; the kernel
	// lets go of it however the agent ends.
	LockFile = ".jobtrace-agent.lock"
	// LogFile receives the agent's messages when --log names no file.
	LogFile = "jobtrace-agent.log"
	// SummaryFile receives the end-of-job summary as Markdown, which
	// `jobtrace stop` appends to its own $GITHUB_STEP_SUMMARY.
	SummaryFile = "summary.md"
)

// pointerFile, in the session's private directory beside the socket, holds
// the out directory: a step that has JOBTRACE_SOCKET finds the state file
// from it whatever its working directory.
const pointerFile = "agent-out"

// maxStateBytes bounds the state file read back: a few hundred bytes of
// paths and environment entries.
const maxStateBytes = 64 << 10

// State is what the state file holds.
type State struct {
	Pid     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Out is the out directory, absolute.
	Out string `json:"out"`
	Log string `json:"log"`
	// Env are the KEY=VALUE entries the steps need (session.StepEnv).
	Env []string `json:"env"`
	// Socket is the session's socket, "" when it has none.
	Socket string `json:"socket,omitempty"`
	// PrivateDir holds the socket and the marker dir; removed by the
	// session, or by `jobtrace stop` after an agent that was killed.
	PrivateDir string `json:"private_dir,omitempty"`
	// Watch is the process whose end ends the agent, 0 for none.
	Watch     int    `json:"watch_pid,omitempty"`
	WatchName string `json:"watch_name,omitempty"`
	// Idle ends the agent after that long without a message; 0 never.
	Idle          Duration `json:"idle"`
	ExportTimeout Duration `json:"export_timeout"`
	// End is how the agent ended; nil while it runs, or when it was killed.
	End *End `json:"end,omitempty"`
}

// End is how an agent ended.
type End struct {
	At time.Time `json:"at"`
	// Reason is one of the Reason* values.
	Reason string `json:"reason"`
	Result string `json:"result"`
	// Dir is where the artifacts are (Out, or a directory of its own in
	// it when another jobtrace was writing there).
	Dir     string `json:"dir"`
	TraceID string `json:"trace_id"`
	// Code is what `jobtrace stop` exits with: 0, or ExitExportIncomplete.
	Code int `json:"code"`
}

// Duration is a time.Duration written as text ("6h0m0s").
type Duration time.Duration

func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// ErrNoState is a directory that no agent has written a state file in.
var ErrNoState = errors.New("no jobtrace agent")

// ReadState reads the state file in dir.
func ReadState(dir string) (State, error) {
	path := filepath.Join(dir, StateFile)
	data, err := regularfile.Read(path, maxStateBytes)
	if errors.Is(err, os.ErrNotExist) {
		return State{}, fmt.Errorf("%w for %s (no %s: was `jobtrace start` run with this --out, in this directory?)", ErrNoState, dir, path)
	}
	if err != nil {
		return State{}, err
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, fmt.Errorf("%s: %v", path, err)
	}
	if err := st.belongsTo(dir); err != nil {
		return State{}, fmt.Errorf("%s is not an agent's of this directory, not used: %v", path, err)
	}
	return st, nil
}

// belongsTo checks that st is what an agent for dir writes: its out
// directory is dir, its socket is in its private directory, named as a
// session names it. A state file planted or left by someone else then
// makes no `jobtrace stop` write to, render in or remove another
// directory, nor talk to another socket.
func (st State) belongsTo(dir string) error {
	a, err := os.Stat(dir)
	if err != nil {
		return err
	}
	b, err := os.Stat(st.Out)
	if err != nil || !os.SameFile(a, b) {
		return fmt.Errorf("it names the out directory %q", st.Out)
	}
	if st.PrivateDir != "" && (!filepath.IsAbs(st.PrivateDir) || !session.IsPrivateDirName(filepath.Base(st.PrivateDir))) {
		return fmt.Errorf("it names the private directory %q", st.PrivateDir)
	}
	if st.Socket != "" && (st.PrivateDir == "" || filepath.Dir(st.Socket) != filepath.Clean(st.PrivateDir)) {
		return fmt.Errorf("it names the socket %q outside its private directory", st.Socket)
	}
	return nil
}

// writeState replaces the state file in st.Out as a whole.
func writeState(st State) error {
	return safefile.Replace(filepath.Join(st.Out, StateFile), 0o644, func(w io.Writer) error {
		b, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
}

// OutOfSocket returns the out directory of the agent that serves the
// socket at path, "" when it is not an agent's (a `jobtrace run`'s).
func OutOfSocket(path string) string {
	data, err := regularfile.Read(filepath.Join(filepath.Dir(path), pointerFile), maxStateBytes)
	if err != nil {
		return ""
	}
	return string(data)
}
