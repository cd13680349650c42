package procfs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

// sectorSize is the unit of the sector counts in /proc/diskstats. It is 512
// bytes whatever the device's real sector size: the block layer counts in
// 512-byte units (SECTOR_SHIFT = 9) everywhere it reports to user space.
const sectorSize = 512

// DiskStat holds the counters of one block device in /proc/diskstats, since
// the device appeared.
type DiskStat struct {
	Major, Minor   uint32
	Name           string
	Reads, Writes  uint64        // completed operations
	SectorsRead    uint64        // in 512-byte units, see ReadBytes
	SectorsWritten uint64        // in 512-byte units, see WrittenBytes
	IOTime         time.Duration // time the device had IO in flight (field 10 of iostats.rst)

	// Whole is true for a whole disk, false for a partition.
	Whole bool
	// Virtual is true for loop, ram and zram devices: their IO is a file's
	// or memory's, already counted elsewhere or not disk IO at all.
	Virtual bool
}

// ReadBytes returns SectorsRead × 512.
func (d *DiskStat) ReadBytes() uint64 { return d.SectorsRead * sectorSize }

// WrittenBytes returns SectorsWritten × 512.
func (d *DiskStat) WrittenBytes() uint64 { return d.SectorsWritten * sectorSize }

// Diskstats is the content of /proc/diskstats.
type Diskstats struct {
	Devices []DiskStat // in file order, partitions and virtual devices included; reused between reads
}

// Diskstats reads <proc>/diskstats into out, reusing out.Devices, and marks
// whole disks.
//
// A device is a whole disk when <sys>/block/<name> exists: sysfs lists whole
// disks there and partitions only below their disk. The answer is cached per
// device name, so /sys is looked at once per new device. When the FS has no
// sys root, or <sys>/block does not exist (a container without /sys), the
// kernel's naming rule is used instead: a partition is named after its disk
// followed by its number, with a "p" between when the disk's name ends in a
// digit (sda → sda1, nvme0n1 → nvme0n1p1); a device is a partition when
// another device in the file is its disk by that rule.
func (f FS) Diskstats(out *Diskstats) error {
	data, err := f.r.readFile(f.paths.diskstats, records)
	if err != nil {
		return err
	}
	if err := parseDiskstats(data, out); err != nil {
		return withPath(err, f.paths.diskstats)
	}
	if f.disks.useSys(f.paths.sysBlock) {
		for i := range out.Devices {
			d := &out.Devices[i]
			d.Whole = f.disks.isWholeSys(f.paths.sysBlock, d.Name)
		}
		f.disks.listed = nil
	} else {
		markWholeByName(out.Devices)
	}
	return nil
}

type diskCache struct {
	sysState int // 0 unknown, 1 <sys>/block exists, 2 it does not
	whole    map[string]bool
	// listed are the names in <sys>/block when it was first read, for the
	// devices of that first read (nil after it): one read of the directory
	// instead of one stat per device.
	listed map[string]bool
}

func (c *diskCache) useSys(sysBlock string) bool {
	if sysBlock == "" {
		return false
	}
	if c.sysState == 0 {
		c.sysState = 2
		if d, err := os.Open(sysBlock); err == nil {
			names, err := d.Readdirnames(-1)
			d.Close()
			if err == nil {
				c.sysState = 1
				c.listed = make(map[string]bool, len(names))
				for _, n := range names {
					c.listed[sysName(n)] = true
				}
			}
		}
	}
	return c.sysState == 1
}

// sysName is the device name of a name in <sys>/block: sysfs spells a '/'
// in a device name (cciss/c0d0) as '!'.
func sysName(n string) string { return strings.ReplaceAll(n, "!", "/") }

func (c *diskCache) isWholeSys(sysBlock, name string) bool {
	if w, ok := c.whole[name]; ok {
		return w
	}
	w := c.listed[name]
	if c.listed == nil {
		// A device that came after the first read.
		_, err := os.Stat(sysBlock + "/" + strings.ReplaceAll(name, "/", "!"))
		w = err == nil || !errors.Is(err, fs.ErrNotExist)
	}
	c.whole[name] = w
	return w
}

// markWholeByName applies the kernel's partition naming rule (see
// [FS.Diskstats]) to the devices of one read.
func markWholeByName(devs []DiskStat) {
	for i := range devs {
		devs[i].Whole = true
		for j := range devs {
			if i != j && isPartitionOf(devs[i].Name, devs[j].Name) {
				devs[i].Whole = false
				break
			}
		}
	}
}

func isPartitionOf(name, disk string) bool {
	if len(disk) == 0 || !strings.HasPrefix(name, disk) {
		return false
	}
	num := name[len(disk):]
	if last := disk[len(disk)-1]; last >= '0' && last <= '9' {
		if !strings.HasPrefix(num, "p") {
			return false
		}
		num = num[1:]
	}
	_, ok := kernfmt.ParseUint([]byte(num))
	return ok
}

var virtualPrefixes = [...][]byte{[]byte("loop"), []byte("ram"), []byte("zram")}

// parseDiskstats parses lines of at least 14 fields:
//
//	254 0 vda 679919 61024 28670810 1305435 117136 319237 39145816 465751 0 173496 1825642 ...
//
// major, minor, name, then reads completed, reads merged, sectors read, ms
// reading, writes completed, writes merged, sectors written, ms writing, IOs
// in flight, ms doing IO, weighted ms; kernels 4.18+ add discard and 5.5+
// flush columns, which are ignored. Whole is left for the caller to set.
func parseDiskstats(data []byte, out *Diskstats) error {
	devs := out.Devices[:0]
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		line, data = kernfmt.NextLine(data)
		var majorB, minorB, name []byte
		majorB, line = kernfmt.NextField(line)
		if len(majorB) == 0 {
			continue
		}
		minorB, line = kernfmt.NextField(line)
		name, line = kernfmt.NextField(line)
		major, ok1 := kernfmt.ParseUint(majorB)
		minor, ok2 := kernfmt.ParseUint(minorB)
		if !ok1 || !ok2 || major > 1<<32-1 || minor > 1<<32-1 || len(name) == 0 {
			return parseErr(lineNo, "bad device numbers or name")
		}
		var cols [11]uint64
		for i := range cols {
			var v []byte
			v, line = kernfmt.NextField(line)
			n, ok := kernfmt.ParseUint(v)
			if !ok {
				return parseErr(lineNo, "bad or missing counter")
			}
			cols[i] = n
		}
		if len(devs) < cap(devs) {
			devs = devs[:len(devs)+1]
		} else {
			devs = append(devs, DiskStat{})
		}
		d := &devs[len(devs)-1]
		if d.Name != string(name) {
			d.Name = string(name)
		}
		d.Major, d.Minor = uint32(major), uint32(minor)
		d.Reads, d.SectorsRead = cols[0], cols[2]
		d.Writes, d.SectorsWritten = cols[4], cols[6]
		d.IOTime = time.Duration(cols[9]) * time.Millisecond
		d.Whole = false
		d.Virtual = false
		for _, p := range virtualPrefixes {
			if bytes.HasPrefix(name, p) {
				d.Virtual = true
			}
		}
	}
	out.Devices = devs
	return nil
}
