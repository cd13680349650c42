package background

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// ReadyTimeout bounds how long `jobtrace start` waits for the agent to be
// ready. Starting takes milliseconds (docs/performance.md); the bound is
// for an agent held up by a stalled disk, which is then killed.
const ReadyTimeout = 10 * time.Second

// StartError is an agent that said why it could not start; Code is the
// status `jobtrace start` exits with.
type StartError struct {
	Msg  string
	Code int
}

func (e *StartError) Error() string { return e.Msg }

// Spawn starts the agent, this binary with Arg and args, detached from the
// caller (a session of its own, stdin, stdout and stderr on /dev/null
// until it opens its log), and waits until it is ready: it returns the
// agent's state, or why it could not start.
func Spawn(args []string) (State, error) {
	exe, err := os.Executable()
	if err != nil {
		return State{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return State{}, err
	}
	defer r.Close()
	cmd := &exec.Cmd{
		Path:        exe,
		Args:        append([]string{"jobtrace", Arg}, args...),
		ExtraFiles:  []*os.File{w}, // ReadyFD
		SysProcAttr: detached(),
	}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return State{}, fmt.Errorf("background agent: %w", err)
	}
	m, err := readReady(r)
	if err != nil {
		_ = cmd.Process.Kill()
		st, _ := cmd.Process.Wait()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return State{}, fmt.Errorf("background agent %d was not ready after %s: killed", cmd.Process.Pid, ReadyTimeout)
		}
		return State{}, fmt.Errorf("background agent %d ended (%v) before it was ready: %v", cmd.Process.Pid, st, err)
	}
	if m.State == nil {
		_, _ = cmd.Process.Wait()
		return State{}, &StartError{Msg: m.Error, Code: m.Code}
	}
	// The agent outlives its starter, which does not wait for it.
	_ = cmd.Process.Release()
	return *m.State, nil
}

// readReady reads the agent's one line from the ready pipe.
func readReady(r *os.File) (readyMsg, error) {
	var m readyMsg
	if err := r.SetReadDeadline(time.Now().Add(ReadyTimeout)); err != nil {
		return m, err
	}
	line, err := bufio.NewReader(r).ReadBytes('\n')
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return m, err
	}
	if m.State == nil && m.Error == "" {
		return m, errors.New("empty message")
	}
	return m, nil
}
