//go:build !linux

package supervise

import "os"

// newPipe returns a pipe for the job's output.
func newPipe() (r, w *os.File, err error) { return os.Pipe() }

// pendingBytes is not known here: SyncOutput then waits only for what was
// already read.
func pendingBytes(*os.File) int64 { return 0 }

// waitReadable does not wait here: SyncOutput's figure may then miss a
// read in progress.
func waitReadable(*os.File) bool { return false }
