package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Errors, wrapped with the path.
var (
	// ErrSymlink is a symbolic link where a file or a private directory
	// is to be written.
	ErrSymlink = errors.New("is a symbolic link: not followed")
	// ErrNotRegular is a FIFO, socket, device or directory where a regular
	// file is to be written.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrLinked is a regular file with more than one hard link: another
	// name of it may be someone else's file.
	ErrLinked = errors.New("has more than one hard link")
	// ErrNotPrivate is a directory for private state that is not owned by
	// the user or is open to others.
	ErrNotPrivate = errors.New("is not private to this user")
)

// Create opens path for writing, creating it with perm or truncating it.
func Create(path string, perm os.FileMode) (*os.File, error) {
	return Open(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
}

// Append opens path for appending, creating it with perm.
func Append(path string, perm os.FileMode) (*os.File, error) {
	return Open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}

// WriteFile replaces path with data, as Replace does.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Replace(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Replace writes a new version of path with write, under a temporary name
// in the same directory created with O_EXCL (on Linux without a name, given
// one once written), then renames it over path (a symbolic link at path is
// replaced, not followed). The file gets mode perm, whatever the umask.
// Whatever fails, the temporary file is removed and path is left as it
// was; on Linux a process killed while it writes leaves none either.
func Replace(path string, perm os.FileMode, write func(io.Writer) error) error {
	if err := replace(path, perm, write); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the path and operation of a *PathError or *LinkError,
// which name the temporary file: the caller names the real one.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// lstatDir returns the FileInfo of path, which must be a directory and not
// a symbolic link to one: an error wrapping ErrSymlink or ErrNotPrivate
// otherwise.
func lstatDir(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s %w", path, ErrSymlink)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s %w: not a directory", path, ErrNotPrivate)
	}
	return fi, nil
}

// statDir returns the FileInfo of the directory path leads to.
func statDir(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", path)
	}
	return fi, nil
}
