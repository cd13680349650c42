//go:build unix && !netbsd

package safefile

import "syscall"

// eftype is NetBSD's answer to O_NOFOLLOW on a link; elsewhere ELOOP,
// which isLinkErrno already takes.
const eftype = syscall.ELOOP
