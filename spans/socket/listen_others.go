//go:build !linux

package socket

import "net"

// listenUnix makes the socket at path and listens on it.
func listenUnix(path string) (*net.UnixListener, error) {
	return net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
}
