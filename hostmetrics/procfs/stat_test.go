package procfs

import "testing"

func TestStatFixture(t *testing.T) {
	var s Stat
	if err := fixture.Stat(&s); err != nil {
		t.Fatal(err)
	}
	want := CPUTimes{User: 5504.31, System: 1773.42, Idle: 4396.39, IOWait: 53.27, SoftIRQ: 19.28, Steal: 78.06}
	if s.Total != want {
		t.Errorf("Total = %+v, want %+v", s.Total, want)
	}
	if len(s.CPUs) != 2 || s.CPUs[0].CPU != 0 || s.CPUs[1].CPU != 1 || !near(s.CPUs[1].User, 2770.22) {
		t.Errorf("CPUs = %+v", s.CPUs)
	}
}

func TestParseStat(t *testing.T) {
	var s Stat
	// Reuse: a second parse with fewer CPUs must not keep the old ones.
	if err := parseStat([]byte("cpu 1 2 3 4\ncpu0 1 2 3 4\ncpu3 1 2 3 4\n"), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.CPUs) != 2 || s.CPUs[1].CPU != 3 || s.Total.IOWait != 0 || !near(s.Total.Idle, 0.04) {
		t.Errorf("old kernel columns: %+v", s)
	}
	if err := parseStat([]byte("cpu 1 2 3 4 5 6 7 8 9 10\nctxt 5\n"), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.CPUs) != 0 || !near(s.Total.Steal, 0.08) {
		t.Errorf("reparse: %+v", s)
	}
	// What follows the cpu lines is not read: a line there that does not
	// parse is no error.
	if err := parseStat([]byte("cpu 1 2 3 4\ncpu0 1 2 3 4\nintr x\nctxt\ncpu1 x\n"), &s); err != nil || len(s.CPUs) != 1 {
		t.Errorf("after the cpu lines: %+v, %v", s, err)
	}

	for _, tc := range []struct {
		in   string
		line int
	}{
		{"", 1},
		{"ctxt 5\n", 1},
		{"cpu 1 2 3 4\ncpu0 1 2 x 4\n", 2},
		{"cpu 1 2 3\n", 1},
		{"cpu 1 2 3 4\ncpuX 1 2 3 4\n", 2},
	} {
		wantParseErr(t, parseStat([]byte(tc.in), &s), tc.line)
	}
}
