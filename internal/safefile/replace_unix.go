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

// replace is Replace with the system calls alone. On Linux the file is
// written without a name (openUnnamed) and named only to be renamed over
// path: open (O_TMPFILE), faccessat, the writes, fchmod, linkat, close and
// rename (a swap and an unlink when a file is replaced). Elsewhere it is
// written under its temporary name, made with O_EXCL. An *os.File would
// add three fcntl and an epoll_ctl at its open, and os.Rename an lstat of
// path.
func replace(path string, perm os.FileMode, write func(io.Writer) error) error {
	prefix := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	var tmp string
	fd, unnamed := openUnnamed(filepath.Dir(path))
	if !unnamed {
		var err error
		tmp, err = newTempName(prefix, func(name string) error {
			fd, err = syscall.Open(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
			return err
		})
		if err != nil {
			return err
		}
	}
	werr := write(fdWriter(fd))
	if werr == nil {
		werr = ignoringEINTR(func() error { return syscall.Fchmod(fd, uint32(perm.Perm())) })
	}
	if werr == nil && unnamed {
		tmp, werr = nameTemp(fd, prefix)
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
		if tmp != "" {
			syscall.Unlink(tmp)
		}
		return werr
	}
	return nil
}

// newTempName makes a new name from prefix by create, trying new names while
// it finds one that exists, and returns it.
func newTempName(prefix string, create func(name string) error) (string, error) {
	for range maxTempTries {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		err := create(name)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, syscall.EEXIST) {
			return "", err
		}
	}
	return "", syscall.EEXIST
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
