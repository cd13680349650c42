package verdict

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
)

// window is a usage of secs seconds on n CPUs in which the job kept busy
// CPUs busy and the machine was machine busy (share), with no stall
// figures; the options add the rest.
func window(secs float64, n int, busy, machine float64, opts ...func(*usage.Usage)) usage.Usage {
	d := time.Duration(secs * float64(time.Second))
	u := usage.Usage{Duration: d, Samples: 3, NumCPU: n, HasCPU: true}
	cpu := time.Duration(busy * secs * float64(time.Second))
	u.CPUUser, u.CPUSystem = cpu*3/4, cpu-cpu*3/4
	u.CPUAvg, u.CPUPeak = busy/float64(n), busy/float64(n)
	u.HasSystemCPU, u.SystemCPUAvg, u.SystemCPUPeak = true, machine, machine
	for _, o := range opts {
		o(&u)
	}
	return u
}

// stall sets a stall share of the window: the job's own cgroup's (own) or
// the machine's, for CPU, memory or IO.
func stall(own bool, resource string, share float64) func(*usage.Usage) {
	return func(u *usage.Usage) {
		st, has := &u.SystemPressure, &u.HasSystemPressure
		if own {
			st, has = &u.Pressure, &u.HasPressure
		}
		d := time.Duration(share * float64(u.Duration))
		switch resource {
		case "cpu":
			st.HasCPUSome, st.CPUSome = true, d
		case "memory":
			st.HasMemorySome, st.MemorySome = true, d
		case "io":
			st.HasIOSome, st.IOSome = true, d
		}
		*has = true
	}
}

func ownCPUStall(s float64) func(*usage.Usage) { return stall(true, "cpu", s) }
func sysCPUStall(s float64) func(*usage.Usage) { return stall(false, "cpu", s) }
func ownMemStall(s float64) func(*usage.Usage) { return stall(true, "memory", s) }
func sysMemStall(s float64) func(*usage.Usage) { return stall(false, "memory", s) }
func ownIOStall(s float64) func(*usage.Usage)  { return stall(true, "io", s) }
func sysIOStall(s float64) func(*usage.Usage)  { return stall(false, "io", s) }

func wrote(n uint64) func(*usage.Usage) {
	return func(u *usage.Usage) { u.HasIO, u.WriteBytes = true, n }
}

func steal(s float64) func(*usage.Usage) {
	return func(u *usage.Usage) {
		u.SystemCPUSteal = time.Duration(s * float64(u.Duration) * float64(u.NumCPU))
	}
}

// iowait sets the machine's iowait to s × the phase's duration (in CPU
// time: up to the CPUs' count × the duration).
func iowait(s float64) func(*usage.Usage) {
	return func(u *usage.Usage) { u.SystemCPUIOWait = time.Duration(s * float64(u.Duration)) }
}

func oomKills(n uint64) func(*usage.Usage) {
	return func(u *usage.Usage) { u.HasOOMKills, u.OOMKills = true, n }
}

func network(n uint64) func(*usage.Usage) {
	return func(u *usage.Usage) { u.HasNetwork, u.NetworkReceive = true, n }
}

// Each rule of the table, and each side of each of its thresholds.
func TestJudgeRules(t *testing.T) {
	const eps = 0.005 // just past a threshold, well within what the figures resolve
	for _, c := range []struct {
		name   string
		u      usage.Usage
		want   Kind
		reason string // a part of the reason
	}{
		{"no figures", usage.Usage{Duration: 10 * time.Second}, Unknown, "no CPU figures"},
		{"zero duration", usage.Usage{HasCPU: true}, Unknown, "no CPU figures"},
		{"just short", window(MinDuration.Seconds()-eps, 2, 2, 1), TooShort, "too short to judge: 995ms, under 1s"},
		{"short", window(0.44, 2, 2, 1), TooShort, "too short to judge: 440ms, under 1s"},
		{"just long enough", window(MinDuration.Seconds(), 2, 2, 1), CPUBound, "kept 2 of 2 CPUs busy"},

		{"oom kill", window(10, 2, 2, 1, oomKills(2)), MemoryPressured, "the OOM killer killed 2 of its processes"},
		{"no oom kill", window(10, 2, 0.01, 0.1, oomKills(0)), Waiting, ""},
		{"own memory stall", window(10, 2, 2, 1, ownMemStall(MemoryStallShare+eps)), MemoryPressured, "waited for memory 11% of the time"},
		{"own memory stall below", window(10, 2, 2, 1, ownMemStall(MemoryStallShare-eps)), CPUBound, ""},
		{"machine memory stall", window(10, 2, 0.5, 0.5, sysMemStall(0.4)), MemoryPressured, "the machine's tasks waited for memory 40%"},
		{"own stall counts over the machine's", window(10, 2, 1, 0.5, sysMemStall(0.4), ownMemStall(0)), SingleThread, ""},

		{"steal", window(10, 2, 1, 1, steal(StealShare+eps)), Starved, "the hypervisor took 11% of the machine's CPU time (steal) while the job used 1 CPU"},
		{"steal below", window(10, 2, 1, 1, steal(StealShare-eps)), SingleThread, ""},
		{"steal while waiting longer for IO", window(10, 2, 0.5, 0.4, steal(0.16), ownIOStall(0.26), wrote(1<<30)), IOBound, "waited for IO 26%"},
		{"steal longer than the wait for IO", window(10, 2, 0.5, 0.4, steal(0.30), ownIOStall(0.26), wrote(1<<30)), Starved, "(steal)"},
		{"own CPU stall, busy machine", window(10, 2, 0.6, 0.98, ownCPUStall(0.41)), Starved,
			"waited for CPU 41% of the time while the machine was 98% busy, 1.4 CPUs by others, and the job used 0.6 CPUs"},
		{"own CPU stall below", window(10, 2, 0.6, 0.98, ownCPUStall(CPUStallShare-eps)), Waiting, ""},
		{"own CPU stall, machine not busy", window(10, 2, 0.6, BusyMachine-eps, ownCPUStall(0.5)), Waiting, ""},
		{"own CPU stall, machine just busy", window(10, 2, 0.6, BusyMachine+eps, ownCPUStall(0.5)), Starved, ""},
		{"own CPU stall, the job's own work", window(10, 2, 1.6, 1, ownCPUStall(0.5)), CPUBound, ""},
		{"own CPU stall, neighbours just below", window(10, 2, 2*(1-NeighbourShare)+2*eps, 1, ownCPUStall(0.5)), CPUBound, ""},
		{"own CPU stall, neighbours just over", window(10, 4, 4*(1-NeighbourShare)-4*eps, 1, ownCPUStall(0.5)), Starved, "1 CPU by others"},
		{"own CPU stall, idle job", window(10, 2, 0, 1, ownCPUStall(0.5)), Starved, "the job used 0 CPUs"},
		{"machine CPU stall", window(10, 2, 0.6, 1, sysCPUStall(0.5)), Starved, "the machine's tasks waited for CPU 50% of the time"},
		{"machine CPU stall below", window(10, 2, 0.6, 1, sysCPUStall(CPUStallShare-eps)), Waiting, ""},
		{"machine CPU stall, a CPU kept busy", window(10, 2, SingleThreadCPUs, 1, sysCPUStall(0.9)), SingleThread, ""},
		{"machine CPU stall, just under a CPU", window(10, 2, SingleThreadCPUs-eps, 1, sysCPUStall(0.9)), Starved, ""},
		{"own CPU stall, a CPU kept busy", window(10, 2, 1, 1, ownCPUStall(0.5)), Starved, "the job used 1 CPU"},
		{"waited for IO longer than for CPU", window(10, 2, 0.1, 1, ownCPUStall(0.42), ownIOStall(0.43)), IOBound, "waited for IO 43%"},
		{"waited for IO as long as for CPU", window(10, 2, 0.1, 1, ownCPUStall(0.42), ownIOStall(0.42)), Starved, ""},
		{"machine CPU stall, idle job", window(10, 2, MinActiveCPUs-eps, 1, sysCPUStall(0.5)), Waiting, ""},
		{"machine CPU stall, active job", window(10, 2, MinActiveCPUs+eps, 1, sysCPUStall(0.5)), Starved, ""},
		{"no stall figures, busy machine", window(10, 2, 0.6, 1), Waiting, ""},

		{"all CPUs", window(10, 2, 1.9, 1), CPUBound, "kept 1.9 of 2 CPUs busy"},
		{"all CPUs and more work", window(10, 2, 2, 1, ownCPUStall(0.6)), CPUBound, "kept 2 of 2 CPUs busy, and its tasks waited for a CPU 60% of the time: more CPUs would help"},
		{"CPU share just below", window(10, 8, 8*CPUBoundShare-eps, 0.8), CPUBound, ""}, // over ParallelCPUs
		{"parallel on many CPUs", window(10, 64, ParallelCPUs+eps, 0.1), CPUBound, "kept 1.3 of 64 CPUs busy"},
		{"one CPU machine", window(10, 1, CPUBoundShare, 0.8), CPUBound, "kept 0.75 of 1 CPUs busy"},
		{"one CPU machine below", window(10, 1, CPUBoundShare-eps, 0.8), Waiting, ""},
		{"two CPUs, just parallel", window(10, 2, ParallelCPUs+eps, 0.8), CPUBound, ""},
		{"two CPUs, just not parallel", window(10, 2, ParallelCPUs, 0.8), SingleThread, ""},

		{"one of two", window(10, 2, 1, 0.5), SingleThread, "kept about one CPU busy (1 of 2 CPUs): one thread did the work"},
		{"one of many", window(10, 64, ParallelCPUs, 0.1), SingleThread, ""},
		{"single thread just", window(10, 2, SingleThreadCPUs, 0.5), SingleThread, ""},
		{"single thread below", window(10, 2, SingleThreadCPUs-eps, 0.5), Waiting, ""},

		{"own IO stall", window(10, 2, 0.2, 0.2, ownIOStall(0.6), wrote(300<<20)), IOBound, "waited for IO 60% of the time and the job moved 300 MiB while it used 0.2 CPUs"},
		{"own IO stall just", window(10, 2, 0.2, 0.2, ownIOStall(IOStallShare+eps)), IOBound, ""},
		{"own IO stall below", window(10, 2, 0.2, 0.2, ownIOStall(IOStallShare-eps)), Waiting, ""},
		{"machine IO stall, job IO", window(10, 2, 0.2, 0.2, sysIOStall(0.6), wrote(MinIOBytes)), IOBound, "the machine's tasks waited for IO 60%"},
		{"machine IO stall, little job IO", window(10, 2, 0.2, 0.2, sysIOStall(0.6), wrote(MinIOBytes-1)), Waiting, ""},
		{"iowait without stall figures", window(10, 2, 0.2, 0.2, iowait(0.3), wrote(MinIOBytes)), IOBound, "the machine's CPUs idled for IO 30% of the time"},
		{"iowait without stall figures, little job IO", window(10, 2, 0.2, 0.2, iowait(0.3), wrote(MinIOBytes-1)), Waiting, ""},
		{"iowait without stall figures, below", window(10, 2, 0.2, 0.2, iowait(IOStallShare-eps), wrote(MinIOBytes)), Waiting, ""},
		{"iowait of both CPUs", window(10, 2, 0.2, 0.2, iowait(1.6), wrote(MinIOBytes)), IOBound, "idled for IO 100%"},
		{"stall figures over iowait", window(10, 2, 0.2, 0.2, iowait(0.5), sysIOStall(0.1), wrote(MinIOBytes)), Waiting, ""},
		{"single thread with IO stall", window(10, 2, 0.9, 0.5, ownIOStall(0.3)), SingleThread, ""},

		{"sleep", window(10, 2, 0.001, 0.05), Waiting, "used under 0.01 of 2 CPUs and waited little for CPU, IO or memory"},
		{"small", window(10, 2, 0.012, 0.05), Waiting, "used 0.01 of 2 CPUs"},
		{"download", window(10, 2, 0.05, 0.05, network(50<<20)), Waiting, "the machine's network moved 50 MiB"},
		{"no CPU count", window(10, 0, 0.3, 0.3), Waiting, "used 0.3 CPUs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Judge(c.u)
			if v.Kind != c.want || !strings.Contains(v.Reason, c.reason) {
				t.Errorf("Judge = %s (%s); want %s with reason containing %q", v.Kind, v.Reason, c.want, c.reason)
			}
			if v.Reason == "" || strings.HasSuffix(v.Reason, ".") {
				t.Errorf("reason %q: want one sentence without a full stop", v.Reason)
			}
		})
	}
}

// The machine's CPU stall is not the job's own queue: a cpu-bound job says
// nothing of it.
func TestCPUBoundMachineStallNotItsOwn(t *testing.T) {
	if v := Judge(window(10, 2, 2, 1, sysCPUStall(0.6))); v.Kind != CPUBound || v.Reason != "kept 2 of 2 CPUs busy" {
		t.Errorf("Judge = %v", v)
	}
}

// Every kind the rules give is one of Kinds, and every kind of Kinds is
// given by some rule (or is Waiting, the verdict when none holds).
func TestKindsAreTheRules(t *testing.T) {
	seen := map[Kind]bool{Waiting: true}
	for _, r := range rules {
		if !r.kind.Known() {
			t.Errorf("rule of kind %q: not in Kinds", r.kind)
		}
		seen[r.kind] = true
	}
	for _, k := range Kinds() {
		if !seen[k] {
			t.Errorf("kind %s: no rule gives it", k)
		}
	}
	if len(seen) != len(Kinds()) {
		t.Errorf("%d kinds given, %d in Kinds", len(seen), len(Kinds()))
	}
}

func TestAttributesRoundTrip(t *testing.T) {
	for _, k := range Kinds() {
		v := Verdict{Kind: k, Reason: "because " + string(k)}
		got, ok := FromAttributes(append([]attribute.KeyValue{attribute.String("other", "x")}, v.Attributes()...))
		if !ok || got != v {
			t.Errorf("FromAttributes(%v.Attributes()) = %v, %v", v, got, ok)
		}
	}
	if a := (Verdict{}).Attributes(); len(a) != 0 {
		t.Errorf("zero verdict has attributes %v", a)
	}
	for _, attrs := range [][]attribute.KeyValue{
		nil,
		{AttrReason.String("a reason alone")},
		{AttrKind.String("slow")},
		{AttrKind.Int(3)},
		{AttrKind.String("cpu-bound"), AttrKind.Int(3)},
	} {
		if v, ok := FromAttributes(attrs); ok {
			t.Errorf("FromAttributes(%v) = %v, true; want false", attrs, v)
		}
	}
}

// A key set twice counts as its last, by the rule every figure read back
// from a span follows (readback.Attr), even when the last is no string:
// a reason then counts as none. Before, a reason kept the last string set,
// where the kind took the last value.
func TestFromAttributesTakesTheLast(t *testing.T) {
	for _, c := range []struct {
		attrs []attribute.KeyValue
		want  Verdict
	}{
		{[]attribute.KeyValue{AttrKind.String("io-bound"), AttrReason.String("first"), AttrKind.String("cpu-bound"), AttrReason.String("last")}, Verdict{CPUBound, "last"}},
		{[]attribute.KeyValue{AttrKind.String("cpu-bound"), AttrReason.String("a reason"), AttrReason.Int(3)}, Verdict{CPUBound, ""}},
	} {
		if got, ok := FromAttributes(c.attrs); !ok || got != c.want {
			t.Errorf("FromAttributes(%v) = %+v, %v; want %+v", c.attrs, got, ok, c.want)
		}
	}
}

// A verdict read back from spans another tool wrote (or an edited spool)
// comes back bounded and clean, whatever its reason holds.
func TestFromAttributesBoundsAndCleansTheReason(t *testing.T) {
	huge := strings.Repeat("é", 1<<19) // 1 MiB, two bytes a character
	for _, tc := range []struct{ reason, want string }{
		{"kept 1.9 of 2 CPUs busy", "kept 1.9 of 2 CPUs busy"},
		{"a\x1b[2Jb\xffc\u202e", "a\uFFFD[2Jb\uFFFDc\uFFFD"},
		{huge, strings.Repeat("é", (MaxReasonBytes-len("…"))/2) + "…"},
	} {
		v, ok := FromAttributes([]attribute.KeyValue{AttrKind.String(string(CPUBound)), AttrReason.String(tc.reason)})
		if !ok {
			t.Fatalf("FromAttributes: no verdict")
		}
		if v.Reason != tc.want || len(v.Reason) > MaxReasonBytes || !utf8.ValidString(v.Reason) {
			t.Errorf("reason %.40q… (%d bytes) read back as %.60q (%d bytes), want %.60q", tc.reason, len(tc.reason), v.Reason, len(v.Reason), tc.want)
		}
	}
}
