package profile

import (
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/runmodel"
)

// The profile's CPUs are the machine's as the model takes them for every
// span's usage (runmodel.NumCPUOf: the last row that counts them), where
// the verdicts are judged by them. Before, the profile took the first
// row's, none when the first row had not read them.
func TestLogicalCPUsAreTheModels(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	rows := make([]runmodel.Row, 3)
	for i := range rows {
		rows[i].Time = t0.Add(time.Duration(i) * time.Second)
	}
	rows[1].Set(runmodel.HostCPUs, 2)
	rows[2].Set(runmodel.HostCPUs, 4)
	job := span(1, 9, "job", uint64(t0.UnixNano()), uint64(t0.Add(2*time.Second).UnixNano()), runmodel.AttrTaskName.String("job"))
	run := runmodel.New([]runmodel.Span{job}, rows)
	p, err := Build(run)
	if err != nil {
		t.Fatal(err)
	}
	if p.Meta.LogicalCPUs != run.Job.Usage.NumCPU || p.Meta.LogicalCPUs != 4 {
		t.Errorf("profile's CPUs %d, the model's %d; want the last row's, 4", p.Meta.LogicalCPUs, run.Job.Usage.NumCPU)
	}
}
