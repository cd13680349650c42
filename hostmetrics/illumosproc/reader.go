package illumosproc

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Usage sums the processes of the tree at one sample.
type Usage struct {
	// Time is the time given to Sample.
	Time time.Time
	// Processes counts the processes found, zombies included; Threads sums
	// their lwps.
	Processes, Threads int
	// CPUUser and CPUSystem sum the processes' own CPU time (a zombie's
	// includes its reaped children's).
	CPUUser, CPUSystem time.Duration
	// ChildUser and ChildSystem sum the CPU time of the children that the
	// live processes have reaped. Added to CPUUser and CPUSystem, and to
	// what wait reported for the roots, they give the tree's CPU since it
	// started, exited descendants included (see the package doc).
	ChildUser, ChildSystem time.Duration
	// ChildUnsplit is the part of ChildUser that is really user and system
	// time together: that of processes whose status could not be read
	// (another user's, such as a set-uid program), whose pr_ctime is
	// counted as user time.
	ChildUnsplit time.Duration
	// RSS sums the resident set sizes, in bytes. Pages shared between
	// processes are counted once per process.
	RSS uint64
	// The sums of the processes' own counts from usage; see Prusage.
	MinorFaults, MajorFaults uint64
	InBlocks, OutBlocks      uint64
	IOChars                  uint64
}

// Proc is the detail of one process of the tree at a sample.
type Proc struct {
	Psinfo
	// Prusage is the process's own usage. When usage could not be read
	// but psinfo could, User holds psinfo's pr_time and System is zero.
	Prusage
	// ChildUser and ChildSystem are the CPU time of the children the
	// process has reaped, from status; zero for a process that has
	// exited, whose usage holds them.
	ChildUser, ChildSystem time.Duration
	// ChildUnsplit is set when status could not be read: ChildUser is then
	// psinfo's pr_ctime, user and system time together.
	ChildUnsplit bool
}

// Reader samples process trees under an illumos proc root. A Reader is not
// safe for concurrent use.
type Reader struct {
	root  string
	buf   []byte
	table []Psinfo     // every process listed, sorted by parent
	seen  map[int]bool // pids queued in this sample
	queue []int        // indices in table, breadth-first
	procs []Proc
	errs  []error
}

// NewReader returns a Reader of the proc file system mounted at procRoot,
// "/proc" on illumos, or a directory laid out like it.
func NewReader(procRoot string) *Reader {
	return &Reader{
		root: strings.TrimRight(procRoot, "/"),
		buf:  make([]byte, 1024), // larger than any structure read
		seen: map[int]bool{},
	}
}

// Procs returns the detail of each process counted by the last Sample, in
// the order they were visited (breadth-first from the roots). The slice is
// reused by the next Sample.
func (r *Reader) Procs() []Proc { return r.procs }

// Sample lists the processes under the proc root, walks the trees below
// roots, and returns their summed usage. A pid reached twice is counted
// once. A process that vanishes while it is read is left out without error.
// The error joins the problems met with single processes; the Usage still
// sums every process that could be read. When the proc root cannot be
// listed, the Usage counts nothing and the error, which wraps ErrList, says
// why: the caller should keep its previous figures rather than take the
// tree for empty. With no roots, nothing is read.
func (r *Reader) Sample(roots []int, now time.Time) (Usage, error) {
	r.procs = r.procs[:0]
	clear(r.errs)
	r.errs = r.errs[:0]
	if len(roots) == 0 {
		return Usage{Time: now}, nil
	}
	if err := r.list(); err != nil {
		return Usage{Time: now}, err
	}
	r.walk(roots)
	for _, i := range r.queue {
		r.visit(&r.table[i])
	}
	u := Usage{Time: now}
	for i := range r.procs {
		u.add(&r.procs[i])
	}
	return u, errors.Join(r.errs...)
}

// list reads the psinfo of every process under the root into r.table,
// sorted by parent.
func (r *Reader) list() error {
	dir, err := os.Open(r.root + "/")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrList, err)
	}
	names, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrList, r.root, err)
	}
	r.table = r.table[:0]
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid < 0 {
			continue // self, and anything that is not a process
		}
		path := r.root + "/" + name + "/psinfo"
		n, err := readInto(path, r.buf)
		if err != nil {
			if !gone(err) {
				r.errs = append(r.errs, err)
			}
			continue
		}
		var p Psinfo
		if err := parsePsinfo(r.buf[:n], &p); err != nil {
			r.errs = append(r.errs, withPath(err, path))
			continue
		}
		if p.PID != pid {
			r.errs = append(r.errs, fmt.Errorf("%s: %w: pr_pid is %d", path, ErrParse, p.PID))
			continue
		}
		r.table = append(r.table, p)
	}
	slices.SortFunc(r.table, func(a, b Psinfo) int {
		if c := cmp.Compare(a.PPID, b.PPID); c != 0 {
			return c
		}
		return cmp.Compare(a.PID, b.PID)
	})
	return nil
}

// walk fills r.queue with the table indices of the roots and of their
// descendants, breadth-first. The table is sorted by parent, so the
// children of a process are one run found by binary search.
func (r *Reader) walk(roots []int) {
	r.queue = r.queue[:0]
	clear(r.seen)
	for _, pid := range roots {
		if r.seen[pid] {
			continue
		}
		if i := slices.IndexFunc(r.table, func(p Psinfo) bool { return p.PID == pid }); i >= 0 {
			r.seen[pid] = true
			r.queue = append(r.queue, i)
		}
	}
	for k := 0; k < len(r.queue); k++ {
		parent := r.table[r.queue[k]].PID
		j, _ := slices.BinarySearchFunc(r.table, parent, func(p Psinfo, ppid int) int { return cmp.Compare(p.PPID, ppid) })
		for ; j < len(r.table) && r.table[j].PPID == parent; j++ {
			// A process that is its own parent (the scheduler, pid 0)
			// is not followed twice.
			if pid := r.table[j].PID; pid != parent && !r.seen[pid] {
				r.seen[pid] = true
				r.queue = append(r.queue, j)
			}
		}
	}
}

// visit reads the usage, and the status where needed, of one process of the
// tree and appends it to r.procs.
func (r *Reader) visit(ps *Psinfo) {
	base := r.root + "/" + strconv.Itoa(ps.PID)
	p := Proc{Psinfo: *ps}
	path := base + "/usage"
	n, err := readInto(path, r.buf)
	if err == nil {
		err = withPath(parsePrusage(r.buf[:n], &p.Prusage), path)
	}
	switch {
	case err == nil:
	case gone(err):
		// Reaped since the listing: its time is now its parent's,
		// whose figures were read before; the next sample has it.
		return
	default:
		r.errs = append(r.errs, err)
		p.Prusage = Prusage{User: ps.Time}
	}
	if ps.Zombie() || p.Exited || ps.ChildTime == 0 {
		r.procs = append(r.procs, p)
		return
	}
	path = base + "/status"
	n, err = readInto(path, r.buf[:pstatusPrefix])
	var st Pstatus
	if err == nil {
		err = withPath(parsePstatus(r.buf[:n], &st), path)
	}
	if err == nil && st.PID != ps.PID {
		err = fmt.Errorf("%s: %w: pr_pid is %d", path, ErrParse, st.PID)
	}
	if err == nil {
		p.ChildUser, p.ChildSystem = st.ChildUser, st.ChildSystem
	} else {
		// Another user's process, or one that has just exited (its
		// status is gone before its psinfo): pr_ctime stands in whole.
		if !gone(err) && !errors.Is(err, fs.ErrPermission) {
			r.errs = append(r.errs, err)
		}
		p.ChildUser, p.ChildUnsplit = ps.ChildTime, true
	}
	r.procs = append(r.procs, p)
}

func (u *Usage) add(p *Proc) {
	u.Processes++
	u.Threads += p.LWPs
	u.CPUUser += p.User
	u.CPUSystem += p.System
	u.ChildUser += p.ChildUser
	u.ChildSystem += p.ChildSystem
	if p.ChildUnsplit {
		u.ChildUnsplit += p.ChildUser
	}
	u.RSS += p.RSS
	u.MinorFaults += p.MinorFaults
	u.MajorFaults += p.MajorFaults
	u.InBlocks += p.InBlocks
	u.OutBlocks += p.OutBlocks
	u.IOChars += p.IOChars
}

// readInto reads the file at path into buf, up to len(buf) bytes: the /proc
// files read here are structures the kernel copies in one piece, and a
// prefix of them is all that is asked for status.
func readInto(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err == io.EOF || (err == nil && m == 0) {
			break
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// gone tells whether err says that the process no longer exists.
func gone(err error) bool { return errors.Is(err, fs.ErrNotExist) }

func withPath(err error, path string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", path, err)
}
