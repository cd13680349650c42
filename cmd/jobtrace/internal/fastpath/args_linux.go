package fastpath

import "syscall"

// maxCmdline bounds what args reads of /proc/self/cmdline: a marker
// command's line is short, and a longer one is left to main.
const maxCmdline = 64 << 10

// args returns the process's arguments, as os.Args holds them, read from
// /proc/self/cmdline: this package does not import os (see the package
// comment). It returns nil when they cannot be read whole.
func args() []string {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	buf := make([]byte, 4096)
	n := 0
	for {
		if n == len(buf) {
			if len(buf) >= maxCmdline {
				return nil
			}
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil
		}
		if m == 0 {
			break
		}
		n += m
	}
	return splitNUL(buf[:n])
}
