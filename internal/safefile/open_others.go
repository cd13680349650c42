//go:build !unix

package safefile

import (
	"fmt"
	"io/fs"
	"os"
)

// Open opens path with flag and perm. Without O_NOFOLLOW, a symbolic link
// at path is refused by a look before the open.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s %w", path, ErrSymlink)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s %w", path, ErrNotRegular)
		}
	}
	return os.OpenFile(path, flag, perm)
}

// OpenLog opens path for appending, creating it with perm.
func OpenLog(path string, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s %w", path, ErrSymlink)
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}

// PrivateDir creates path with mode 0700 when missing and refuses a
// symbolic link; ownership is not checked on this system.
func PrivateDir(path string) error {
	if err := os.Mkdir(path, 0o700); err != nil && !os.IsExist(err) {
		return err
	}
	return CheckPrivate(path)
}

// OwnLink returns nil: links have no owner to check on this system.
func OwnLink(string) error { return nil }

// UserDir is PrivateDir on this system.
func UserDir(path string) error { return PrivateDir(path) }

// CheckPrivate refuses a symbolic link or a non-directory.
func CheckPrivate(path string) error {
	_, err := lstatDir(path)
	return err
}

// SafeParent checks that path is a directory.
func SafeParent(path string) error {
	_, err := statDir(path)
	return err
}

// unlinked reports false: Windows does not remove a file that is open.
func unlinked(*os.File) bool { return false }
