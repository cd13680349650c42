//go:build unix

package markerdir

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a final symbolic
// link (the listing already skipped links; this closes the gap between
// listing and opening) and without blocking if it became a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
