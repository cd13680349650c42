//go:build unix

package socket

import (
	"net"
	"os"
	"syscall"
)

// acceptBacklog accepts every connection already waiting in ln's listen
// backlog and returns at once when there is none: the listener's file
// descriptor is non-blocking, so accept(2) says EAGAIN instead of waiting.
func acceptBacklog(ln *net.UnixListener) []*net.UnixConn {
	rc, err := ln.SyscallConn()
	if err != nil {
		return nil
	}
	var fds []int
	// A listener's raw connection only offers Control, which is enough:
	// Go keeps the descriptor in non-blocking mode.
	rc.Control(func(fd uintptr) {
		for {
			nfd, _, err := syscall.Accept(int(fd))
			if err != nil {
				return
			}
			syscall.CloseOnExec(nfd)
			fds = append(fds, nfd)
		}
	})
	var conns []*net.UnixConn
	for _, fd := range fds {
		if syscall.SetNonblock(fd, true) != nil {
			syscall.Close(fd)
			continue
		}
		f := os.NewFile(uintptr(fd), "backlog")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			continue
		}
		if uc, ok := c.(*net.UnixConn); ok {
			conns = append(conns, uc)
		} else {
			c.Close()
		}
	}
	return conns
}
