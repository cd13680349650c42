package illumosproc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// ErrParse is wrapped, with the path, in the errors about a /proc file
// whose content could not be decoded.
var ErrParse = errors.New("illumosproc: parse")

// ErrList is wrapped by the error of a Sample that could not list the
// processes at all: it counted nothing, which does not mean the tree is
// empty.
var ErrList = errors.New("illumosproc: cannot list the processes")

// byteOrder is that of the structures: illumos runs little-endian on every
// architecture Go supports for it (amd64, and arm64 on ports that have it).
var byteOrder = binary.LittleEndian

// decoder reads fixed-offset fields of one structure, remembering the first
// field that did not make sense.
type decoder struct {
	b   []byte
	bad string // name of the first bad field, "" when all were good
}

func (d *decoder) int32(off int) int32 { return int32(byteOrder.Uint32(d.b[off:])) }

func (d *decoder) uint64(off int) uint64 { return byteOrder.Uint64(d.b[off:]) }

// duration decodes a timestruc_t that holds a length of time.
func (d *decoder) duration(off int, name string) time.Duration {
	sec, nsec := int64(d.uint64(off)), int64(d.uint64(off+8))
	if sec < 0 || nsec < 0 || nsec >= int64(time.Second) || sec > int64(1<<63-1)/int64(time.Second)-1 {
		d.fail(name)
		return 0
	}
	return time.Duration(sec)*time.Second + time.Duration(nsec)
}

// instant decodes a timestruc_t that holds a time since the epoch; all
// zeros (as for a zombie) is the zero Time.
func (d *decoder) instant(off int, name string) time.Time {
	sec, nsec := int64(d.uint64(off)), int64(d.uint64(off+8))
	if sec == 0 && nsec == 0 {
		return time.Time{}
	}
	if nsec < 0 || nsec >= int64(time.Second) {
		d.fail(name)
		return time.Time{}
	}
	return time.Unix(sec, nsec)
}

func (d *decoder) fail(name string) {
	if d.bad == "" {
		d.bad = name
	}
}

func (d *decoder) err(what string) error {
	if d.bad == "" {
		return nil
	}
	return fmt.Errorf("%w: %s: bad %s", ErrParse, what, d.bad)
}

func sizeErr(what string, got, want int) error {
	return fmt.Errorf("%w: %s: %d bytes, want at least %d", ErrParse, what, got, want)
}
