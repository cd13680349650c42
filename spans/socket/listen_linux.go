//go:build linux

package socket

import (
	"errors"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// listenBacklog is the backlog asked of listen(2): the kernel takes the
// smaller of it and net.core.somaxconn, which is what net.ListenUnix
// asks for after reading /proc/sys/net/core/somaxconn. That read (a file
// opened through the runtime's poller, made by the kernel's sysctl code)
// cost as much as the socket's own system calls: listenUnix does without.
const listenBacklog = 1<<16 - 1

// listenUnix makes the socket at path and listens on it with bare system
// calls, and hands it to the net package (net.FileListener), which then
// owns a non-blocking copy of the descriptor in its poller.
func listenUnix(path string) (*net.UnixListener, error) {
	// Blocking until FileListener's copy: os.NewFile then keeps the
	// descriptor out of the poller.
	addr := &net.UnixAddr{Name: path, Net: "unix"}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: "unix", Addr: addr, Err: os.NewSyscallError("socket", err)}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		return nil, &net.OpError{Op: "listen", Net: "unix", Addr: addr, Err: os.NewSyscallError("bind", err)}
	}
	if err := unix.Listen(fd, listenBacklog); err != nil {
		unix.Unlink(path)
		return nil, &net.OpError{Op: "listen", Net: "unix", Addr: addr, Err: os.NewSyscallError("listen", err)}
	}
	ln, err := net.FileListener(f)
	if err != nil {
		unix.Unlink(path)
		return nil, err
	}
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		ln.Close()
		unix.Unlink(path)
		return nil, &net.OpError{Op: "listen", Net: "unix", Addr: addr, Err: errNotUnix}
	}
	return ul, nil
}

var errNotUnix = errors.New("not a unix socket")
