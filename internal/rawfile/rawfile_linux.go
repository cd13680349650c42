package rawfile

import (
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// atFDCWD is a variable so that its negative value converts to uintptr.
var atFDCWD = unix.AT_FDCWD

// Open opens cpath, which ends in NUL, read-only with openat(2) plus flags.
// Errors are bare errnos, which allocate nothing.
func Open(cpath []byte, flags int) (int, unix.Errno) {
	for {
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(atFDCWD),
			uintptr(unsafe.Pointer(&cpath[0])), uintptr(flags|unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return -1, errno
		}
		return int(fd), 0
	}
}

// Read reads fd from its start to its end into *buf, which it doubles when
// full, and returns how many bytes it read. It reads with pread(2), so that
// a file kept open is read anew from offset 0 (the kernel makes the content
// of a /proc, /sys or cgroupfs file again at a read from its start). With
// whole set, a read shorter than the space left is taken as the end: true
// of files the kernel hands over in one piece (stat, statm, io), not of
// files of many records such as children, of which one read returns at most
// a page.
func Read(fd int, buf *[]byte, whole bool) (int, unix.Errno) {
	b := *buf
	n := 0
	for {
		if n == len(b) {
			b = grow(buf, n)
		}
		m, err := unix.Pread(fd, b[n:], int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if errno, ok := err.(unix.Errno); ok {
				return n, errno
			}
			return n, unix.EIO
		}
		n += m
		if m == 0 || whole && n < len(b) {
			return n, 0
		}
	}
}

// File is a file kept open between reads, each read from its start: a
// sample that reads the same small files again and again then pays one
// pread(2) or two per file rather than openat, read and close, and openat's
// path lookup is most of what reading a small /proc or cgroupfs file costs.
// A file that could not be opened (it does not exist, yet) is tried again
// at the next read. The zero File is not usable: make one with NewFile.
type File struct {
	cpath []byte // NUL-terminated
	fd    int    // -1 while not open
}

// NewFile returns a File for path, not yet opened.
func NewFile(path string) *File {
	return &File{cpath: append([]byte(path), 0), fd: -1}
}

// ReadAll reads the file from its start into *buf, as Read does, opening it
// first when it is not open. When the read fails, the file is closed and,
// if it had been open since an earlier read, opened again once: a file
// that has gone (a cgroup removed) then says so as its open fails. op names
// the system call that failed: "open" or "read".
func (f *File) ReadAll(buf *[]byte, whole bool) (n int, op string, errno unix.Errno) {
	retry := f.fd >= 0
	for {
		if f.fd < 0 {
			fd, errno := Open(f.cpath, 0)
			if errno != 0 {
				return 0, "open", errno
			}
			f.fd = fd
		}
		n, errno = Read(f.fd, buf, whole)
		if errno == 0 {
			return n, "", 0
		}
		f.Close()
		if !retry {
			return n, "read", errno
		}
		retry = false
	}
}

// Close closes the file; the next ReadAll opens it again.
func (f *File) Close() {
	if f.fd >= 0 {
		unix.Close(f.fd)
		f.fd = -1
	}
}

// ReadFile reads the whole file at path into *buf, which it doubles when
// full, and returns how many bytes it read: openat, read until the end and
// close, and nothing else. A file opened by the os package costs four to
// six more system calls (its descriptor is offered to the runtime's poller,
// which takes cgroupfs and sysfs files, and is taken back at close), and
// their price is most of a small file's. For the files read once (at
// start-up); those read at every sample are kept open (File).
func ReadFile(path string, buf *[]byte) (int, error) { return ReadFileUpTo(path, buf, 0) }

// ReadFileUpTo is ReadFile reading at most limit bytes (none when limit
// is 0): the caller tells a file that filled them from a whole one.
func ReadFileUpTo(path string, buf *[]byte, limit int) (int, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	return fill(buf, limit, func(b []byte) (int, error) {
		for {
			m, err := unix.Read(fd, b)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return 0, &fs.PathError{Op: "read", Path: path, Err: err}
			}
			return m, nil
		}
	})
}

// Absent reports whether errno, from opening or reading a file of /proc,
// /sys or cgroupfs, says that the kernel has no such figure rather than
// that the file could not be read. ENOENT: no such file (no controller, an
// older kernel, the root cgroup; the pressure files of a cgroup whose
// cgroup.pressure is 0, which the kernel hides, or of every cgroup with
// cgroup_disable=pressure). EOPNOTSUPP: what reading a pressure file
// returns when PSI is disabled at boot (psi=0, or a kernel built with
// CONFIG_PSI_DEFAULT_DISABLED and no psi=1) on the kernels that still make
// the file: /proc/pressure/* before Linux 5.6, a cgroup's pressure files
// before 6.1. Callers record such a file's figures as absent and do not
// report it.
func Absent(errno unix.Errno) bool {
	return errno == unix.ENOENT || errno == unix.EOPNOTSUPP
}

// PathError returns errno, from File.ReadAll or Open, as an *fs.PathError
// for op ("open" or "read") and path that satisfies errors.Is(err,
// fs.ErrNotExist) when Absent(errno): ENOENT does already, EOPNOTSUPP is
// made to.
func PathError(op, path string, errno unix.Errno) error {
	var err error = errno
	if Absent(errno) && errno != unix.ENOENT {
		err = absentError{errno}
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// absentError is an errno that Absent takes as "no such figure" but that
// does not match fs.ErrNotExist by itself; its message is the errno's.
type absentError struct{ errno unix.Errno }

func (e absentError) Error() string        { return e.errno.Error() }
func (e absentError) Unwrap() error        { return e.errno }
func (e absentError) Is(target error) bool { return target == fs.ErrNotExist }
