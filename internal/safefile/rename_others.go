//go:build unix && !linux

package safefile

import "syscall"

// renameOver renames tmp to path.
func renameOver(tmp, path string) error { return syscall.Rename(tmp, path) }
