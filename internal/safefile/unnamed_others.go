//go:build unix && !linux

package safefile

import "syscall"

// openUnnamed has no file without a name to open here: replace writes
// under a temporary name.
func openUnnamed(string) (fd int, ok bool) { return -1, false }

// nameTemp is not called where openUnnamed opens nothing.
func nameTemp(int, string) (string, error) { return "", syscall.ENOTSUP }
