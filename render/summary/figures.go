package summary

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
)

// Figures is the part of a span's usage (package hostmetrics/usage) that
// the summary prints. Each group has a Has flag: a group the span does not
// carry is absent, which is not zero.
type Figures struct {
	HasCPU bool
	// CPU is user + system CPU time.
	CPU time.Duration
	// CPUAvg and CPUPeak are in percent of all the machine's CPUs, 0–100.
	CPUAvg, CPUPeak float64

	HasMemory  bool
	MemoryPeak uint64 // bytes

	// HasIO is set when storage IO is known: the job's own, or, when
	// IOHost is set, the host's disks because the job's could not be read
	// (runmodel.DiskIO).
	HasIO                 bool
	IOHost                bool
	ReadBytes, WriteBytes uint64

	// HasNetwork is set when the host's network traffic (loopback
	// excluded) over the span is known.
	HasNetwork              bool
	NetReceive, NetTransmit uint64
}

// FiguresOf returns the figures of a usage, by the rules every artifact
// shows them by: a share at most 100 % (usage.BoundShare), the job's own IO
// else the host's disks' (usage.Usage.StorageIO).
func FiguresOf(u *usage.Usage) Figures {
	var f Figures
	if u.HasCPU {
		f.HasCPU = true
		f.CPU = u.CPU()
		f.CPUAvg, f.CPUPeak = 100*usage.BoundShare(u.CPUAvg), 100*usage.BoundShare(u.CPUPeak)
	}
	f.HasMemory, f.MemoryPeak = u.HasMemory, u.MemoryPeak
	f.ReadBytes, f.WriteBytes, f.IOHost, f.HasIO = u.StorageIO()
	f.HasNetwork, f.NetReceive, f.NetTransmit = u.HasNetwork, u.NetworkReceive, u.NetworkTransmit
	return f
}
