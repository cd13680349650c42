package procfs

import (
	"path/filepath"
)

// FS reads the host-wide files under a proc root (normally /proc) and a sys
// root (normally /sys, used only to tell whole disks from partitions).
//
// An FS keeps a read buffer and a small cache that its methods reuse, so that
// a steady-state read allocates nothing. It is therefore not safe for
// concurrent use: give each goroutine its own FS. Copies of an FS share that
// state, so they are not safe to use concurrently either.
type FS struct {
	paths *paths
	r     *reader
	disks *diskCache
}

// paths holds the file names, joined once so that reads do not build strings.
type paths struct {
	stat, meminfo, vmstat, diskstats, netDev, loadavg string
	pressure                                          [numPressureResources]string
	sysBlock                                          string
}

// NewFS returns an FS reading under procRoot and sysRoot. An empty sysRoot
// means no /sys is available: whole disks are then told from partitions by
// their names (see [FS.Diskstats]).
func NewFS(procRoot, sysRoot string) FS {
	p := &paths{
		stat:      filepath.Join(procRoot, "stat"),
		meminfo:   filepath.Join(procRoot, "meminfo"),
		vmstat:    filepath.Join(procRoot, "vmstat"),
		diskstats: filepath.Join(procRoot, "diskstats"),
		netDev:    filepath.Join(procRoot, "net", "dev"),
		loadavg:   filepath.Join(procRoot, "loadavg"),
	}
	for r := PressureResource(0); r < numPressureResources; r++ {
		p.pressure[r] = filepath.Join(procRoot, "pressure", r.String())
	}
	if sysRoot != "" {
		p.sysBlock = filepath.Join(sysRoot, "block")
	}
	return FS{
		paths: p,
		r:     &reader{},
		disks: &diskCache{whole: map[string]bool{}},
	}
}

// Close closes the files the FS keeps open between reads (on Linux, every
// file it has read, so that the next read of it costs no open). The FS can
// still be read after Close: it opens them again.
func (f FS) Close() error {
	f.r.close()
	return nil
}

// How the kernel writes a file, which tells how it is read to its end. A
// file of oneShow (single_open: stat, meminfo, loadavg, pressure) is
// written whole at a read from its start and handed over entire when the
// buffer can hold it, so a read shorter than the buffer is its end; a file
// of records (seq_file with an iterator: vmstat, diskstats, net/dev) is
// handed over at most a page at a time, and is read until a read returns
// nothing.
const (
	records = false
	oneShow = true
)

// reader reads whole files into a buffer it reuses. The syscall layer
// (readFile) is per OS; see read_linux.go and read_other.go.
type reader struct {
	buf   []byte
	files openFiles
}
