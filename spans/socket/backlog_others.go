//go:build !unix

package socket

import "net"

// acceptBacklog is a no-op where the listener's descriptor cannot be
// polled without blocking.
func acceptBacklog(*net.UnixListener) []*net.UnixConn { return nil }
