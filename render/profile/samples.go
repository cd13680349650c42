package profile

import (
	"time"

	"github.com/jobtrace/jobtrace/runmodel"
)

// callTree is the stack, frame and function tables that cpuSamples fills:
// a function per phase name, a frame per name and category, a stack per
// phase, its prefix the stack of the phase it is inside.
type callTree struct {
	str func(string) int

	funcs  map[string]int // by name
	frames map[[2]int]int // by func and category

	funcName            []int
	frameFunc, frameCat []int
	stackFrame          []int
	stackPrefix         []*int
	nodeStack           []*int // by node; nil until made
}

func newCallTree(nodes []node, str func(string) int) *callTree {
	return &callTree{
		str: str, funcs: map[string]int{}, frames: map[[2]int]int{},
		nodeStack: make([]*int, len(nodes)),
	}
}

// stack is the stack of nodes[i]: the phases from the job down to it,
// each node's parent the model's (node.up), which has no cycle.
func (c *callTree) stack(nodes []node, i int) *int {
	if c.nodeStack[i] != nil {
		return c.nodeStack[i]
	}
	var prefix *int
	if p := nodes[i].up; p >= 0 {
		prefix = c.stack(nodes, p)
	}
	name := nodes[i].span.Name
	cat := catPhase
	switch {
	case nodes[i].span.Failed:
		cat = catFailed
	case nodes[i].own:
		cat = catOther
	}
	f, ok := c.funcs[name]
	if !ok {
		f = len(c.funcName)
		c.funcName = append(c.funcName, c.str(name))
		c.funcs[name] = f
	}
	fr, ok := c.frames[[2]int{f, cat}]
	if !ok {
		fr = len(c.frameFunc)
		c.frameFunc = append(c.frameFunc, f)
		c.frameCat = append(c.frameCat, cat)
		c.frames[[2]int{f, cat}] = fr
	}
	s := len(c.stackFrame)
	c.stackFrame = append(c.stackFrame, fr)
	c.stackPrefix = append(c.stackPrefix, prefix)
	c.nodeStack[i] = &s
	return &s
}

// fill sets the shared tables to the call tree's.
func (c *callTree) fill(sh *Shared) {
	n := len(c.funcName)
	nulls := func(n int) []any { return make([]any, n) }
	fill := func(n int, v any) []any {
		a := make([]any, n)
		for i := range a {
			a[i] = v
		}
		return a
	}
	sh.FuncTable = table{
		"length": n, "name": c.funcName, "isJS": fill(n, false), "relevantForJS": fill(n, false),
		"resource": fill(n, -1), "source": nulls(n), "lineNumber": nulls(n), "columnNumber": nulls(n),
	}
	n = len(c.frameFunc)
	sh.FrameTable = table{
		"length": n, "func": c.frameFunc, "category": c.frameCat, "subcategory": fill(n, 0),
		"address": fill(n, -1), "inlineDepth": fill(n, 0), "nativeSymbol": nulls(n),
		"innerWindowID": nulls(n), "line": nulls(n), "column": nulls(n),
	}
	sh.StackTable = table{"length": len(c.stackFrame), "frame": c.stackFrame, "prefix": c.stackPrefix}
}

// cpuSamples gives the thread's track the job's CPU use: a sample at each
// row with the job's CPU time (Row.CPU, the row's part of its span's),
// whose stack is the span the sample belongs to by the spans' times
// (runmodel.Placer, as report.html's crosshair places it: the deepest
// open at the middle of the time since the previous sample), in the
// category of its phase (jobtrace's own: Other; a failed phase: Failed
// phase, red).
// The activity graph draws each sample's CPU use, coloured by category, as
// it draws a thread's: up to 100 %, one CPU (the CPU track shows the whole
// machine); the call tree sums the CPU time per phase.
// A row without the job's CPU gives no sample (the next covers its time),
// nor does one before any phase or the job.
func cpuSamples(run *runmodel.Run, nodes []node, rows []Row, ms func(int64) float64, sh *Shared, str func(string) int) ThreadSamples {
	out := ThreadSamples{WeightType: "tracing-ms", Weight: []float64{}, Stack: []*int{}, Time: []float64{}, ThreadCPUDelta: []float64{}}
	c := newCallTree(nodes, str)
	job, nodeOf := nodeIndex(nodes, len(run.Phases))
	place := run.Placer()
	prev := 0.0
	var prevT time.Time
	for i := range rows {
		r := &rows[i]
		at := ms(r.Time.UnixNano())
		if i > 0 && !r.CPU.OK {
			continue
		}
		from := r.Time
		if len(out.Time) > 0 {
			from = prevT
		}
		span := place.Place(from, r.Time)
		cpu := 0.0
		if i > 0 {
			cpu = r.CPU.V
		}
		if n := len(out.Time); n > 0 && at-prev < 0.001 {
			// less than a µs after the previous sample: merged into it
			out.Weight[n-1] += round3(cpu * 1000)
			out.ThreadCPUDelta[n-1] += round3(cpu * 1e6)
			continue
		}
		var k int
		switch span {
		case runmodel.NoSpan:
			continue
		case runmodel.JobSpan:
			k = job
		default:
			k = nodeOf[span]
		}
		out.Time = append(out.Time, at)
		out.Stack = append(out.Stack, c.stack(nodes, k))
		out.Weight = append(out.Weight, round3(cpu*1000))
		out.ThreadCPUDelta = append(out.ThreadCPUDelta, round3(cpu*1e6))
		prev, prevT = at, r.Time
	}
	out.Length = len(out.Time)
	c.fill(sh)
	return out
}
