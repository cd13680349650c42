// Package regularfile reads the files a user names for jobtrace's
// configuration (jobtrace.yaml, certificates and keys) safely: only regular
// files, and only up to a size the caller names.
//
// A path to /dev/zero would otherwise grow memory without bound, and a path
// to a FIFO would block jobtrace before the job starts. The file is opened
// without blocking (O_NONBLOCK, which a FIFO honours and a regular file
// ignores) and checked with fstat on the open descriptor, so what is read is
// what was checked.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

var (
	// ErrNotRegular is a path to a directory, a device, a FIFO or a socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is a file larger than the size the caller allows.
	ErrTooLarge = errors.New("file too large")
)

// Read returns the contents of the regular file at path, which must not be
// larger than max bytes. Errors say what is wrong in words, without the name
// of the system call; the caller adds the path.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d allowed", ErrTooLarge, st.Size(), max)
	}
	// The size may change while it is read: the limit holds whatever it
	// grows to.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: more than the %d bytes allowed", ErrTooLarge, max)
	}
	return data, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}
