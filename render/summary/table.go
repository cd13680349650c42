package summary

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/runmodel"
)

// column is one column of a table, as both renderers lay it out. A cell
// "" is a figure that is absent; it prints as "–", or as nothing in a
// column that is not a figure (the status).
type column struct {
	head   string
	left   bool // left-aligned (names, status); figures are right-aligned
	notFig bool // "" prints as nothing rather than "–"
	keep   bool // kept even when every cell is ""
	cells  []string
}

// present drops the columns whose every cell is absent.
func present(cols []column) []column {
	out := cols[:0]
	for _, c := range cols {
		if c.keep || slices.ContainsFunc(c.cells, func(s string) bool { return s != "" }) {
			out = append(out, c)
		}
	}
	return out
}

func (c *column) cell(i int) string {
	if s := c.cells[i]; s != "" || c.notFig {
		return s
	}
	return absent
}

// phaseColumns lays out the phase table: one row per phase, then the job's
// total. The host's network is one column (received + sent) on the
// terminal, two in Markdown, where width is not scarce; for the same reason
// the verdict column has the verdict's reason in Markdown, its kind alone
// on the terminal. name renders a row's name; total is set for the job's
// row.
func phaseColumns(r *Summary, md bool, name func(row Row, total bool) string) []column {
	rows := append(r.Phases[:len(r.Phases):len(r.Phases)], r.Total)
	n := len(rows)
	mk := func(head string) column { return column{head: head, cells: make([]string, n)} }
	names := column{head: "phase", left: true, keep: true, cells: make([]string, n)}
	dur := mk("duration")
	cpu, avg, peak := mk("CPU"), mk("avg%"), mk("peak%")
	mem, read, write := mk("mem"), mk("read"), mk("write")
	net, netIn, netOut := mk("host net"), mk("host net in"), mk("host net out")
	kind := column{head: "verdict", left: true, notFig: true, cells: make([]string, n)}
	status := column{head: "status", left: true, notFig: true, cells: make([]string, n)}
	if md {
		cpu.head, avg.head, peak.head = "CPU time", "CPU avg", "CPU peak"
		mem.head, read.head, write.head = "memory peak", "disk read", "disk write"
	}
	for i, row := range rows {
		names.cells[i] = name(row, i == n-1)
		if row.Duration > 0 || i < n-1 {
			// The job's duration is 0 only when it is unknown; a
			// phase's can be 0 (an instant).
			dur.cells[i] = figure.Duration(row.Duration)
		}
		f := &row.Figures
		if f.HasCPU {
			cpu.cells[i] = figure.Duration(f.CPU)
			avg.cells[i] = figure.Percent(f.CPUAvg)
			peak.cells[i] = figure.Percent(f.CPUPeak)
		}
		if f.HasMemory {
			mem.cells[i] = figure.Bytes(float64(f.MemoryPeak))
		}
		if f.HasIO {
			mark := ""
			if f.IOHost {
				mark = "*"
			}
			read.cells[i] = figure.Bytes(float64(f.ReadBytes)) + mark
			write.cells[i] = figure.Bytes(float64(f.WriteBytes)) + mark
		}
		if f.HasNetwork {
			net.cells[i] = figure.Bytes(float64(f.NetReceive) + float64(f.NetTransmit))
			netIn.cells[i] = figure.Bytes(float64(f.NetReceive))
			netOut.cells[i] = figure.Bytes(float64(f.NetTransmit))
		}
		if v := row.Verdict; v.Kind != "" {
			kind.cells[i] = string(v.Kind)
			if md {
				kind.cells[i] += ": " + oneLine(v.Reason)
			}
		}
		if row.Failed {
			status.cells[i] = "FAILED"
			if row.Status != "" {
				status.cells[i] += ": " + oneLine(row.Status)
			}
		}
	}
	cols := []column{names, dur, cpu, avg, peak, mem, read, write}
	if md {
		cols = append(cols, netIn, netOut)
	} else {
		cols = append(cols, net)
	}
	return present(append(cols, kind, status))
}

// statColumns lays out the job statistics: one row per quantity, with its
// mean, peak and standard deviation.
func statColumns(st *runmodel.JobStats, head string) []column {
	type line struct {
		name string
		s    runmodel.Stat
		f    func(float64) string
	}
	io := "job IO"
	if st.IOHost {
		io = "host disk IO"
	}
	lines := []line{
		{"job CPU", st.CPU, figure.Percent},
		{"host CPU", st.HostCPU, figure.Percent},
		{"job memory", st.Memory, figure.Bytes},
		{"host disk IOPS", st.IOPS, figure.Count},
		{io, st.IO, figure.Rate},
		{"host network", st.Network, figure.Rate},
	}
	n := len(lines)
	names := column{head: head, left: true, keep: true, cells: make([]string, n)}
	avg := column{head: "avg", keep: true, cells: make([]string, n)}
	peak := column{head: "peak", keep: true, cells: make([]string, n)}
	sd := column{head: "stddev", keep: true, cells: make([]string, n)}
	for i, l := range lines {
		names.cells[i] = l.name
		if l.s.N > 0 {
			avg.cells[i] = l.f(l.s.Mean)
			sd.cells[i] = l.f(l.s.StdDev)
		}
		if l.s.HasPeak {
			peak.cells[i] = l.f(l.s.Peak)
		}
	}
	return []column{names, avg, peak, sd}
}

// title is the sentence that heads both renderings: the job, its result
// and how long it took.
func title(r *Summary, name string) string {
	var b strings.Builder
	b.WriteString("job " + name + " ")
	switch r.Result {
	case "success":
		b.WriteString("succeeded")
	case "failure":
		b.WriteString("failed")
	case "timeout":
		b.WriteString("timed out")
	case "cancellation":
		b.WriteString("was cancelled")
	case "error":
		b.WriteString("ended in error")
	default:
		b.WriteString("ended: " + oneLine(r.Result))
	}
	if r.ExitCode != 0 {
		fmt.Fprintf(&b, " with exit code %d", r.ExitCode)
	}
	if r.Duration > 0 {
		b.WriteString(" after " + figure.Duration(r.Duration))
	}
	return b.String()
}

// anyIOHost reports whether some row's IO is the host's.
func anyIOHost(r *Summary) bool {
	if r.Total.HasIO && r.Total.IOHost {
		return true
	}
	for i := range r.Phases {
		if r.Phases[i].HasIO && r.Phases[i].IOHost {
			return true
		}
	}
	return false
}

// hasFigures reports whether the phase table has anything to show: a
// phase, or a figure of the job's.
func hasFigures(r *Summary) bool {
	f := &r.Total.Figures
	return len(r.Phases) > 0 || f.HasCPU || f.HasMemory || f.HasIO || f.HasNetwork
}
