package agent

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// MaxSummaryPhases bounds the phases kept for the end-of-job summary.
const MaxSummaryPhases = 10000

type phaseRecord struct {
	name          string
	id, parent    trace.SpanID
	start, end    time.Time
	failed        bool
	statusMessage string
}

// summaryProcessor keeps the name, nesting, times and status of every
// ended span, for the summary printed at the end of the job.
type summaryProcessor struct {
	mu      sync.Mutex
	phases  []phaseRecord
	dropped int
}

func newSummaryProcessor() *summaryProcessor { return &summaryProcessor{} }

func (p *summaryProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (p *summaryProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.phases) >= MaxSummaryPhases {
		p.dropped++
		return
	}
	p.phases = append(p.phases, phaseRecord{
		name: s.Name(), id: s.SpanContext().SpanID(), parent: s.Parent().SpanID(),
		start: s.StartTime(), end: s.EndTime(),
		failed: s.Status().Code == codes.Error, statusMessage: s.Status().Description,
	})
}
func (p *summaryProcessor) Shutdown(context.Context) error   { return nil }
func (p *summaryProcessor) ForceFlush(context.Context) error { return nil }

// write prints the phases under root as an indented table, in start order.
func (p *summaryProcessor) write(w io.Writer, root trace.SpanID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	children := map[trace.SpanID][]phaseRecord{}
	for _, ph := range p.phases {
		children[ph.parent] = append(children[ph.parent], ph)
	}
	var lines [][3]string
	var walk func(id trace.SpanID, depth int)
	walk = func(id trace.SpanID, depth int) {
		kids := children[id]
		sort.Slice(kids, func(i, j int) bool { return kids[i].start.Before(kids[j].start) })
		for _, k := range kids {
			status := "ok"
			if k.failed {
				status = "FAILED"
				if k.statusMessage != "" {
					status += ": " + k.statusMessage
				}
			}
			lines = append(lines, [3]string{strings.Repeat("  ", depth) + k.name, fmtDuration(k.end.Sub(k.start)), status})
			if depth < 32 {
				walk(k.id, depth+1)
			}
		}
	}
	walk(root, 0)
	if len(lines) == 0 {
		return
	}
	width := len("phase")
	for _, l := range lines {
		width = max(width, len(l[0]))
	}
	fmt.Fprintf(w, "jobtrace:   %-*s %10s  %s\n", width, "phase", "duration", "status")
	for _, l := range lines {
		fmt.Fprintf(w, "jobtrace:   %-*s %10s  %s\n", width, l[0], l[1], l[2])
	}
	if p.dropped > 0 {
		fmt.Fprintf(w, "jobtrace:   (%d more spans not listed: limit %d)\n", p.dropped, MaxSummaryPhases)
	}
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Minute:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
