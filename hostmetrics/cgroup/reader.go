package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/jobtrace/jobtrace/hostmetrics/procfs"
	"github.com/jobtrace/jobtrace/internal/cgrouptree"
	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

// The files a Reader reads, in order. Each one that does not exist leaves
// its fields absent.
const (
	fileCPUStat = iota
	fileMemoryCurrent
	fileMemoryPeak
	fileMemoryEvents
	fileIOStat
	fileCPUPressure
	fileMemoryPressure
	fileIOPressure
	numStatFiles
	// fileControllers, read first, lists the controllers enabled in the
	// cgroup: the files of the others are not there.
	fileControllers = numStatFiles
	// fileEvents says whether the cgroup is populated (Populated).
	fileEvents = numStatFiles + 1
	numFiles   = numStatFiles + 2
)

var fileNames = [numFiles]string{
	fileCPUStat:        "cpu.stat",
	fileMemoryCurrent:  "memory.current",
	fileMemoryPeak:     "memory.peak",
	fileMemoryEvents:   "memory.events",
	fileIOStat:         "io.stat",
	fileCPUPressure:    "cpu.pressure",
	fileMemoryPressure: "memory.pressure",
	fileIOPressure:     "io.pressure",
	fileControllers:    "cgroup.controllers",
	fileEvents:         "cgroup.events",
}

// controllers is a set of the controllers whose files a Reader reads.
type controllers uint8

const (
	ctlMemory controllers = 1 << iota
	ctlIO
	// anyController is every one: what is assumed of a directory whose
	// cgroup.controllers cannot be read.
	anyController = ctlMemory | ctlIO
)

// fileController is the controller that makes each file; 0 for the files
// every cgroup v2 directory has (cpu.stat and the pressure files, which the
// kernel makes without a controller).
var fileController = [numStatFiles]controllers{
	fileMemoryCurrent: ctlMemory,
	fileMemoryPeak:    ctlMemory,
	fileMemoryEvents:  ctlMemory,
	fileIOStat:        ctlIO,
}

// parseControllers reads cgroup.controllers: the names of the controllers
// enabled in the cgroup, separated by spaces. Names the Reader has no file
// of are ignored.
func parseControllers(data []byte) controllers {
	var c controllers
	for {
		var f []byte
		f, data = kernfmt.NextField(data)
		if len(f) == 0 {
			return c
		}
		switch string(f) {
		case "memory":
			c |= ctlMemory
		case "io":
			c |= ctlIO
		}
	}
}

// initialBuf fits every file above on a typical host in one read: memory.stat,
// the longest, is about 1.5 KiB on Linux 6.x, and io.stat is about 80 bytes
// per device. The buffer grows when a file is longer and is kept.
const initialBuf = 8 << 10

// Reader reads the statistics files of one cgroup v2 directory. It keeps the
// file paths, the files it has read open (on Linux) and a buffer, so that
// reading again allocates nothing and opens nothing; Close closes the files.
// A Reader is not safe for concurrent use.
type Reader struct {
	dir   string
	paths [numFiles]string
	files openFiles
	buf   []byte

	// readHook, when set (by tests), is called on Linux with the path of
	// each file read; an errno other than 0 is taken as the read's, for
	// the errors of a kernel a test cannot have (EOPNOTSUPP from a
	// pressure file with PSI disabled at boot, before Linux 6.1).
	readHook func(path string) syscall.Errno
}

// NewReader returns a Reader for the cgroup directory dir, such as
// /sys/fs/cgroup/ci.slice/job-42 (or a fixture tree).
func NewReader(dir string) *Reader {
	r := &Reader{dir: dir, buf: make([]byte, initialBuf)}
	for i, name := range fileNames {
		p := filepath.Join(dir, name)
		r.paths[i] = p
	}
	return r
}

// Dir returns the directory the Reader reads.
func (r *Reader) Dir() string { return r.dir }

// Read fills s with what the directory's files say; s is reset first, so a
// field of a file that does not exist is left absent. Read returns the
// per-file errors joined (unreadable or malformed files) and still fills in
// every other file. When no file at all exists, which happens when the
// directory is not a cgroup v2 directory or the cgroup was removed, the
// error wraps fs.ErrNotExist.
func (r *Reader) Read(s *Stats) error {
	*s = Stats{}
	var errs []error
	found := 0
	enabled := r.controllers()
	for i := range numStatFiles {
		if c := fileController[i]; c != 0 && enabled&c == 0 {
			// Its controller is not enabled here: the kernel made no
			// such file, and looking for it costs a failed open.
			continue
		}
		data, err := r.readFile(i)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		found++
		if err := r.parse(i, data, s); err != nil {
			errs = append(errs, err)
		}
	}
	if found == 0 && len(errs) == 0 {
		return fmt.Errorf("cgroup: no statistics file in %s: %w", r.dir, fs.ErrNotExist)
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}

// controllers returns the controllers enabled in the cgroup, from its
// cgroup.controllers, read again at every Read, since a controller may be
// enabled or disabled while the cgroup lives; every one when the file
// cannot be read (not a cgroup v2 directory, or a fixture without it).
func (r *Reader) controllers() controllers {
	data, err := r.readFile(fileControllers)
	if err != nil {
		return anyController
	}
	return parseControllers(data)
}

// Populated reads the cgroup's cgroup.events: whether a process is in the
// cgroup or in a cgroup below it. ok is false when that cannot be told (no
// such file: not a cgroup v2 directory, or the root cgroup).
func (r *Reader) Populated() (populated, ok bool) {
	data, err := r.readFile(fileEvents)
	if err != nil {
		return false, false
	}
	return cgrouptree.ParsePopulated(data)
}

func (r *Reader) parse(i int, data []byte, s *Stats) error {
	p := r.paths[i]
	var err error
	switch i {
	case fileCPUStat:
		err = parseCPUStat(p, data, &s.CPU)
	case fileMemoryCurrent:
		s.MemoryCurrent, err = parseSingle(p, data)
	case fileMemoryPeak:
		s.MemoryPeak, err = parseSingle(p, data)
	case fileMemoryEvents:
		err = parseMemoryEvents(p, data, &s.MemoryEvents)
	case fileIOStat:
		err = parseIOStat(p, data, &s.IO)
	case fileCPUPressure:
		err = readPressure(p, data, &s.CPUPressure)
	case fileMemoryPressure:
		err = readPressure(p, data, &s.MemoryPressure)
	case fileIOPressure:
		err = readPressure(p, data, &s.IOPressure)
	}
	return err
}

// ReadDir reads the cgroup directory dir into s once, for a cgroup that is
// read only now and then (such as jobtrace's own, from SelfDir). To read the
// same directory again and again, keep a Reader: it allocates nothing.
func ReadDir(dir string, s *Stats) error {
	r := NewReader(dir)
	defer r.Close()
	return r.Read(s)
}

// readPressure parses a pressure file with the parser of the host's
// /proc/pressure files, which have the same form.
func readPressure(path string, data []byte, out *Pressure) error {
	if err := procfs.ParsePressure(data, out); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrParse, path, err)
	}
	return nil
}
