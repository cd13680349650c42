// Package regularfile reads the files a user names for jobtrace's
// configuration (jobtrace.yaml, certificates and keys) and the artifacts the
// offline commands read back (the spool, the CSV) safely: only regular files,
// only up to a size or a line length the caller names.
//
// A path to /dev/zero would otherwise grow memory without bound, and a path
// to a FIFO would block jobtrace before the job starts. The file is opened
// without blocking (O_NONBLOCK, which a FIFO honours and a regular file
// ignores) and checked with fstat on the open descriptor, so what is read is
// what was checked.
package regularfile

import (
	"bytes"
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
	f, st, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
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

// Open opens the regular file at path for reading, without blocking on a
// FIFO and without reading a device. A link is followed to what it names,
// which must be a regular file too. Errors are those of Read.
func Open(path string) (*os.File, error) {
	f, _, err := open(path)
	return f, err
}

// ErrOutside is a symbolic link that leads out of the directory OpenIn
// reads in.
var ErrOutside = errors.New("a symbolic link out of its directory: not followed")

// OpenIn opens the regular file name in the directory dir for reading, as
// Open does, except that a symbolic link is followed only while it stays
// inside dir (os.Root): one that leads out of it, to another directory,
// /etc/passwd or /dev/zero, is refused with ErrOutside. It is the reader
// of artifact directories (the spool, the CSV), which may come from
// another machine or another user, so that what jobtrace reads from one,
// and shows or sends on, is what the directory holds. The path of dir
// itself, links included, is the user's choice and is followed.
func OpenIn(dir, name string) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, pathErr(err)
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, pathErr(err)
		}
		if fi, lerr := root.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, ErrOutside
		}
		return nil, pathErr(err)
	}
	if _, err := check(f); err != nil {
		return nil, err
	}
	return f, nil
}

// pathErr drops the operation and path of a *fs.PathError: the caller
// names the file.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, pathErr(err)
	}
	st, err := check(f)
	if err != nil {
		return nil, nil, err
	}
	return f, st, nil
}

// check returns the FileInfo of f, and closes it and returns an error
// wrapping ErrNotRegular when it is not a regular file.
func check(f *os.File) (fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))
	}
	return st, nil
}

// ErrLineTooLong is a line longer than the bound a LimitLines reader was
// given.
var ErrLineTooLong = errors.New("line too long")

// LimitLines returns a reader of r that fails with ErrLineTooLong once a line
// (the bytes between two newlines) grows past max bytes, so that a parser
// reading whole lines or records (encoding/csv, bufio) holds at most max
// bytes of one, whatever the file holds.
func LimitLines(r io.Reader, max int) io.Reader {
	return &lineLimiter{r: r, max: max}
}

type lineLimiter struct {
	r    io.Reader
	max  int
	line int // bytes since the last newline
	err  error
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	rest, off := p[:n], 0
	for {
		i := bytes.IndexByte(rest, '\n')
		seg := i
		if i < 0 {
			seg = len(rest)
		}
		if l.line+seg > l.max {
			l.err = fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, l.max)
			return off + l.max - l.line, l.err
		}
		if i < 0 {
			l.line += seg
			break
		}
		l.line = 0
		off += i + 1
		rest = rest[i+1:]
	}
	return n, err
}
