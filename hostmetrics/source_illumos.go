package hostmetrics

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/hostmetrics/illumosproc"
	"github.com/jobtrace/jobtrace/kstat"
)

// illumosSource reads the host from kstats (/dev/kstat, through package
// kstat) and the job's process tree from /proc (illumosproc). The mapping
// of kstat values to a Sample is in illumos_kstat.go and illumos_tree.go;
// this file only reads. What illumos cannot give is found once, by
// NewSource, and named by Unavailable.
type illumosSource struct {
	tok         *kstat.Token // nil when /dev/kstat could not be opened
	pageSize    uint64
	absent      figure
	unavailable string

	// The kstats of the chain as last scanned; scanned is false when the
	// chain must be scanned again (a kstat read said it had gone).
	scanned           bool
	cpuSys, cpuVM     []kstat.KStat
	disks, links      []kstat.KStat
	pages, misc, arc  kstat.KStat
	hasPages, hasMisc bool
	hasARC            bool
	in                illumosKstats // what was read for the sample, reused
	fs                Filesystem

	wdFD   int
	wdPath string

	tree   *illumosproc.Reader
	totals illumosTreeTotals
	treeOK bool // a walk has listed the processes
	last   Tree
	roots  []int
	pacer  walkPacer

	jobState
}

// NewSource returns the source for this system. On illumos it reads
// kstats, cfg.ProcRoot and the file system of cfg.WorkDir. It reads every
// host figure once, to learn which ones this machine (or zone) has no kstat
// for.
func NewSource(cfg Config) (Source, error) {
	cfg.defaults()
	s := &illumosSource{
		pageSize: uint64(os.Getpagesize()),
		absent:   illumosAlwaysAbsent,
		tree:     illumosproc.NewReader(cfg.ProcRoot),
		wdFD:     -1,
		pacer:    walkPacer{budget: TreeBudget, cheapCost: CheapWalkCost, cpu: agentCPU},
	}
	var errs []error
	if tok, err := kstat.Open(); err != nil {
		errs = append(errs, err)
		s.absent |= figCPU | figNumCPU | figMemory | figCached | figPaging | figDisk | figDiskBusy | figNet | figLoad
	} else {
		s.tok = tok
		var probe Host
		s.readHost(&probe, nil)
	}
	s.unavailable = illumosUnavailable(s.absent)
	if cfg.WorkDir != "" {
		fd, err := unix.Open(cfg.WorkDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			errs = append(errs, &os.PathError{Op: "open", Path: cfg.WorkDir, Err: err})
		} else {
			s.wdFD, s.wdPath = fd, cfg.WorkDir
		}
	}
	return s, errors.Join(errs...)
}

func (s *illumosSource) Unavailable() string { return s.unavailable }

func (s *illumosSource) Close() error {
	var err error
	if s.tok != nil {
		err = s.tok.Close()
		s.tok = nil
	}
	if s.wdFD >= 0 {
		unix.Close(s.wdFD)
		s.wdFD = -1
	}
	return err
}

func (s *illumosSource) Read(out *Sample) error {
	var errs []error
	s.readHost(&out.Host, &errs)
	s.readJob(out, &errs)
	return errors.Join(errs...)
}

// want tells whether figure f is read on this machine.
func (s *illumosSource) want(f figure) bool { return s.absent&f == 0 }

// missing is called when the chain has no kstat for figure f. During the
// probe (errs nil) that makes f absent from then on; later it leaves the
// figure out of this sample only.
func (s *illumosSource) missing(f figure, errs *[]error) {
	if errs == nil {
		s.absent |= f
	}
}

// failed records a kstat read that failed. A kstat that has gone (a CPU
// taken off line, a link deleted) is no problem: the chain is scanned again
// at the next sample.
func (s *illumosSource) failed(err error, errs *[]error) {
	if errors.Is(err, kstat.ErrStale) {
		s.scanned = false
		return
	}
	if errs != nil {
		*errs = append(*errs, err)
	}
}

// scan finds the kstats read in the chain.
func (s *illumosSource) scan() {
	s.cpuSys, s.cpuVM, s.disks, s.links = s.cpuSys[:0], s.cpuVM[:0], s.disks[:0], s.links[:0]
	for _, k := range s.tok.All() {
		switch {
		case k.Module == ksModCPU && k.Name == ksNameCPUSys && k.Type == kstat.TypeNamed:
			s.cpuSys = append(s.cpuSys, k)
		case k.Module == ksModCPU && k.Name == ksNameCPUVM && k.Type == kstat.TypeNamed:
			s.cpuVM = append(s.cpuVM, k)
		case k.Class == ksClassDisk && k.Type == kstat.TypeIO:
			s.disks = append(s.disks, k)
		case k.Module == ksModLink && k.Type == kstat.TypeNamed:
			s.links = append(s.links, k)
		}
	}
	s.pages, s.hasPages = s.tok.Lookup(ksModUnix, 0, ksNamePages)
	s.misc, s.hasMisc = s.tok.Lookup(ksModUnix, 0, ksNameMisc)
	s.arc, s.hasARC = s.tok.Lookup(ksModZFS, 0, ksNameARC)
	s.scanned = true
}

// readNamed reads the named kstats kss into dst (reused).
func (s *illumosSource) readNamed(kss []kstat.KStat, dst []illumosNamed, errs *[]error) []illumosNamed {
	dst = dst[:0]
	for _, k := range kss {
		ns, err := s.tok.ReadNamed(k)
		if err != nil {
			s.failed(err, errs)
			continue
		}
		dst = append(dst, illumosNamed{KStat: k, Values: ns})
	}
	return dst
}

// readHost reads the host figures. errs is nil during the probe of
// NewSource.
func (s *illumosSource) readHost(h *Host, errs *[]error) {
	k := &s.in
	*k = illumosKstats{
		CPUs: k.CPUs[:0], VMs: k.VMs[:0], Disks: k.Disks[:0], Links: k.Links[:0],
		PageSize: s.pageSize,
	}
	if s.tok != nil {
		s.readKstats(k, errs)
	}
	if s.wdFD >= 0 {
		var st unix.Statvfs_t
		if err := unix.Fstatvfs(s.wdFD, &st); err != nil {
			if errs != nil {
				*errs = append(*errs, &os.PathError{Op: "statvfs", Path: s.wdPath, Err: err})
			}
		} else {
			frsize := st.Frsize
			if frsize == 0 {
				frsize = st.Bsize
			}
			s.fs = illumosFilesystem(s.wdPath, frsize, st.Blocks, st.Bfree, st.Bavail)
			k.FS = &s.fs
		}
	}
	if err := illumosHost(k, h); err != nil && errs != nil {
		*errs = append(*errs, err)
	}
}

// readKstats reads into k the kstats of the figures wanted. A group the
// chain has no kstat for is left nil; during the probe that makes its
// figure absent from then on.
func (s *illumosSource) readKstats(k *illumosKstats, errs *[]error) {
	if changed, err := s.tok.Update(); err != nil {
		s.failed(err, errs)
	} else if changed {
		s.scanned = false
	}
	if !s.scanned {
		s.scan()
	}
	named := func(ks kstat.KStat) illumosNamed {
		ns, err := s.tok.ReadNamed(ks)
		if err != nil {
			s.failed(err, errs)
			return illumosNamed{}
		}
		return illumosNamed{KStat: ks, Values: ns}
	}

	switch {
	case !s.want(figCPU):
	case len(s.cpuSys) == 0:
		s.missing(figCPU|figNumCPU, errs)
	default:
		k.CPUs = s.readNamed(s.cpuSys, k.CPUs, errs)
	}

	switch {
	case !s.want(figMemory):
	case !s.hasPages:
		s.missing(figMemory, errs)
	default:
		k.Pages = named(s.pages)
		if s.hasARC {
			k.ARC = named(s.arc).Values
		} else {
			s.missing(figCached, errs)
		}
	}

	switch {
	case !s.want(figPaging):
	case len(s.cpuVM) == 0:
		s.missing(figPaging, errs)
	default:
		k.VMs = s.readNamed(s.cpuVM, k.VMs, errs)
	}

	switch {
	case !s.want(figDisk):
		k.Disks = nil
	case len(s.disks) == 0:
		s.missing(figDisk|figDiskBusy, errs)
		k.Disks = nil
	default:
		for _, ks := range s.disks {
			io, err := s.tok.ReadIO(ks)
			if err != nil {
				s.failed(err, errs)
				continue
			}
			k.Disks = append(k.Disks, illumosDisk{Module: ks.Module, Name: ks.Name, IO: io})
		}
		if len(k.Disks) == 0 {
			k.Disks = nil // none could be read: absent, not zero
		}
	}

	switch {
	case !s.want(figNet):
		k.Links = nil
	case len(s.links) == 0:
		s.missing(figNet, errs)
		k.Links = nil
	default:
		k.Links = s.readNamed(s.links, k.Links, errs)
		if len(k.Links) == 0 {
			k.Links = nil
		}
	}

	switch {
	case !s.want(figLoad):
	case !s.hasMisc:
		s.missing(figLoad, errs)
	default:
		k.Misc = named(s.misc)
	}
}

func (s *illumosSource) readJob(out *Sample, errs *[]error) {
	j := &out.Job
	j.HasCgroup, j.CgroupOwn, j.CgroupDir = false, false, ""
	if !s.pacer.due(out.Reason, out.Time) {
		j.HasTree, j.Tree = s.treeOK, s.last // too soon for this tree: the last walk stands
		return
	}
	gone := func(pid int) bool { return unix.Kill(pid, 0) == unix.ESRCH }
	job, _, exited := s.current(gone)

	began := s.pacer.start()
	s.roots = s.roots[:0]
	if job > 0 {
		s.roots = append(s.roots, job)
	}
	u, err := s.tree.Sample(s.roots, out.Time)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("process tree: %w", err))
	}
	if !errors.Is(err, illumosproc.ErrList) {
		read := slices.ContainsFunc(s.tree.Procs(), func(p illumosproc.Proc) bool { return p.PID == job })
		exited = s.exitedAfterWalk(job, read, exited, gone)
		s.last = s.totals.tree(u, exited, len(s.roots), out.Time)
		s.treeOK = true
	}
	s.pacer.done(began, out.Time, u.Processes)
	j.HasTree, j.Tree = s.treeOK, s.last
}

// SetSubreaper does nothing: only Linux has child subreapers.
func SetSubreaper() error { return nil }

// IsSubreaper is false: only Linux has child subreapers.
func IsSubreaper() (bool, error) { return false, nil }
