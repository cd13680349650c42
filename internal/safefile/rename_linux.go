package safefile

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// renameOver renames tmp to path. A file at path is swapped with tmp
// (renameat2 RENAME_EXCHANGE), and then removed under tmp's name: ext4
// (auto_da_alloc) and btrfs take a rename over an existing file as a file
// being rewritten and send the new file's blocks to the disk at once, a
// write the end of every run into the same out dir waited for. A reader
// still sees the old file or the new one, never neither. Where the swap
// is not possible (nothing at path, a file system or kernel without it)
// it is a plain rename. A directory at path is swapped back and left.
func renameOver(tmp, path string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); err != nil {
		return syscall.Rename(tmp, path)
	}
	err := syscall.Unlink(tmp)
	if err == nil {
		return nil
	}
	// tmp names what path held, which is not a file (EISDIR) or cannot be
	// removed: put it back, and the new file is removed as for any error.
	if xerr := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); xerr != nil {
		return xerr
	}
	return err
}
