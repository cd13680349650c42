package profile

import "time"

// counterSpec is one counter drawn from the rows.
type counterSpec struct {
	name, category, description, color, label string
	// gauge is set for a value at the row (memory), written as its change
	// since the previous row with a value, the first as itself: a Memory
	// counter is drawn as the running total of its counts.
	gauge bool
	// scale turns the CSV's unit into the counter's.
	scale float64
	// machineScale starts the counter with a reference sample whose rate
	// is every CPU of the machine busy (see counters).
	machineScale bool
	get          func(*Row) Opt
	graph        string
	unit         string
	tooltip      []TooltipRow
}

var counterSpecs = []counterSpec{
	{
		name: "jobCPU", category: "CPU", color: "grey", label: "CPU",
		description: "CPU time of the job (user + system), in ms per sample; drawn as CPUs busy, the track's height every CPU of the machine",
		scale:       1000, get: func(r *Row) Opt { return r.CPU }, machineScale: true,
		graph: "line-rate", unit: "",
		// The rate is CPU ms per ms: CPUs busy. The profiler prints a
		// "number" with no decimals (0.05 CPU as "0"), a "percent" with
		// two significant digits: 5.0%, 150% for 1.5 CPUs, as top does.
		tooltip: []TooltipRow{
			{Type: "value", Source: "rate", Format: &TooltipFormat{Unit: "percent"}, Label: "CPU use since the previous sample (100% is one CPU)"},
			{Type: "value", Source: "count", Format: &TooltipFormat{Unit: "number"}, Label: "CPU milliseconds since the previous sample"},
			{Type: "value", Source: "selection-rate", Format: &TooltipFormat{Unit: "percent"}, Label: "average CPU use in the selection"},
			{Type: "value", Source: "selection-total", Format: &TooltipFormat{Unit: "number"}, Label: "CPU milliseconds in the selection"},
		},
	},
	{
		name: "jobMemory", category: "Memory", color: "orange", label: "Memory",
		description: "Memory the job uses (its cgroup's memory.current, else its processes' RSS)",
		gauge:       true, scale: 1, get: func(r *Row) Opt { return r.Memory },
		graph: "line-accumulated", unit: "bytes",
		tooltip: []TooltipRow{
			{Type: "value", Source: "accumulated", Format: &TooltipFormat{Unit: "bytes"}, Label: "memory above the lowest in the profile"},
			{Type: "value", Source: "count", Format: &TooltipFormat{Unit: "bytes"}, Label: "change since the previous sample"},
			{Type: "value", Source: "count-range", Format: &TooltipFormat{Unit: "bytes"}, Label: "memory range in the graph"},
		},
	},
	{
		name: "jobDiskIO", category: "Bandwidth", color: "blue", label: "Disk IO",
		description: "Bytes the job read from and wrote to storage",
		scale:       1, get: func(r *Row) Opt { return r.Disk },
		graph: "line-rate", unit: "bytes",
		tooltip: bandwidthTooltip("read and written"),
	},
	{
		name: "hostNetworkIO", category: "Bandwidth", color: "green", label: "Network IO (machine)",
		description: "Bytes the machine received and sent on every interface but loopback",
		scale:       1, get: func(r *Row) Opt { return r.Net },
		graph: "line-rate", unit: "bytes",
		tooltip: bandwidthTooltip("received and sent"),
	},
}

func bandwidthTooltip(what string) []TooltipRow {
	return []TooltipRow{
		{Type: "value", Source: "rate", Format: &TooltipFormat{Unit: "bytes-per-second"}, Label: "speed since the previous sample"},
		{Type: "value", Source: "count", Format: &TooltipFormat{Unit: "bytes"}, Label: "bytes " + what + " since the previous sample"},
		{Type: "separator"},
		{Type: "value", Source: "count-range", Format: &TooltipFormat{Unit: "bytes"}, Label: "bytes " + what + " in the visible range"},
		{Type: "value", Source: "selection-total", Format: &TooltipFormat{Unit: "bytes"}, Label: "bytes " + what + " in the selection"},
	}
}

// counters makes the counters of the rows. A row whose figure is absent
// gives no sample: the next row with one covers its time too, as the CSV
// says of rows between two walks of a large process tree. Rows less than
// a microsecond apart in the profile's time are merged, so that times
// strictly increase (the profiler divides by the time between samples).
//
// The profiler draws a "line-rate" track to the height of the highest
// rate among the samples in view and the one just before them, so a job
// that keeps 0.05 CPU busy would fill the CPU track. A counter with
// machineScale starts with two reference samples before the profile's
// start (outside what the profiler shows): the profiler sets a counter's
// first count to 0, and the second's rate, its count over the time since
// the first, is the machine's cpus. With the whole profile in view, the
// second is the sample just before it, and the track's height is every
// CPU busy. It lies far enough before the first row (a thousand times the
// first row's time or the interval) that the line from it meets the
// track's left edge less than a thousandth of the height above the
// bottom. Zoomed in, the track scales to the highest rate in view.
// Without cpus, there are no reference samples.
func counters(rows []Row, ms func(int64) float64, pid string, cpus int, interval float64) []Counter {
	out := make([]Counter, 0, len(counterSpecs))
	for _, spec := range counterSpecs {
		c := Counter{
			Name: spec.name, Category: spec.category, Description: spec.description,
			Color: spec.color, Pid: pid,
			Samples: CounterSamples{Time: []float64{}, Count: []float64{}},
			Display: CounterDisplay{
				GraphType: spec.graph, Unit: spec.unit, Color: spec.color,
				SortWeight: len(out), Label: spec.label, TooltipRows: spec.tooltip,
			},
		}
		s := &c.Samples
		push := func(t time.Time, v float64) {
			x := ms(t.UnixNano())
			if n := len(s.Time); n > 0 && x-s.Time[n-1] < 0.001 {
				s.Count[n-1] += v
				return
			}
			s.Time = append(s.Time, x)
			s.Count = append(s.Count, v)
		}
		if spec.machineScale && cpus > 0 && len(rows) > 0 {
			first := ms(rows[0].Time.UnixNano())
			ref := round3(first - 1000*max(first, interval))
			s.Time = append(s.Time, round3(ref-interval), ref)
			s.Count = append(s.Count, 0, round3(float64(cpus)*interval))
		}
		var prev float64
		for i := range rows {
			o := spec.get(&rows[i])
			switch {
			case spec.gauge && o.OK:
				push(rows[i].Time, o.V-prev)
				prev = o.V
			case !spec.gauge && i == 0:
				// The first row has no deltas: a zero sample there
				// starts the time the next sample covers.
				push(rows[i].Time, 0)
			case !spec.gauge && o.OK:
				push(rows[i].Time, round3(o.V*spec.scale))
			}
		}
		s.Length = len(s.Time)
		out = append(out, c)
	}
	return out
}
