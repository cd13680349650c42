//go:build linux

package cgroup

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lookMount says what is mounted at point: statmount(2) gives the file
// system's magic number and the mount's root (as mountinfo shows it,
// relative to the process's cgroup namespace); on a kernel without it
// (before 6.8), statfs(2) gives the magic number and the root is unknown.
func lookMount(point string) (cgroup2 bool, root string, known bool) {
	if magic, root, ok := statMount(point); ok {
		return magic == unix.CGROUP2_SUPER_MAGIC, root, true
	}
	return isCgroup2(point), "", false
}

// isCgroup2 reports whether point is on a cgroup2 file system: one
// statfs(2).
func isCgroup2(point string) bool {
	var st unix.Statfs_t
	return unix.Statfs(point, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC
}

// mntIDReq is struct mnt_id_req of linux/mount.h, in its first version
// (MNT_ID_REQ_SIZE_VER0).
type mntIDReq struct {
	size, spare uint32
	mntID       uint64
	param       uint64
}

// What statmount(2) is asked for, and where its answer is in struct
// statmount (linux/mount.h): the offsets of sb_magic and mnt_root, and of
// the strings that follow the fixed part.
const (
	statmountSBBasic  = 0x01
	statmountMntRoot  = 0x08
	statmountMask     = 8
	statmountSBMagic  = 24
	statmountRootOff  = 104
	statmountStrings  = 512
	statmountBufBytes = statmountStrings + 4096
)

// statMount returns the magic number of the file system mounted at point
// and the mount's root, by statx(2) for the mount's unique id and
// statmount(2) for the mount; ok is false when the kernel has neither, or
// the root is longer than the buffer.
func statMount(point string) (magic uint64, root string, ok bool) {
	var stx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, point, unix.AT_NO_AUTOMOUNT, unix.STATX_MNT_ID_UNIQUE, &stx) != nil ||
		stx.Mask&unix.STATX_MNT_ID_UNIQUE == 0 {
		return 0, "", false
	}
	req := mntIDReq{size: uint32(unsafe.Sizeof(mntIDReq{})), mntID: stx.Mnt_id, param: statmountSBBasic | statmountMntRoot}
	buf := make([]byte, statmountBufBytes)
	_, _, errno := unix.Syscall6(unix.SYS_STATMOUNT, uintptr(unsafe.Pointer(&req)),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
	if errno != 0 {
		return 0, "", false
	}
	mask := *(*uint64)(unsafe.Pointer(&buf[statmountMask]))
	if mask&(statmountSBBasic|statmountMntRoot) != statmountSBBasic|statmountMntRoot {
		return 0, "", false
	}
	off := statmountStrings + int(*(*uint32)(unsafe.Pointer(&buf[statmountRootOff])))
	if off >= len(buf) {
		return 0, "", false
	}
	s := buf[off:]
	n := bytes.IndexByte(s, 0)
	if n < 0 {
		return 0, "", false
	}
	return *(*uint64)(unsafe.Pointer(&buf[statmountSBMagic])), string(s[:n]), true
}
