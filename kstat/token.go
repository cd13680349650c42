package kstat

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"
)

// Retry bounds of a read.
//
// EAGAIN comes from a kstat whose provider has not finished installing it,
// or from a kernel that could not allocate the snapshot without sleeping;
// both clear within milliseconds, so a read waits busyPause and tries
// again. ENOMEM comes from a buffer smaller than the data: it is grown to the
// size the driver reports, with headroom (growHeadroom) for a chain that
// grows between two reads. maxAttempts bounds both, so a read never stalls
// the sampler for more than about maxAttempts × busyPause.
const (
	maxAttempts  = 8
	busyPause    = 5 * time.Millisecond
	growHeadroom = 8       // grow to need + need/growHeadroom
	maxDataSize  = 1 << 28 // 256 MiB: a larger size is taken for garbage
)

var (
	// errTooSmall is the driver's ENOMEM: the buffer is smaller than the
	// data, whose size it wrote into ks_data_size.
	errTooSmall = errors.New("buffer too small")
	// errBusy is the driver's EAGAIN (or an interrupted call): try again.
	errBusy = errors.New("kstat busy")
)

// device is /dev/kstat as a Token uses it: device_illumos.go implements it
// with ioctls, the tests with a fake kernel.
type device interface {
	// chainID returns the kstat chain id (KSTAT_IOC_CHAIN_ID).
	chainID() (int32, error)
	// read does one KSTAT_IOC_READ of the kstat whose header is hdr, into
	// a buffer of at least size bytes. It returns errTooSmall, errBusy,
	// an error wrapping ErrStale, or another error; with errTooSmall,
	// result.hdr holds the size the driver needs.
	read(hdr *[kstatSize]byte, size int) (readResult, error)
	close() error
}

// readResult is what one KSTAT_IOC_READ gives back. hdr and data are the
// device's buffers: valid until its next read.
type readResult struct {
	kcid int32  // the chain id the driver returned
	hdr  []byte // the kstat_t, as the driver wrote it back
	data []byte // the data section, ks_data_size bytes
	base uint64 // the address data was at, for KSTAT_DATA_STRING pointers
}

// Token is an open /dev/kstat and the kstat chain as last read from it. Its
// methods may be called from several goroutines: they take turns.
type Token struct {
	mu    sync.Mutex
	dev   device // nil once closed
	kcid  int32
	list  []KStat
	index map[key]int // module:instance:name → position in list
	sleep func(time.Duration)
}

type key struct {
	module   string
	instance int
	name     string
}

// Open opens /dev/kstat and reads the kstat chain. On systems other than
// illumos it returns an error that wraps ErrUnsupported.
func Open() (*Token, error) {
	dev, err := openDevice(devicePath)
	if err != nil {
		return nil, err
	}
	return open(dev)
}

func open(dev device) (*Token, error) {
	t := &Token{dev: dev, sleep: time.Sleep}
	if err := t.scan(); err != nil {
		dev.close()
		return nil, err
	}
	return t, nil
}

// Close releases /dev/kstat and the read buffers. The KStat values read
// stay usable as values; reads fail.
func (t *Token) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dev == nil {
		return nil
	}
	err := t.dev.close()
	t.dev = nil
	return err
}

var errClosed = fmt.Errorf("kstat: %w", os.ErrClosed)

// Update asks the kernel for the chain id and, when it differs from the one
// the headers were read at, reads the headers again. changed says whether it
// did: KStat values kept from before are still valid for the kstats that
// remain (their IDs do not change); those of kstats that went away now read
// as ErrStale.
func (t *Token) Update() (changed bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dev == nil {
		return false, errClosed
	}
	id, err := t.dev.chainID()
	if err != nil {
		return false, err
	}
	if id == t.kcid {
		return false, nil
	}
	if err := t.scan(); err != nil {
		return false, err
	}
	return true, nil
}

// scan reads the headers, the data of kstat 0, and the chain id they were
// read at. The first read is made with whatever buffer there is; the
// driver's ENOMEM says how large the list is.
func (t *Token) scan() error {
	var hdr0 [kstatSize]byte // ks_kid 0: the header list
	r, err := t.read(&hdr0, "kstat chain (unix:0:kstat_headers)")
	if err != nil {
		return err
	}
	list, err := parseHeaders(r.data, decodeHeaderInfo(r.hdr).ndata)
	if err != nil {
		return err
	}
	index := make(map[key]int, len(list))
	for i, k := range list {
		kk := key{k.Module, k.Instance, k.Name}
		if _, dup := index[kk]; !dup {
			index[kk] = i
		}
	}
	t.kcid, t.list, t.index = r.kcid, list, index
	return nil
}

// read reads one kstat's data, growing the buffer on ENOMEM and waiting on
// EAGAIN, within maxAttempts. what names the kstat in errors.
func (t *Token) read(hdr *[kstatSize]byte, what string) (readResult, error) {
	if t.dev == nil {
		return readResult{}, errClosed
	}
	size := int(min(le.Uint64(hdr[offKsDataSize:]), maxDataSize))
	var last error
	for range maxAttempts {
		r, err := t.dev.read(hdr, size)
		switch {
		case err == nil:
			return r, nil
		case errors.Is(err, errTooSmall):
			need := le.Uint64(r.hdr[offKsDataSize:])
			if need <= uint64(size) { // the driver asks for less than it had: be generous
				need = uint64(size) * 2
			}
			if need > maxDataSize {
				return readResult{}, fmt.Errorf("%w: %s: driver asks for a %d-byte buffer", ErrParse, what, need)
			}
			size = int(need + need/growHeadroom)
		case errors.Is(err, errBusy):
			t.sleep(busyPause)
		default:
			return readResult{}, fmt.Errorf("kstat: read %s: %w", what, err)
		}
		last = err
	}
	return readResult{}, fmt.Errorf("kstat: read %s: still %v after %d attempts", what, last, maxAttempts)
}

// header returns the kstat_t to hand back for ks.
func header(ks KStat) *[kstatSize]byte {
	if ks.hdr != nil {
		return ks.hdr
	}
	var h [kstatSize]byte
	le.PutUint32(h[offKsKid:], uint32(ks.ID))
	h[offKsType] = byte(ks.Type)
	return &h
}

// All returns the headers of every kstat in the chain, in increasing ID
// order, as of the last Open or Update.
func (t *Token) All() []KStat {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.list)
}

// Lookup returns the kstat module:instance:name. An instance of -1 matches
// any instance and an empty name any name: then the first match, in ID
// order, is returned.
func (t *Token) Lookup(module string, instance int, name string) (KStat, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if instance >= 0 && name != "" {
		i, ok := t.index[key{module, instance, name}]
		if !ok {
			return KStat{}, false
		}
		return t.list[i], true
	}
	for _, k := range t.list {
		if k.Module == module && (instance < 0 || k.Instance == instance) && (name == "" || k.Name == name) {
			return k, true
		}
	}
	return KStat{}, false
}

// Find returns the kstats for which f is true, in ID order: for instance
// all of class "disk", or all of module "link".
func (t *Token) Find(f func(KStat) bool) []KStat {
	t.mu.Lock()
	list := t.list
	t.mu.Unlock()
	var out []KStat
	for _, k := range list { // list is never changed in place: safe unlocked
		if f(k) {
			out = append(out, k)
		}
	}
	return out
}

// ReadNamed reads the values of a named kstat.
func (t *Token) ReadNamed(ks KStat) ([]Named, error) {
	ns, _, err := t.readNamed(ks)
	return ns, err
}

func (t *Token) readNamed(ks KStat) ([]Named, headerInfo, error) {
	if ks.Type != TypeNamed {
		return nil, headerInfo{}, fmt.Errorf("kstat: %s is a %s kstat, not named", ks, ks.Type)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r, err := t.read(header(ks), ks.String())
	if err != nil {
		return nil, headerInfo{}, err
	}
	info := decodeHeaderInfo(r.hdr)
	ns, err := parseNamed(r.data, info.ndata, r.base)
	if err != nil {
		return nil, info, fmt.Errorf("%w (%s)", err, ks)
	}
	return ns, info, nil
}

// ReadIO reads the counters of an I/O kstat.
func (t *Token) ReadIO(ks KStat) (IO, error) {
	io, _, err := t.readIO(ks)
	return io, err
}

func (t *Token) readIO(ks KStat) (IO, headerInfo, error) {
	if ks.Type != TypeIO {
		return IO{}, headerInfo{}, fmt.Errorf("kstat: %s is a %s kstat, not io", ks, ks.Type)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r, err := t.read(header(ks), ks.String())
	if err != nil {
		return IO{}, headerInfo{}, err
	}
	info := decodeHeaderInfo(r.hdr)
	io, err := parseIO(r.data)
	if err != nil {
		return IO{}, info, fmt.Errorf("%w (%s)", err, ks)
	}
	return io, info, nil
}
