package proctree

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/hostmetrics/cgroup"
	"github.com/jobtrace/jobtrace/internal/kernfmt"
	"github.com/jobtrace/jobtrace/internal/procstat"
	"github.com/jobtrace/jobtrace/internal/rawfile"
)

// Sample walks the trees under roots and returns their summed usage. roots
// are the job's pid and the pids of orphans that re-parented to the caller;
// a pid reached twice is counted once.
//
// Processes that vanish while they are read are skipped without error, and
// not counted at all, whichever of their files were read before. The
// error joins the problems with single processes (a file that cannot be
// parsed, an unexpected read error); the Usage still sums every process that
// could be read.
func (r *Reader) Sample(roots []int, now time.Time) (Usage, error) {
	if strings.IndexByte(r.root, 0) >= 0 {
		return Usage{Time: now}, fmt.Errorf("proctree: proc root %q holds a NUL byte", r.root)
	}
	r.gen++
	r.procs = r.procs[:0]
	r.exited = Exited{}
	clear(r.errs)
	r.errs = r.errs[:0]
	r.queue = append(r.queue[:0], roots...)
	for i := 0; i < len(r.queue); i++ {
		if pid := r.queue[i]; pid > 0 {
			r.visit(pid, true)
		}
	}
	return r.finish(now)
}

// SampleCgroup is Sample for a job that has a cgroup v2 of its own: the
// job's processes are the roots and the members of cgroupDir and of the
// cgroups below it, listed by their cgroup.procs files, and each is read
// without reading the children files of its threads. The result is the
// walk's, one read of cgroup.procs instead of one read of children per
// thread of every process: a process is in its parent's cgroup from its
// fork, whichever thread forked it, until it is moved out (which needs the
// right to write to another cgroup's cgroup.procs).
//
// Unlike the walk, it does not see a zombie that is not a root: the kernel
// leaves a process whose threads have all exited out of cgroup.procs. Such
// a process, exited but not yet waited for by its parent, is not counted,
// and its CPU and IO, which the kernel adds to its parent's cutime, cstime
// and io at the wait, are counted from then on.
//
// When a cgroup.procs file cannot be read (the cgroup was removed, or is
// threaded), it returns an error wrapping [ErrNoMembers] and no usage, and
// the caller walks instead.
func (r *Reader) SampleCgroup(roots []int, cgroupDir string, now time.Time) (Usage, error) {
	if strings.IndexByte(r.root, 0) >= 0 || strings.IndexByte(cgroupDir, 0) >= 0 {
		return Usage{Time: now}, fmt.Errorf("proctree: path %q or %q holds a NUL byte", r.root, cgroupDir)
	}
	r.queue = append(r.queue[:0], roots...)
	r.dirs = r.dirs[:0]
	if errno := r.listJobMembers(strings.TrimRight(cgroupDir, "/")); errno != 0 {
		return Usage{Time: now}, fmt.Errorf("%w: %s: %w", ErrNoMembers, r.pathString(), errno)
	}
	for i := 0; i < len(r.dirs); i++ {
		if errno := r.listMembers(r.dirs[i]); errno != 0 {
			return Usage{Time: now}, fmt.Errorf("%w: %s: %w", ErrNoMembers, r.pathString(), errno)
		}
	}
	r.gen++
	r.procs = r.procs[:0]
	r.exited = Exited{}
	clear(r.errs)
	r.errs = r.errs[:0]
	for _, pid := range r.queue {
		if pid > 0 {
			r.visit(pid, false)
		}
	}
	return r.finish(now)
}

// jobCgroup holds the job's cgroup's cgroup.procs and cgroup.stat open
// between samples: a sample then reads them with one pread(2) each, and
// lists the cgroups below only when cgroup.stat counts some.
type jobCgroup struct {
	dir         string
	procs, stat *rawfile.File
}

// ownFiles holds the children file of the calling process's main thread
// open between the samples that read it (OwnChildren).
type ownFiles struct {
	children *rawfile.File
}

// Close releases the files the Reader keeps open: the job's cgroup's, the
// calling process's children file and those of the processes (see
// [MaxKeptProcs]). A sample after it opens them again.
func (r *Reader) Close() {
	r.closeJob()
	if r.own.children != nil {
		r.own.children.Close()
	}
	for pid, s := range r.known {
		if s.files != (procFiles{}) {
			r.drop(&s)
			r.known[pid] = s
		}
	}
}

// closeJob closes the job's cgroup's files.
func (r *Reader) closeJob() {
	if r.job.procs != nil {
		r.job.procs.Close()
		r.job.stat.Close()
	}
	r.job = jobCgroup{}
}

// MaxKeptProcs bounds the processes whose files a Reader keeps open from one
// sample to the next: stat, statm and io, and, when it walks the tree, the
// children file of the main thread; at most four descriptors each. A
// process seen again is then read with a pread(2) per file, where opening
// its files by path costs an openat(2) and a close(2) more per file, about
// three times the time. A Reader keeps fewer when the process may open few
// descriptors: the processes' files take at most a quarter of its
// RLIMIT_NOFILE. The processes beyond the bound are read by path at each
// sample, as every process was before; which ones are kept is first come,
// first kept.
//
// A descriptor kept open names the process, not its pid: once the process
// is reaped, a read of it fails with ESRCH, and a new process under the
// same pid is opened by path as a new one.
const MaxKeptProcs = 1024

// procFiles are the kept files of a process, stat, statm, io and its main
// thread's children in that order, each its descriptor plus one (0: not
// open).
type procFiles [4]int32

const (
	fileStat = iota
	fileStatm
	fileIO
	fileChildren // task/<pid>/children
)

var procFileNames = [...]string{fileStat: "stat", fileStatm: "statm", fileIO: "io", fileChildren: "children"}

// keepLimit returns how many processes' files r may keep open.
func (r *Reader) keepLimit() int {
	if r.keepMax == 0 {
		r.keepMax = MaxKeptProcs
		var lim unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Cur/16 < uint64(r.keepMax) {
			r.keepMax = int(lim.Cur / 16)
			if r.keepMax == 0 {
				r.keepMax = -1 // none, and not asked again
			}
		}
	}
	return r.keepMax
}

// drop closes the files kept for s.
func (r *Reader) drop(s *seen) {
	if s.files == (procFiles{}) {
		return
	}
	for _, fd := range s.files {
		if fd != 0 {
			unix.Close(int(fd - 1))
		}
	}
	s.files = procFiles{}
	r.kept--
}

// listJobMembers is listMembers for the job's cgroup dir, through the files
// kept open. The cgroups below it are listed only when its cgroup.stat
// does not say there are none (nr_descendants 0): a cgroup file system
// that has no cgroup.stat (a fixture) is listed.
func (r *Reader) listJobMembers(dir string) unix.Errno {
	if r.job.dir != dir || r.job.procs == nil {
		r.closeJob()
		r.job = jobCgroup{dir: dir, procs: rawfile.NewFile(dir + "/cgroup.procs"), stat: rawfile.NewFile(dir + "/cgroup.stat")}
	}
	r.setDirPath(dir, "cgroup.procs")
	n, _, errno := r.job.procs.ReadAll(&r.buf, false)
	if errno != 0 {
		return errno
	}
	var ok bool
	if r.queue, ok = appendChildren(r.queue, r.buf[:n]); !ok {
		return unix.EINVAL
	}
	if n, _, errno := r.job.stat.ReadAll(&r.buf, false); errno == 0 {
		if d, err := cgroup.ParseDescendants(dir, r.buf[:n]); err == nil && d == 0 {
			return 0
		}
	}
	return r.listBelow(dir)
}

// listMembers appends to r.queue the pids in dir/cgroup.procs and to
// r.dirs the cgroups below dir.
func (r *Reader) listMembers(dir string) unix.Errno {
	r.setDirPath(dir, "cgroup.procs")
	fd, errno := r.open(0)
	if errno != 0 {
		return errno
	}
	n, errno := rawfile.Read(fd, &r.buf, false)
	unix.Close(fd)
	if errno != 0 {
		return errno
	}
	var ok bool
	if r.queue, ok = appendChildren(r.queue, r.buf[:n]); !ok {
		return unix.EINVAL
	}
	return r.listBelow(dir)
}

// listBelow appends to r.dirs the cgroups below dir.
func (r *Reader) listBelow(dir string) unix.Errno {
	r.setDirPath(dir, ".")
	var ok bool
	return r.readDir(func(buf []byte) bool {
		r.dirs, ok = appendSubdirs(r.dirs, dir, buf)
		return ok
	})
}

// errBadDirent is what readDir returns for a record it cannot parse.
const errBadDirent = unix.EBADMSG

// readDir opens the directory r.path and hands each batch of its records
// (a getdents64 result) to parse, which reports whether it could parse it.
func (r *Reader) readDir(parse func(buf []byte) bool) unix.Errno {
	fd, errno := r.open(unix.O_DIRECTORY)
	if errno != 0 {
		return errno
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Getdents(fd, r.buf)
		if err == unix.EINTR {
			continue
		}
		if errno, ok := err.(unix.Errno); ok {
			return errno
		} else if err != nil {
			return unix.EIO
		}
		if n == 0 {
			return 0
		}
		if !parse(r.buf[:n]) {
			return errBadDirent
		}
	}
}

// finish counts as exited the known processes this sample did not see and
// sums the usage of those it saw.
func (r *Reader) finish(now time.Time) (Usage, error) {
	for pid, s := range r.known {
		if s.gen != r.gen {
			r.exited.add(&s.last)
			r.drop(&s)
			delete(r.known, pid)
		}
	}
	u := Usage{Time: now}
	for i := range r.procs {
		u.add(&r.procs[i])
	}
	return u, errors.Join(r.errs...)
}

// Children appends to dst the children of every thread of process pid,
// such as the agent's own pid to find the job and the orphans that
// re-parented to it as a child subreaper. It allocates nothing once its
// buffers have grown.
func (r *Reader) Children(pid int, dst []int) ([]int, error) {
	r.errs = r.errs[:0]
	saved := r.queue
	r.queue = dst
	r.queueChildren(pid, 2, nil)
	dst, r.queue = r.queue, saved
	return dst, errors.Join(r.errs...)
}

// OwnChildren appends to dst the calling process's children that a sample
// takes as roots: job (which any of its threads may have forked) and the
// children of its main thread, to which the kernel re-parents the orphans
// of a child subreaper (the first of its threads that is not exiting; a Go
// program's main thread never exits). One children file is read, kept open
// from one call to the next, where Children opens one per thread; a child
// another thread forked for the caller's own use is not listed. Under the
// proc root /proc it first asks the kernel whether the process has any
// child at all, running or exited and not yet waited for: when it has none
// (an agent before its job starts, and after it was reaped), no file is
// read. Under another root, whose pids may not be the caller's, it is
// Children.
func (r *Reader) OwnChildren(dst []int, job int) ([]int, error) {
	if r.root != "/proc" {
		return r.Children(os.Getpid(), dst)
	}
	if !hasChildren() {
		return dst, nil
	}
	r.errs = r.errs[:0]
	saved := r.queue
	r.queue = dst
	pid := os.Getpid()
	r.setPath(pid, pid, "children")
	if r.own.children == nil {
		r.own.children = rawfile.NewFile(r.pathString())
	}
	if n, _, errno := r.own.children.ReadAll(&r.buf, false); errno != 0 {
		r.fail(errno)
	} else {
		var ok bool
		if r.queue, ok = appendChildren(r.queue, r.buf[:n]); !ok {
			r.failParse()
		}
	}
	if job > 0 && !slices.Contains(r.queue[len(dst):], job) {
		r.queue = append(r.queue, job)
	}
	dst, r.queue = r.queue, saved
	return dst, errors.Join(r.errs...)
}

// hasChildren reports whether the calling process has a child, forked by
// any of its threads, of any kind (__WALL), running, stopped or a zombie:
// waitid(2) with WNOHANG and WNOWAIT neither waits nor reaps, and fails with
// ECHILD only when there is none.
func hasChildren() bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
		if err != unix.EINTR {
			return err != unix.ECHILD
		}
	}
}

// visit reads one process, records it and, when walk is set, queues its
// children.
func (r *Reader) visit(pid int, walk bool) {
	s, had := r.known[pid]
	if had && s.gen == r.gen {
		return
	}
	data, errno := r.readProc(pid, &s, fileStat)
	if errno != 0 {
		r.leave(pid, &s, had)
		r.fail(errno)
		return
	}
	st, ok := procstat.Parse(data)
	if !ok {
		r.leave(pid, &s, had)
		r.failParse()
		return
	}
	if had && s.startTime != st.StartTime {
		// The pid now names another process: the one seen before is gone.
		r.exited.add(&s.last)
		delete(r.known, pid)
		had = false
	}
	if !had || s.comm != string(st.Comm) {
		s.comm = string(st.Comm)
	}
	p := Proc{
		PID:       pid,
		PPID:      st.PPID,
		Comm:      s.comm,
		State:     st.State,
		StartTime: st.StartTime,
		Counts: Counts{
			Threads:     st.Threads,
			CPUUser:     time.Duration(st.UTime) * tick,
			CPUSystem:   time.Duration(st.STime) * tick,
			ChildUser:   time.Duration(st.CUTime) * tick,
			ChildSystem: time.Duration(st.CSTime) * tick,
		},
	}
	if r.readMemory(&p, &s) || r.readIO(&p, &s) {
		// Reaped since its stat was read: its figures are taken whole
		// or not at all. Counted with its CPU and without its IO, it
		// would count as read (Saw) while its IO is in no figure read:
		// its parent, read before, had not reaped it yet.
		r.leave(pid, &s, had)
		return
	}
	if walk {
		r.queueChildren(pid, st.Threads, &s)
	}
	s.gen, s.startTime, s.last = r.gen, st.StartTime, p
	r.known[pid] = s
	r.procs = append(r.procs, p)
}

// readMemory fills p.RSS from statm. It reports whether the process is gone.
func (r *Reader) readMemory(p *Proc, s *seen) (gone bool) {
	data, errno := r.readProc(p.PID, s, fileStatm)
	if errno != 0 {
		return r.fail(errno)
	}
	pages, ok := parseStatm(data)
	if !ok {
		r.failParse()
		return false
	}
	p.RSS = pages * r.pageSize
	return false
}

// readIO fills the IO fields of p from io. A file that cannot be read
// (permission, or no IO accounting in the kernel) leaves p.IOAbsent set, not
// an error. It reports whether the process is gone.
func (r *Reader) readIO(p *Proc, s *seen) (gone bool) {
	data, errno := r.readProc(p.PID, s, fileIO)
	switch errno {
	case 0:
	case unix.EACCES, unix.EPERM:
		p.IOAbsent = true
		return false
	case unix.ESRCH:
		return true
	case unix.ENOENT:
		// Either the process was reaped since its stat was read, or the
		// kernel has no CONFIG_TASK_IO_ACCOUNTING: its stat, read again,
		// tells the two apart.
		if _, errno := r.readProc(p.PID, s, fileStat); errno == unix.ENOENT || errno == unix.ESRCH {
			return true
		}
		p.IOAbsent = true
		return false
	default:
		r.fail(errno)
		p.IOAbsent = true
		return false
	}
	io, ok := parseIO(data)
	if !ok {
		r.failParse()
		p.IOAbsent = true
		return false
	}
	p.ReadBytes, p.WriteBytes = io.readBytes, io.writeBytes
	return false
}

// queueChildren appends to the queue the children of every thread of pid.
// A single-threaded process has one task, pid itself, so its task directory
// is not listed. The main thread's file is read through s, kept open, when
// s is not nil.
func (r *Reader) queueChildren(pid, threads int, s *seen) {
	r.tids = r.tids[:0]
	if threads <= 1 {
		r.tids = append(r.tids, pid)
	} else if !r.listTasks(pid) {
		return
	}
	for _, tid := range r.tids {
		var data []byte
		var errno unix.Errno
		if s != nil && tid == pid {
			data, errno = r.readProc(pid, s, fileChildren)
		} else {
			data, errno = r.read(pid, tid, "children", false)
		}
		if errno != 0 {
			r.fail(errno) // a thread that exited is not an error
			continue
		}
		var ok bool
		if r.queue, ok = appendChildren(r.queue, data); !ok {
			r.failParse()
		}
	}
}

// listTasks fills r.tids with the threads of pid from /proc/<pid>/task.
func (r *Reader) listTasks(pid int) bool {
	r.setPath(pid, 0, "task")
	errno := r.readDir(func(buf []byte) bool {
		var ok bool
		r.tids, ok = appendDirentPIDs(r.tids, buf)
		return ok
	})
	switch errno {
	case 0:
		return true
	case errBadDirent:
		r.failParse()
	default:
		r.fail(errno)
	}
	return false
}

// fail records an error about r.path unless err says that the process or
// thread went away while it was read. It reports whether it did.
func (r *Reader) fail(err error) (gone bool) {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ESRCH) {
		return true
	}
	r.errs = append(r.errs, &os.PathError{Op: "read", Path: r.pathString(), Err: err})
	return false
}

func (r *Reader) failParse() {
	r.errs = append(r.errs, fmt.Errorf("%w: %s", ErrParse, r.pathString()))
}

// setPath sets r.path to root/<pid>/<name>, or root/<pid>/task/<tid>/<name>
// when tid is not zero, NUL-terminated for the open system call.
func (r *Reader) setPath(pid, tid int, name string) {
	p := append(r.path[:0], r.root...)
	p = append(p, '/')
	p = kernfmt.AppendUint(p, uint64(pid))
	if tid != 0 {
		p = append(p, "/task/"...)
		p = kernfmt.AppendUint(p, uint64(tid))
	}
	p = append(p, '/')
	p = append(p, name...)
	r.path = append(p, 0)
}

// setDirPath sets r.path to dir/name, NUL-terminated.
func (r *Reader) setDirPath(dir, name string) {
	p := append(r.path[:0], dir...)
	p = append(p, '/')
	p = append(p, name...)
	r.path = append(p, 0)
}

func (r *Reader) pathString() string { return string(r.path[:len(r.path)-1]) }

// open opens r.path, which ends in NUL, read-only without allocating (see
// package rawfile).
//
// Errors are returned as bare errnos, and wrapped only when they are kept:
// an io file that is not permitted is met at every sample and must not
// allocate.
func (r *Reader) open(flags int) (int, unix.Errno) {
	if r.openHook != nil {
		if errno := r.openHook(r.pathString()); errno != 0 {
			return -1, errno
		}
	}
	return rawfile.Open(r.path, flags)
}

// leave stores s back after a visit of pid that failed: a process known
// from earlier samples keeps its entry (and finish counts it exited if it
// is gone), one seen for the first time is not entered, and its files are
// closed.
func (r *Reader) leave(pid int, s *seen, had bool) {
	if had {
		r.known[pid] = *s
	} else {
		r.drop(s)
	}
}

// readProc returns the content of one of the files of process pid (stat,
// statm, io or its main thread's children) in r.buf, valid until the next
// read. It reads the file kept open in s.files, or opens it by path and
// keeps it open when the process is kept ([MaxKeptProcs]): its stat
// decides, at the first sample that sees it. A kept file whose process was reaped (ESRCH) closes every kept file
// of s, and the path is opened instead: the pid may name a new process,
// which visit tells by its start time.
func (r *Reader) readProc(pid int, s *seen, which int) ([]byte, unix.Errno) {
	whole, tid := true, 0
	if which == fileChildren {
		whole, tid = false, pid
	}
	if fd := s.files[which]; fd != 0 {
		n, errno := rawfile.Read(int(fd-1), &r.buf, whole)
		if errno == 0 {
			return r.buf[:n], 0
		}
		r.drop(s)
		if errno != unix.ESRCH {
			r.setPath(pid, tid, procFileNames[which])
			return nil, errno
		}
	}
	r.setPath(pid, tid, procFileNames[which])
	fd, errno := r.open(0)
	if errno != 0 {
		return nil, errno
	}
	n, errno := rawfile.Read(fd, &r.buf, whole)
	switch {
	case errno != 0:
		unix.Close(fd)
		return nil, errno
	case which == fileStat && s.files == (procFiles{}) && r.kept < r.keepLimit():
		r.kept++
		fallthrough
	case s.files[fileStat] != 0:
		s.files[which] = int32(fd + 1)
	default:
		unix.Close(fd)
	}
	return r.buf[:n], 0
}

// read returns the content of a file of pid (or of its thread tid) in r.buf,
// valid until the next read.
//
// When whole is set, a read shorter than the buffer is taken as the end of
// the file, which saves the second read that would return 0. That holds for
// stat, statm and io, which the kernel writes in one piece (single_open
// seq_files) and hands over entire when the buffer can hold them, and for
// regular files (fixtures). It does not hold for files of many records such
// as children: a read of those returns at most one kernel page of records.
func (r *Reader) read(pid, tid int, name string, whole bool) ([]byte, unix.Errno) {
	r.setPath(pid, tid, name)
	fd, errno := r.open(0)
	if errno != 0 {
		return nil, errno
	}
	n, errno := rawfile.Read(fd, &r.buf, whole)
	unix.Close(fd)
	if errno != 0 {
		return nil, errno
	}
	return r.buf[:n], 0
}
