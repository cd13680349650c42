//go:build unix

package safefile

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// maxTempTries bounds the names tried for a temporary file, as
// os.CreateTemp does: each is new with a probability of almost 1.
const maxTempTries = 10000

// replace is Replace with the system calls alone: open (O_EXCL), the
// writes, fchmod, close and rename (on Linux a swap and an unlink when a
// file is replaced), five or six for a file written at once. An
// *os.File would add three fcntl and an epoll_ctl at its open, and
// os.Rename an lstat of path.
func replace(path string, perm os.FileMode, write func(io.Writer) error) error {
	prefix := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	var tmp string
	fd := -1
	for range maxTempTries {
		tmp = prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		var err error
		fd, err = syscall.Open(tmp, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EEXIST) {
			return err
		}
		fd = -1
	}
	if fd < 0 {
		return syscall.EEXIST
	}
	werr := write(fdWriter(fd))
	if werr == nil {
		werr = ignoringEINTR(func() error { return syscall.Fchmod(fd, uint32(perm.Perm())) })
	}
	if cerr := syscall.Close(fd); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = renameOver(tmp, path)
		if werr == syscall.EISDIR {
			// As os.Rename says it: a directory at path is not replaced.
			werr = syscall.EEXIST
		}
	}
	if werr != nil {
		syscall.Unlink(tmp)
		return werr
	}
	return nil
}

// fdWriter writes to a file descriptor opened for blocking writes.
type fdWriter int

func (w fdWriter) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := syscall.Write(int(w), p[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.ErrShortWrite
		}
		n += m
	}
	return n, nil
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
