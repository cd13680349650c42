package resource

import "golang.org/x/sys/unix"

var platform = linuxFiles

// kernelRelease is the running kernel's release from uname(2), as
// /proc/sys/kernel/osrelease holds it (both are the UTS namespace's): one
// system call, where reading that file costs four, one of them the
// kernel's sysctl code; "" when uname fails, and the file is read.
func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}
