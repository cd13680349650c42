//go:build illumos

package kstat

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

const devicePath = "/dev/kstat"

// kstatDevice is /dev/kstat, opened read-only, with the two pieces of
// memory the driver reads and writes by address: the kstat_t handed to
// KSTAT_IOC_READ and the data buffer its ks_data points at.
//
// Both are anonymous mmap(2) mappings, not Go memory. The driver keeps their
// addresses across the call (it copies the kstat_t in, writes the data to
// ks_data, then writes the kstat_t back), and the addresses are passed as
// integers, where the garbage collector cannot see them. Memory outside the
// Go heap is never moved or freed by the runtime, so nothing has to be
// pinned or kept alive; the mappings are only unmapped by close, or by grow
// when a larger buffer replaces the data buffer, and the Token's lock keeps
// both from running during a read.
type kstatDevice struct {
	fd   int
	hdr  []byte // the kstat_t passed to the driver: one page
	data []byte // the data buffer: a whole number of pages
}

func openDevice(path string) (device, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	d := &kstatDevice{fd: fd}
	if d.hdr, err = mapAnon(kstatSize); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return d, nil
}

// mapAnon maps at least n bytes of zeroed memory, a whole number of pages.
func mapAnon(n int) ([]byte, error) {
	page := os.Getpagesize()
	n = max(page, (n+page-1)/page*page)
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, os.NewSyscallError("mmap", err)
	}
	return b, nil
}

// grow replaces the data buffer with one of at least n bytes.
func (d *kstatDevice) grow(n int) error {
	b, err := mapAnon(n)
	if err != nil {
		return err
	}
	if d.data != nil {
		unix.Munmap(d.data)
	}
	d.data = b
	return nil
}

func (d *kstatDevice) chainID() (int32, error) {
	kcid, err := unix.IoctlSetIntRetInt(d.fd, kstatIOCChainID, 0)
	if err != nil {
		return 0, os.NewSyscallError("ioctl KSTAT_IOC_CHAIN_ID", err)
	}
	return int32(kcid), nil
}

func (d *kstatDevice) read(h *[kstatSize]byte, size int) (readResult, error) {
	if d.data == nil || len(d.data) < size {
		if err := d.grow(size); err != nil {
			return readResult{}, err
		}
	}
	base := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(d.data))))
	hdr := d.hdr[:kstatSize]
	copy(hdr, h[:])
	le.PutUint64(hdr[offKsData:], base)
	le.PutUint64(hdr[offKsDataSize:], uint64(len(d.data)))
	arg := int(uintptr(unsafe.Pointer(unsafe.SliceData(hdr)))) // mmap'd: see kstatDevice
	kcid, err := unix.IoctlSetIntRetInt(d.fd, kstatIOCRead, arg)
	r := readResult{hdr: hdr, base: base}
	switch err {
	case nil:
	case unix.ENOMEM:
		return r, errTooSmall
	case unix.EAGAIN, unix.EINTR:
		return r, errBusy
	case unix.ENXIO:
		return r, fmt.Errorf("%w (ENXIO)", ErrStale)
	default:
		return r, os.NewSyscallError("ioctl KSTAT_IOC_READ", err)
	}
	n := le.Uint64(hdr[offKsDataSize:])
	if n > uint64(len(d.data)) {
		return r, fmt.Errorf("%w: driver wrote ks_data_size %d for a %d-byte buffer", ErrParse, n, len(d.data))
	}
	r.kcid = int32(kcid)
	r.data = d.data[:n]
	return r, nil
}

func (d *kstatDevice) close() error {
	if d.data != nil {
		unix.Munmap(d.data)
		d.data = nil
	}
	if d.hdr != nil {
		unix.Munmap(d.hdr)
		d.hdr = nil
	}
	return unix.Close(d.fd)
}
