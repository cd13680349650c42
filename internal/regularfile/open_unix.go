//go:build unix

package regularfile

import "syscall"

// openFlags makes opening a FIFO return at once instead of waiting for a
// writer; on a regular file O_NONBLOCK changes nothing.
const openFlags = syscall.O_NONBLOCK
