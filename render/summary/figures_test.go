package summary

import (
	"math"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
)

// sameFigures compares figures, utilisations to the four decimals the
// attributes keep.
func sameFigures(a, b Figures) bool {
	pa, pb := a.CPUAvg, a.CPUPeak
	a.CPUAvg, a.CPUPeak = 0, 0
	qa, qb := b.CPUAvg, b.CPUPeak
	b.CPUAvg, b.CPUPeak = 0, 0
	return a == b && math.Abs(pa-qa) < 0.01 && math.Abs(pb-qb) < 0.01
}

// The figures of a span's usage, as read back from its attributes.
func TestFiguresOfAttributes(t *testing.T) {
	full := phaseUsage(3*time.Second, 0.5, 0.75, 2*gib, 10, 20, 30, 40)
	cases := []struct {
		name  string
		attrs []attribute.KeyValue
		want  Figures
	}{
		{"none", nil, Figures{}},
		{"all", full.Attributes(), FiguresOf(&full)},
		{
			"host disks when the job's IO is absent",
			(&usage.Usage{HasSystemDisk: true, SystemReadBytes: 5, SystemWriteBytes: 6}).Attributes(),
			Figures{HasIO: true, IOHost: true, ReadBytes: 5, WriteBytes: 6},
		},
		{
			"the job's IO wins over the host's",
			(&usage.Usage{HasIO: true, ReadBytes: 1, WriteBytes: 2, HasSystemDisk: true, SystemReadBytes: 5, SystemWriteBytes: 6}).Attributes(),
			Figures{HasIO: true, ReadBytes: 1, WriteBytes: 2},
		},
		{
			"numbers in the other type",
			[]attribute.KeyValue{usage.AttrMemoryPeak.Float64(1024), usage.AttrCPUUser.Int(2), usage.AttrCPUSystem.Int(1),
				usage.AttrCPUAvg.Float64(0.25), usage.AttrCPUPeak.Int(1)},
			Figures{HasMemory: true, MemoryPeak: 1024, HasCPU: true, CPU: 3 * time.Second, CPUAvg: 25, CPUPeak: 100},
		},
		{
			"a group with a key missing or of the wrong type is absent",
			[]attribute.KeyValue{usage.AttrDiskRead.Int(1), usage.AttrSysNetReceive.Int(1), usage.AttrSysNetTransmit.String("2"),
				usage.AttrMemoryPeak.Int(-5)},
			Figures{},
		},
	}
	for _, c := range cases {
		u := usage.FromAttributes(c.attrs)
		if got := FiguresOf(&u); !sameFigures(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}
