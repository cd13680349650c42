package proctree

import (
	"encoding/binary"

	"github.com/jobtrace/jobtrace/hostmetrics/internal/kernfmt"
)

// appendChildren appends to dst the pids listed in
// /proc/<pid>/task/<tid>/children: the children whose parent is that thread,
// separated by spaces (proc(5); present when the kernel has
// CONFIG_PROC_CHILDREN).
func appendChildren(dst []int, data []byte) ([]int, bool) {
	for {
		var f []byte
		f, data = kernfmt.NextField(data)
		if len(f) == 0 {
			return dst, true
		}
		v, ok := kernfmt.ParseUint(f)
		if !ok || v == 0 || v > 1<<31 {
			return dst, false
		}
		dst = append(dst, int(v))
	}
}

// appendDirentPIDs appends to dst the numeric names found in buf, the result
// of a getdents64 system call on /proc/<pid>/task. Each record is a
// struct linux_dirent64 (getdents(2)): d_ino (8 bytes), d_off (8),
// d_reclen (2), d_type (1), then d_name, NUL-terminated. Names that are not
// numbers ("." and "..") are skipped.
func appendDirentPIDs(dst []int, buf []byte) ([]int, bool) {
	const nameOff = 19
	for len(buf) > 0 {
		if len(buf) < nameOff {
			return dst, false
		}
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen <= nameOff || reclen > len(buf) {
			return dst, false
		}
		name := buf[nameOff:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if v, ok := kernfmt.ParseUint(name); ok && v > 0 && v <= 1<<31 {
			dst = append(dst, int(v))
		}
		buf = buf[reclen:]
	}
	return dst, true
}
