package sizing

import (
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/attrdoc"
)

// Every attribute is documented in docs/attributes.md.
func TestAttributesDocumented(t *testing.T) { attrdoc.Check(t, AttributeKeys()) }

// written is what Attributes writes of a: the figures it leaves out, and
// those of a group it has not, are zero.
func written(a Advice) Advice {
	f, w := a.Figures, Figures{}
	if f.HasCPU {
		w.HasCPU, w.CPUBusyP95, w.CPUBusyPeak, w.AboveOneCPU = true, round3(f.CPUBusyP95), round3(f.CPUBusyPeak), f.AboveOneCPU
	}
	if f.HasMemory {
		w.HasMemory, w.MemoryPeak = true, f.MemoryPeak
	}
	if f.HasMemoryStall {
		w.HasMemoryStall, w.MemoryStall = true, f.MemoryStall
	}
	if f.HasSwap {
		w.HasSwap, w.Swapped = true, f.Swapped
	}
	a.Figures = w
	return a
}

// FromAttributes reads back what Attributes wrote, of every kind of
// advice.
func TestFromAttributesIsTheInverse(t *testing.T) {
	for _, change := range []func(f *Figures){
		func(*Figures) {},
		func(f *Figures) { f.NumCPU, f.CPUBusyP95 = 2, 1.95 },                                     // needs CPUs
		func(f *Figures) { f.OOMKills = 2 },                                                       // needs memory
		func(f *Figures) { f.Verdict = verdict.Verdict{Kind: verdict.Starved, Reason: "waited"} }, // starved
		func(f *Figures) { f.Duration = 3 * time.Second },                                         // too short
		func(f *Figures) { f.HasCPU, f.HasMemory = false, false },                                 // unknown
		func(f *Figures) { f.CPUBusyP95 = 2.3456789 },                                             // rounded to 3 decimals
	} {
		f := figures()
		change(&f)
		a := Advise(f)
		got, ok := FromAttributes(a.Attributes())
		if want := written(a); !ok || got != want {
			t.Errorf("%s: read back %+v, %v\nwant %+v", a.Kind, got, ok, want)
		}
	}
}

// Attributes that hold no advice of a known kind are none; a text too
// long is cut; a group with a key missing, negative or of the wrong type is
// absent, and a key set twice counts as its last.
func TestFromAttributesOfOtherSpans(t *testing.T) {
	for _, attrs := range [][]attribute.KeyValue{
		nil,
		{AttrText.String("no kind")},
		{AttrKind.String("huge"), AttrText.String("a kind Advise never gives")},
		{AttrKind.Int(1)},
	} {
		if a, ok := FromAttributes(attrs); ok {
			t.Errorf("%v read as %+v", attrs, a)
		}
	}
	a, ok := FromAttributes([]attribute.KeyValue{
		AttrKind.String("needs-cpus"), AttrKind.String(string(Sized)), AttrText.String(strings.Repeat("x", 5000) + "\x1b"),
		AttrCPUBusyP95.Float64(1.5), AttrCPUBusyPeak.Float64(2), AttrAboveOneCPU.String("3"),
		AttrMemoryPeak.Int(-1), AttrMemory.Int(8 << 30), AttrCPUs.Int(4), AttrCPUs.Int(2),
	})
	if !ok || a.Kind != Sized || len(a.Text) != MaxTextBytes || !strings.HasSuffix(a.Text, "…") {
		t.Errorf("kind %q, text of %d bytes, %v", a.Kind, len(a.Text), ok)
	}
	if a.HasCPU || a.HasMemory || a.CPUs != 2 || a.Memory != 8<<30 {
		t.Errorf("read %+v", a)
	}
}
