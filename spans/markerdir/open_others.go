//go:build !unix

package markerdir

import (
	"errors"
	"io/fs"
	"os"
)

// openNoFollow opens path for reading, refusing a symbolic link. Without
// O_NOFOLLOW this checks with Lstat first; the caller checks the opened
// file's type again.
func openNoFollow(path string) (*os.File, error) {
	li, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("is a symbolic link")}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !os.SameFile(li, fi) {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("changed while opening")}
	}
	return f, nil
}
