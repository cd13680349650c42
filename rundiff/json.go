package rundiff

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the diff as one JSON object, for tools: every phase
// (not bounded by MaxListed), each figure in its base unit (seconds,
// bytes, CPUs, shares 0–1) under a key that names the unit; an absent
// figure is left out. docs/diff.md describes the fields.
func WriteJSON(w io.Writer, d *Diff, l Labels) error {
	type out struct {
		Base      []string `json:"base"`
		Run       string   `json:"run"`
		Baselines int      `json:"baselines"`
		Job       *Row     `json:"job,omitempty"`
		Phases    []Row    `json:"phases"`
	}
	o := out{Base: l.Base, Run: l.Run, Baselines: d.Baselines, Phases: d.Phases}
	if o.Base == nil {
		o.Base = []string{}
	}
	if o.Phases == nil {
		o.Phases = []Row{}
	}
	if d.HasJob {
		o.Job = &d.Job
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(o)
}

// MarshalJSON writes a row: its place, status, cause, and the figures of
// both sides and of the base runs' spread.
func (r Row) MarshalJSON() ([]byte, error) {
	type row struct {
		Name    string   `json:"name"`
		Path    []string `json:"path,omitempty"`
		N       int      `json:"n,omitempty"`
		Status  Status   `json:"status"`
		Change  string   `json:"change"`
		Cause   Cause    `json:"cause,omitempty"`
		Reason  string   `json:"reason,omitempty"`
		Outside bool     `json:"outside_spread,omitempty"`
		Runs    int      `json:"base_runs"`
		Base    *Figures `json:"base,omitempty"`
		Low     *Figures `json:"base_min,omitempty"`
		High    *Figures `json:"base_max,omitempty"`
		Run     *Figures `json:"run,omitempty"`
	}
	o := row{Name: r.Name, Path: r.Path, N: r.N, Status: r.Status, Change: ChangeText(&r), Cause: r.Cause, Reason: r.Reason, Outside: r.Outside, Runs: r.Runs}
	if r.Runs > 0 {
		o.Base = &r.Base
		if r.Runs > 1 {
			o.Low, o.High = &r.Low, &r.High
		}
	}
	if r.InCur {
		o.Run = &r.Cur
	}
	return json.Marshal(o)
}

// MarshalJSON writes the figures present, under keys that name their
// units, and the verdict.
func (fs *Figures) MarshalJSON() ([]byte, error) {
	keys := [numFigures]string{
		Duration: "duration_s", CPUTime: "cpu_time_s", CPUsBusy: "cpus_busy",
		MemoryPeak: "memory_peak_bytes", DiskIO: "disk_io_bytes",
		MachineCPU: "machine_cpu_share", NeighbourCPU: "neighbour_cpu_share",
		CPUStall: "cpu_stall_share", IOStall: "io_stall_share",
	}
	m := make(map[string]any, numFigures+3)
	for f := range numFigures {
		if v, ok := fs.Get(f); ok {
			m[keys[f]] = v
		}
	}
	if _, ok := fs.Get(DiskIO); ok && fs.DiskIOHost {
		m["disk_io_host"] = true
	}
	if fs.Verdict.Kind != "" {
		m["verdict"], m["verdict_reason"] = fs.Verdict.Kind, fs.Verdict.Reason
	}
	return json.Marshal(m)
}
