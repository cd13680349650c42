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
	// Duration is the phase's wall-clock time, in seconds.
	Duration Figure = iota
	// CPUTime is the job's CPU time (user + system) over the phase, in
	// seconds.
	CPUTime
	// CPUsBusy is CPUTime over Duration: how many CPUs the phase kept busy
	// on average.
	CPUsBusy
	// MemoryPeak is the job's peak memory over the phase, in bytes.
	MemoryPeak
	// DiskIO is the job's own storage IO over the phase, bytes read and
	// written.
	DiskIO

	// MachineCPU is the machine's average CPU use over the phase, a share
	// of all its CPUs (0–1), the job's own included.
	MachineCPU
	// NeighbourCPU is MachineCPU less the job's own share of all CPUs:
	// what other processes on the machine took.
	NeighbourCPU
	// CPUStall is the share of the phase's time (0–1) during which some of
	// the job's tasks waited for a CPU (pressure stall, cpu some).
	CPUStall
	// IOStall is the share of the phase's time (0–1) during which some of
	// the job's tasks waited for IO (pressure stall, io some).
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
// Verdict: never judged again).
func figuresOf(s *runmodel.Span) Figures {
	var f Figures
	u := &s.Usage
	dur := -1.0
	if !s.Start.IsZero() && !s.End.IsZero() {
		dur = s.End.Sub(s.Start).Seconds()
		f.Set(Duration, dur)
	}
	if u.HasCPU {
		cpu := u.CPU().Seconds()
		f.Set(CPUTime, cpu)
		if dur > 0 {
			f.Set(CPUsBusy, cpu/dur)
		}
	}
	if u.HasMemory {
		f.Set(MemoryPeak, float64(u.MemoryPeak))
	}
	if u.HasIO {
		f.Set(DiskIO, float64(u.ReadBytes)+float64(u.WriteBytes))
	}
	if u.HasSystemCPU {
		f.Set(MachineCPU, min(u.SystemCPUAvg, 1))
		if u.HasCPU {
			f.Set(NeighbourCPU, max(min(u.SystemCPUAvg, 1)-min(u.CPUAvg, 1), 0))
		}
	}
	if u.HasPressure && dur > 0 {
		if p := u.Pressure; p.HasCPUSome {
			f.Set(CPUStall, min(p.CPUSome.Seconds()/dur, 1))
		}
		if p := u.Pressure; p.HasIOSome {
			f.Set(IOStall, min(p.IOSome.Seconds()/dur, 1))
		}
	}
	f.Verdict = s.Verdict
	return f
}
