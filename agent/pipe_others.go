//go:build !linux

package agent

import "os"

// newPipe returns a pipe for the job's output.
func newPipe() (r, w *os.File, err error) { return os.Pipe() }
