package proctree

import (
	"encoding/binary"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
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

// dtDir is the d_type of a directory in a struct linux_dirent64.
const dtDir = 4

// eachDirent calls each with the name and type of every record in buf, the
// result of a getdents64 system call. Each record is a struct
// linux_dirent64 (getdents(2)): d_ino (8 bytes), d_off (8), d_reclen (2),
// d_type (1), then d_name, NUL-terminated. It reports false for a
// truncated or malformed record.
func eachDirent(buf []byte, each func(name []byte, typ byte)) bool {
	const nameOff = 19
	for len(buf) > 0 {
		if len(buf) < nameOff {
			return false
		}
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen <= nameOff || reclen > len(buf) {
			return false
		}
		name := buf[nameOff:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		each(name, buf[18])
		buf = buf[reclen:]
	}
	return true
}

// appendDirentPIDs appends to dst the numeric names found in buf, the result
// of a getdents64 system call on /proc/<pid>/task (see eachDirent). Names
// that are not numbers ("." and "..") are skipped.
func appendDirentPIDs(dst []int, buf []byte) ([]int, bool) {
	ok := eachDirent(buf, func(name []byte, _ byte) {
		if v, ok := kernfmt.ParseUint(name); ok && v > 0 && v <= 1<<31 {
			dst = append(dst, int(v))
		}
	})
	return dst, ok
}

// appendSubdirs appends to dst dir/<name> for each directory other than
// "." and ".." in buf, the result of a getdents64 system call on dir.
func appendSubdirs(dst []string, dir string, buf []byte) ([]string, bool) {
	ok := eachDirent(buf, func(name []byte, typ byte) {
		if typ == dtDir && string(name) != "." && string(name) != ".." {
			dst = append(dst, dir+"/"+string(name))
		}
	})
	return dst, ok
}
