package safefile

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fiemap is struct fiemap with room for one extent (linux/fiemap.h).
type fiemap struct {
	start, length          uint64
	flags, mapped, count   uint32
	_                      uint32
	logical, physical, len uint64
	_                      [2]uint64
	extentFlags            uint32
	_                      [3]uint32
}

const (
	fsIocFiemap    = 0xC020660B // FS_IOC_FIEMAP
	extentDelalloc = 0x4        // FIEMAP_EXTENT_DELALLOC
)

// delalloc reports whether the first extent of path still waits for its
// blocks (delayed allocation): its data has not been sent to the disk.
// ok is false when the file system cannot say (no FIEMAP, no extent).
func delalloc(t *testing.T, path string) (waiting, ok bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := fiemap{length: ^uint64(0), count: 1}
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), fsIocFiemap, uintptr(unsafe.Pointer(&m))); errno != 0 || m.mapped == 0 {
		return false, false
	}
	return m.extentFlags&extentDelalloc != 0, true
}

// TestRewritesLeaveTheDataInMemory checks that replacing or recreating a
// file that exists does not make the kernel write the new data out at
// once: ext4 (auto_da_alloc) and XFS start a write-back of a file renamed
// over another one or truncated and closed, a disk write at the end of
// every run into the same out dir. It runs where the file system delays
// allocation (ext4, XFS, btrfs) and says so where it does not (tmpfs).
// A write-back of the whole system (sync) between the write and the look
// would also allocate the blocks: three tries, any of which may pass.
func TestRewritesLeaveTheDataInMemory(t *testing.T) {
	data := make([]byte, 64<<10)
	for i := range data {
		data[i] = byte(i)
	}
	cases := []struct {
		name    string
		rewrite func(p string) error
	}{
		{"Replace", func(p string) error { return WriteFile(p, data, 0o644) }},
		{"Create", func(p string) error {
			f, err := Create(p, 0o644)
			if err != nil {
				return err
			}
			if _, err := f.Write(data); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f")
			if err := c.rewrite(p); err != nil {
				t.Fatal(err)
			}
			if waiting, ok := delalloc(t, p); !ok || !waiting {
				t.Skipf("the file system of %s does not delay the allocation of a new file's blocks", dir)
			}
			for range 3 {
				if err := c.rewrite(p); err != nil {
					t.Fatal(err)
				}
				if waiting, _ := delalloc(t, p); waiting {
					assertOnly(t, dir, "f")
					return
				}
			}
			t.Errorf("rewriting %s sent its blocks to the disk at once", p)
		})
	}
}
