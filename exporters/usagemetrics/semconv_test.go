package usagemetrics

import (
	"testing"

	"go.opentelemetry.io/otel/semconv/v1.43.0/containerconv"
	"go.opentelemetry.io/otel/semconv/v1.43.0/processconv"
	"go.opentelemetry.io/otel/semconv/v1.43.0/systemconv"
)

// instrument is a metric of the semantic conventions, as semconv's
// packages name it.
type instrument interface {
	Name() string
	Unit() string
}

// The metrics of Table named in the semantic conventions have the name and
// unit semconv gives them.
func TestSemconvNamesAndUnits(t *testing.T) {
	want := map[int]instrument{
		mSysCPUTime: systemconv.CPUTime{}, mSysCPUUtil: systemconv.CPUUtilization{},
		mSysMemUsage: systemconv.MemoryUsage{}, mSysMemUtil: systemconv.MemoryUtilization{},
		mSysPaging: systemconv.PagingFaults{}, mSysDiskIO: systemconv.DiskIO{},
		mSysDiskOps: systemconv.DiskOperations{}, mSysDiskIOTime: systemconv.DiskIOTime{},
		mSysNetIO: systemconv.NetworkIO{}, mSysNetPackets: systemconv.NetworkPacketCount{},
		mSysNetErrors: systemconv.NetworkErrors{}, mSysFSUsage: systemconv.FilesystemUsage{},
		mProcCPUTime: processconv.CPUTime{}, mProcMemory: processconv.MemoryUsage{},
		mProcDiskIO: processconv.DiskIO{}, mProcThreads: processconv.ThreadCount{},
		mContCPUTime: containerconv.CPUTime{}, mContMemory: containerconv.MemoryUsage{},
		mContDiskIO: containerconv.DiskIO{},
	}
	for id, in := range want {
		if m := table[id]; m.Name != in.Name() || m.Unit != in.Unit() {
			t.Errorf("Table[%d] is %s in %s, semconv's %s in %s", id, m.Name, m.Unit, in.Name(), in.Unit())
		}
	}
}
