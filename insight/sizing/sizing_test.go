package sizing

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/insight/verdict"
)

const gibi = 1 << 30

func TestMachineShapes(t *testing.T) {
	for _, c := range []struct {
		busy float64
		want int
	}{{0, 1}, {0.3, 1}, {0.9, 1}, {0.95, 2}, {1.0, 2}, {1.8, 2}, {1.9, 4}, {2.3, 4}, {3.6, 4}, {3.7, 8}, {31, 64}, {1e12, 1 << 20}} {
		if got := CPUsFor(c.busy); got != c.want {
			t.Errorf("CPUsFor(%g) = %d, want %d", c.busy, got, c.want)
		}
	}
	for _, c := range []struct {
		peak uint64
		want uint64
	}{
		{0, 1 * gibi},              // the system's GiB alone
		{200 << 20, 2 * gibi},      // 250 MiB + 1 GiB
		{800 << 20, 2 * gibi},      // 1000 MiB + 1 GiB
		{820 << 20, 4 * gibi},      // 1025 MiB + 1 GiB: just past 2 GiB
		{31 * gibi / 10, 8 * gibi}, // 3.875 GiB + 1 GiB
		{24 * gibi, 32 * gibi},     // 30 + 1
		{25 * gibi, 64 * gibi},     // 31.25 + 1
		{1 << 62, 1 << 60},         // far past any machine: capped
	} {
		if got := memoryFor(c.peak); got != c.want {
			t.Errorf("memoryFor(%d MiB) = %d GiB, want %d GiB", c.peak>>20, got>>30, c.want>>30)
		}
	}
}

// figures is a job of ten minutes on an 8-CPU, 32 GiB machine that kept
// 2.3 CPUs busy and used 3.1 GiB, measured in every way.
func figures() Figures {
	return Figures{
		Duration: 10 * time.Minute, NumCPU: 8, MachineMemory: 32 * gibi,
		HasCPU: true, CPUBusyP95: 2.3, CPUBusyPeak: 3.9, AboveOneCPU: 41 * time.Second,
		HasMemory: true, MemoryPeak: 31 * gibi / 10,
		HasMemoryStall: true, MemoryStall: 200 * time.Millisecond,
		HasOOMKills: true, HasSwap: true, Swapped: 1 << 20,
	}
}

func TestAdvise(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(f *Figures)
		kind   Kind
		cpus   int
		memory uint64
		text   string
	}{
		{"sized", func(*Figures) {}, Sized, 4, 8 * gibi,
			"used 2.3 of 8 CPUs (p95; more than one for 41s) and at most 3.1 GiB: a 4-CPU, 8 GiB machine would do"},
		{"one thread", func(f *Figures) { f.CPUBusyP95, f.AboveOneCPU, f.MemoryPeak = 1.0, 0, 512<<20 }, Sized, 2, 2 * gibi,
			"used 1 of 8 CPUs (p95) and at most 512 MiB: a 2-CPU, 2 GiB machine would do"},
		{"no memory figure", func(f *Figures) { f.HasMemory = false }, Sized, 4, 0,
			"used 2.3 of 8 CPUs (p95; more than one for 41s): a 4-CPU machine would do"},
		{"no CPU figure", func(f *Figures) { f.HasCPU, f.NumCPU = false, 0 }, Sized, 0, 8 * gibi,
			"used at most 3.1 GiB: an 8 GiB machine would do"},
		{"every CPU busy", func(f *Figures) { f.NumCPU, f.CPUBusyP95 = 2, 1.9 }, NeedsCPUs, 4, 8 * gibi,
			"kept all 2 CPUs busy (1.9 at p95) and used at most 3.1 GiB: a 4-CPU, 8 GiB machine would make it faster"},
		{"starved", func(f *Figures) {
			f.Verdict = verdict.Verdict{Kind: verdict.Starved, Reason: "waited for CPU 63% of the time while the machine was 100% busy"}
		}, Starved, 0, 8 * gibi,
			"waited for CPU 63% of the time while the machine was 100% busy: too starved to size its CPUs; at most 3.1 GiB: 8 GiB of memory would do"},
		// A job that keeps every CPU busy wants more, starved or not.
		{"starved on every CPU", func(f *Figures) {
			f.NumCPU, f.CPUBusyP95, f.Verdict = 2, 1.9, verdict.Verdict{Kind: verdict.Starved, Reason: "waited"}
		}, NeedsCPUs, 4, 8 * gibi, ""},
		{"another verdict", func(f *Figures) { f.Verdict = verdict.Verdict{Kind: verdict.CPUBound, Reason: "kept 2.3 CPUs busy"} }, Sized, 4, 8 * gibi,
			"used 2.3 of 8 CPUs (p95; more than one for 41s) and at most 3.1 GiB: a 4-CPU, 8 GiB machine would do"},
		{"OOM-killed", func(f *Figures) { f.OOMKills = 2 }, NeedsMemory, 4, 16 * gibi,
			"2 processes were OOM-killed at 3.1 GiB: needs more memory, 16 GiB or more"},
		{"OOM-killed, short", func(f *Figures) { f.OOMKills, f.Duration = 1, 3*time.Second }, NeedsMemory, 0, 16 * gibi,
			"1 process was OOM-killed at 3.1 GiB: needs more memory, 16 GiB or more"},
		{"memory pressure", func(f *Figures) { f.MemoryStall, f.Duration = 41*time.Second, 5*time.Minute }, NeedsMemory, 4, 16 * gibi,
			"hit memory pressure for 41s: needs more memory, 16 GiB or more"},
		{"the machine's memory pressure", func(f *Figures) { f.MemoryStall, f.MachineStall, f.Duration = 41*time.Second, true, 5*time.Minute }, NeedsMemory, 4, 16 * gibi,
			"the machine was under memory pressure for 41s: needs more memory, 16 GiB or more"},
		// 41 s over ten minutes is under 10 %: the job was not
		// memory-pressured (insight/verdict), nor short of memory.
		{"a little pressure", func(f *Figures) { f.MemoryStall = 41 * time.Second }, Sized, 4, 8 * gibi, ""},
		{"swapped", func(f *Figures) { f.Swapped = 310 << 20 }, NeedsMemory, 4, 16 * gibi,
			"the machine swapped 310 MiB out: needs more memory, 16 GiB or more"},
		{"a few pages swapped", func(f *Figures) { f.Swapped = 63 << 20 }, Sized, 4, 8 * gibi, ""},
		{"too short", func(f *Figures) { f.Duration = 2100 * time.Millisecond }, TooShort, 0, 0,
			"ran 2.1s: too short to size a machine for (10s at least)"},
		{"no figures", func(f *Figures) { *f = Figures{Duration: time.Hour} }, Unknown, 0, 0,
			"no CPU or memory figures of the job: no advice"},
	} {
		f := figures()
		c.change(&f)
		a := Advise(f)
		if a.Kind != c.kind || a.CPUs != c.cpus || a.Memory != c.memory || (c.text != "" && a.Text != c.text) {
			t.Errorf("%s: %s, %d CPUs, %d MiB: %q\nwant %s, %d CPUs, %d MiB: %q", c.name, a.Kind, a.CPUs, a.Memory>>20, a.Text,
				c.kind, c.cpus, c.memory>>20, c.text)
		}
		if a.Figures != f {
			t.Errorf("%s: the advice's figures %+v, not the ones given", c.name, a.Figures)
		}
	}
}

func TestAdviceAttributes(t *testing.T) {
	a := Advise(figures())
	got := map[string]string{}
	for _, kv := range a.Attributes() {
		got[string(kv.Key)] = kv.Value.Emit()
	}
	want := map[string]string{
		"jobtrace.job.advice.kind": "sized", "jobtrace.job.advice.text": a.Text,
		"jobtrace.job.advice.cpus": "4", "jobtrace.job.advice.memory": "8589934592",
		"jobtrace.job.advice.cpu.busy.p95": "2.3", "jobtrace.job.advice.cpu.busy.peak": "3.9",
		"jobtrace.job.advice.cpu.above_one": "41", "jobtrace.job.advice.memory.peak": "3328599654",
		"jobtrace.job.advice.memory.pressure": "0.2", "jobtrace.job.advice.swap": "1048576",
	}
	if len(got) != len(want) || len(got) != len(AttributeKeys()) {
		t.Errorf("%d attributes %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// Absent figures are left out.
	u := Advise(Figures{})
	for _, kv := range u.Attributes() {
		if !strings.HasPrefix(string(kv.Key), "jobtrace.job.advice.") || (kv.Key != AttrKind && kv.Key != AttrText) {
			t.Errorf("no figures, yet %s", kv.Key)
		}
	}
}

// The table of machine sizes in docs/insight.md is what the code gives:
// each row's bound gets its size, and a little more the next one.
func TestDocumentedSizes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "insight.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(string(data), "\n") {
		var memUp, cpuUp float64
		var unit string
		var memGiB, cpuN int
		if _, err := fmt.Sscanf(line, "| up to %g %s | %d GiB | | up to %g | %d |", &memUp, &unit, &memGiB, &cpuUp, &cpuN); err != nil {
			continue
		}
		rows++
		peak := uint64(memUp * (1 << 30))
		if unit == "MiB" {
			peak = uint64(memUp * (1 << 20))
		}
		if got := memoryFor(peak); got != uint64(memGiB)<<30 {
			t.Errorf("%s: a peak of %g %s gets %d GiB", line, memUp, unit, got>>30)
		}
		if got := memoryFor(peak + peak/20); got != uint64(2*memGiB)<<30 {
			t.Errorf("%s: 5 %% more gets %d GiB, want %d", line, got>>30, 2*memGiB)
		}
		if got := CPUsFor(cpuUp); got != cpuN {
			t.Errorf("%s: %g CPUs busy get %d", line, cpuUp, got)
		}
		if got := CPUsFor(cpuUp * 1.05); got != 2*cpuN {
			t.Errorf("%s: 5 %% more gets %d CPUs, want %d", line, got, 2*cpuN)
		}
	}
	if rows < 5 {
		t.Errorf("%d rows of sizes in docs/insight.md", rows)
	}
}
