//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Open opens path with flag (os.O_* values) and perm, never following a
// symbolic link at path. An existing file must be a regular file with one
// hard link; O_TRUNC is applied only once that is checked, so a refused
// file is left as it was: a file with content is then replaced by a new
// empty one, and an empty one is kept. The file is opened with
// O_NONBLOCK, so that a FIFO planted at path cannot hang jobtrace, and set
// back to blocking.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	return open(path, flag, perm, false)
}

// OpenLog opens path for appending, creating it with perm, as Open does,
// except that a character device (/dev/null, a terminal) is taken too: the
// user's own choice of where messages go.
func OpenLog(path string, perm os.FileMode) (*os.File, error) {
	return open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm, true)
}

func open(path string, flag int, perm os.FileMode, device bool) (*os.File, error) {
	trunc := flag&os.O_TRUNC != 0
	flag &^= os.O_TRUNC
	fd, err := syscall.Open(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		if isLinkErrno(err) {
			if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return nil, fmt.Errorf("%s %w", path, ErrSymlink)
			}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	switch {
	case st.Mode&syscall.S_IFMT == syscall.S_IFREG:
		if uint64(st.Nlink) > 1 {
			syscall.Close(fd)
			return nil, fmt.Errorf("%s %w", path, ErrLinked)
		}
	case device && st.Mode&syscall.S_IFMT == syscall.S_IFCHR:
	default:
		syscall.Close(fd)
		return nil, fmt.Errorf("%s %w", path, ErrNotRegular)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	// A file with content is not truncated but replaced by a new one:
	// ext4 (auto_da_alloc) and XFS take a truncation to zero as a file
	// being rewritten in place and send its new blocks to the disk when it
	// is closed, a write the end of every run into the same out dir waited
	// for. An empty file is kept as it is.
	if trunc && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Size > 0 {
		syscall.Close(fd)
		return recreate(path, flag, perm)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// recreate removes the file at path, checked by open, and creates a new
// one in its place with O_EXCL: whatever was put there meanwhile (a link,
// a FIFO) is refused, not followed.
func recreate(path string, flag int, perm os.FileMode) (*os.File, error) {
	if err := syscall.Unlink(path); err != nil && err != syscall.ENOENT {
		return nil, &os.PathError{Op: "remove", Path: path, Err: err}
	}
	fd, err := syscall.Open(path, flag|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// isLinkErrno is the error open(2) gives for a symbolic link with
// O_NOFOLLOW: ELOOP (POSIX, Linux, illumos, macOS), EMLINK (FreeBSD,
// DragonFly), EFTYPE (NetBSD).
func isLinkErrno(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	return errno == syscall.ELOOP || errno == syscall.EMLINK || errno == eftype
}

// OwnLink returns an error wrapping ErrSymlink when path is a symbolic link
// owned by someone other than the user jobtrace runs as or root, and nil
// otherwise. A link the user made (an output directory on another disk) is
// theirs to follow; one that another user planted where the user's path
// leads is not. It is the rule of Linux's fs.protected_symlinks, applied on
// every file system and system.
func OwnLink(path string) error {
	path = filepath.Clean(path)
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); int(st.Uid) == uid || st.Uid == 0 {
		return nil
	}
	return fmt.Errorf("%s %w: the link belongs to uid %d", path, ErrSymlink, st.Uid)
}

// PrivateDir makes sure path is a directory private to the user jobtrace
// runs as: it is created with mode 0700 when missing (its parent must
// exist), and refused when it is a symbolic link, not a directory, owned by
// another user, or open to group or others.
func PrivateDir(path string) error {
	if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return CheckPrivate(path)
}

// CheckPrivate returns an error wrapping ErrNotPrivate or ErrSymlink unless
// path is a directory (not a link to one) owned by the effective user, with
// no permission bits for group or others.
func CheckPrivate(path string) error { return checkDir(path, 0o077, "0700") }

// UserDir makes sure path is a directory the user chose for private files
// (each made with mode 0600): created with mode 0700 when missing (its
// parent must exist), and refused when it is a symbolic link, not a
// directory, owned by another user, or writable by group or others.
func UserDir(path string) error {
	if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return checkDir(path, 0o022, "no write for group and others")
}

func checkDir(path string, deny fs.FileMode, want string) error {
	fi, err := lstatDir(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s %w: owned by uid %d, not %d", path, ErrNotPrivate, st.Uid, uid)
	}
	if fi.Mode().Perm()&deny != 0 {
		return fmt.Errorf("%s %w: mode %04o, want %s", path, ErrNotPrivate, fi.Mode().Perm(), want)
	}
	return nil
}

// SafeParent reports whether the directory path is a safe place to create
// a private directory in: owned by the user or by root, and, when others
// may write to it, sticky (as /tmp is), so that nobody else can rename or
// remove what the user creates there.
func SafeParent(path string) error {
	fi, err := statDir(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); int(st.Uid) != uid && st.Uid != 0 {
		return fmt.Errorf("%s %w: owned by uid %d", path, ErrNotPrivate, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("%s %w: writable by others and not sticky (mode %04o)", path, ErrNotPrivate, fi.Mode().Perm())
	}
	return nil
}

// unlinked reports whether f no longer has a name: it, or the directory it
// was in, was removed while it was open.
func unlinked(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0
}
