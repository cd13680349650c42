package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Reclaim makes path free for jobtrace to create its own file there: a
// symbolic link, a FIFO, a socket or a device node at path is removed (the
// name, never what a link points to) and described in what, such as "a
// symbolic link to /etc/passwd". A regular file, a directory or no file at
// all is left as it is, with what empty.
//
// The names jobtrace writes in its output directory are its own: a link
// planted there would otherwise cost the run its artifacts (Open refuses
// it), and removing it writes nothing anywhere else. A regular file with
// other hard links is not removed, since it may hold data; Open refuses it.
func Reclaim(path string) (what string, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		what = "a symbolic link to " + target
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device node"
	default:
		return "", nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is %s and could not be removed: %w", path, what, err)
	}
	return what, nil
}
