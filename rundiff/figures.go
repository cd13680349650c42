package rundiff

import (
	"math"

	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
)

// Figure names a figure of a phase in one run.
type Figure int

// The figures compared (Compared), then the figures of the machine that
// the causes are told from.
const (
	// Duration is the phase's wall-clock time, in seconds: the model's
	// (runmodel.Span's Usage.Duration), the job's from its start to its
	// exit; absent when the span's times are unknown or out of order.
	Duration Figure = iota
	// CPUTime is the job's CPU time (user + system) over the phase, in
	// seconds.
	CPUTime
	// CPUsBusy is CPUTime over Duration: how many CPUs the phase kept busy
	// on average (the verdict's busy, verdict.Figures.Busy).
	CPUsBusy
	// MemoryPeak is the job's peak memory over the phase, in bytes.
	MemoryPeak
	// DiskIO is the job's own storage IO over the phase, bytes read and
	// written; or, when the job's could not be read, the machine's disks'
	// (Figures.DiskIOHost), as the summary shows it
	// (usage.Usage.StorageIO).
	DiskIO

	// MachineCPU is the machine's average CPU use over the phase, a share
	// of all its CPUs (0–1), the job's own included.
	MachineCPU
	// NeighbourCPU is MachineCPU less the job's own share of all CPUs
	// (CPUsBusy over the machine's CPUs): what other processes on the
	// machine took, as the verdict takes it (verdict.Figures.Others).
	NeighbourCPU
	// CPUStall is the share of the phase's time (0–1) during which some of
	// the job's tasks waited for a CPU (pressure stall, cpu some): its own
	// cgroup's, else the machine's, as the verdict takes it
	// (verdict.Figures.CPUWait).
	CPUStall
	// IOStall is the same for IO (pressure stall, io some; without stall
	// figures, the machine's iowait), verdict.Figures.IOWait.
	IOStall

	numFigures
)

// Compared returns the figures a diff shows, in the order of its columns.
func Compared() []Figure { return []Figure{Duration, CPUTime, CPUsBusy, MemoryPeak, DiskIO} }

// String is the figure's name in the tables and in JSON.
func (f Figure) String() string {
	return [numFigures]string{
		Duration:     "duration",
		CPUTime:      "CPU time",
		CPUsBusy:     "CPUs busy",
		MemoryPeak:   "peak memory",
		DiskIO:       "disk IO",
		MachineCPU:   "machine CPU",
		NeighbourCPU: "neighbours' CPU",
		CPUStall:     "CPU stall",
		IOStall:      "IO stall",
	}[f]
}

// Figures are the figures of one phase in one run, or the median of
// several runs'. A figure the run could not measure is absent, not zero.
type Figures struct {
	v   [numFigures]float64
	has [numFigures]bool
	// Verdict is the phase's verdict as recorded on its span (the zero
	// Verdict when it has none).
	Verdict verdict.Verdict
	// DiskIOHost is set when DiskIO is the machine's disks' IO: the
	// job's own could not be read. Figures of the job's own IO and of the
	// machine's are not compared (Comparable).
	DiskIOHost bool
}

// Comparable reports whether figure f of a and of b measure the same
// thing: not so for DiskIO when one is the job's own and the other the
// machine's disks'.
func Comparable(a, b *Figures, f Figure) bool {
	return f != DiskIO || a.DiskIOHost == b.DiskIOHost
}

// Get returns figure f and whether it is present.
func (fs *Figures) Get(f Figure) (float64, bool) { return fs.v[f], fs.has[f] }

// Set sets figure f; a value that is negative or not finite leaves it
// absent.
func (fs *Figures) Set(f Figure, v float64) {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	fs.v[f], fs.has[f] = v, true
}

// figuresOf returns the figures of a span, from its usage and its verdict
// as the model read them back from its attributes (runmodel.Span.Usage and
// Verdict: never judged again). CPUs busy, the machine's and the
// neighbours' CPU and the stall shares are the verdict's figures
// (verdict.FiguresOf), by the rules the verdict was judged by.
func figuresOf(s *runmodel.Span) Figures {
	var f Figures
	u := &s.Usage
	if !s.Start.IsZero() && !s.End.IsZero() && !s.End.Before(s.Start) {
		f.Set(Duration, u.Duration.Seconds())
	}
	if u.HasCPU {
		f.Set(CPUTime, u.CPU().Seconds())
	}
	if u.HasMemory {
		f.Set(MemoryPeak, float64(u.MemoryPeak))
	}
	if r, w, host, ok := u.StorageIO(); ok {
		f.Set(DiskIO, float64(r)+float64(w))
		f.DiskIOHost = host
	}
	v := verdict.FiguresOf(u)
	set := func(fig Figure, v float64, ok bool) {
		if ok {
			f.Set(fig, v)
		}
	}
	set(CPUsBusy, v.Busy, v.HasBusy)
	set(MachineCPU, v.Machine, v.HasMachine)
	set(NeighbourCPU, v.Others, v.HasOthers)
	set(CPUStall, v.CPUWait.Share, v.CPUWait.OK)
	set(IOStall, v.IOWait.Share, v.IOWait.OK)
	f.Verdict = s.Verdict
	return f
}
