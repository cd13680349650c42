package hostmetrics

import "strings"

// A source that cannot give some figures on its system (gopsutil's, the
// illumos one) finds which once, and says so in Source.Unavailable.

// figure is a group of figures that a source may be unable to give.
type figure uint32

const (
	figPressure figure = 1 << iota
	figCgroup
	figCPU
	figNumCPU
	figMemory
	figBuffers
	figCached
	figSwap
	figPaging
	figDisk
	figDiskBusy
	figNet
	figLoad
	figFS
	figProcCPU
	figProcMemory
	figProcIO
	figProcThreads
)

// figureNames names each figure, in the order Unavailable lists them.
var figureNames = [...]struct {
	f    figure
	name string
}{
	{figPressure, "pressure stall information"},
	{figCgroup, "cgroup"},
	{figCPU, "CPU times"},
	{figNumCPU, "CPU count"},
	{figMemory, "memory figures"},
	{figBuffers, "buffer size"},
	{figCached, "page cache size"},
	{figSwap, "swap figures"},
	{figPaging, "page fault counts"},
	{figDisk, "disk IO"},
	{figDiskBusy, "disk busy time"},
	{figNet, "network IO"},
	{figLoad, "load average"},
	{figFS, "file system usage"},
	{figProcCPU, "per-process CPU"},
	{figProcMemory, "per-process memory"},
	{figProcIO, "per-process IO"},
	{figProcThreads, "thread counts"},
}

func (f figure) String() string {
	var names []string
	for _, n := range figureNames {
		if f&n.f != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ", ")
}

// unavailableSentence says, in one sentence, which figures absent names on
// goos: "on darwin: no pressure stall information, no cgroup, ...".
func unavailableSentence(goos string, absent figure) string {
	var b strings.Builder
	for _, n := range figureNames {
		if absent&n.f == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("on " + goos + ": no ")
		} else {
			b.WriteString(", no ")
		}
		b.WriteString(n.name)
	}
	return b.String()
}
