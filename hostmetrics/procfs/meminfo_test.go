package procfs

import "testing"

func TestMeminfoFixture(t *testing.T) {
	var m Meminfo
	if err := fixture.Meminfo(&m); err != nil {
		t.Fatal(err)
	}
	want := Meminfo{
		MemTotal: 24683656 << 10, MemFree: 23426068 << 10, MemAvailable: 24213424 << 10,
		Buffers: 37188 << 10, Cached: 719252 << 10, HasMemAvailable: true,
	}
	if m != want {
		t.Errorf("got %+v, want %+v", m, want)
	}
	if m.Used() != (24683656-24213424)<<10 {
		t.Errorf("Used = %d", m.Used())
	}
}

func TestParseMeminfo(t *testing.T) {
	var m Meminfo
	old := "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 200 kB\nCached: 300 kB\nSwapTotal: 50 kB\nSwapFree: 20 kB\nHugePages_Total: 0\n"
	if err := parseMeminfo([]byte(old), &m); err != nil {
		t.Fatal(err)
	}
	if m.HasMemAvailable || m.Used() != 400<<10 || m.SwapUsed() != 30<<10 {
		t.Errorf("without MemAvailable: %+v, Used %d", m, m.Used())
	}
	for _, tc := range []struct {
		in   string
		line int
	}{
		{"MemFree: 1 kB\n", 1},
		{"MemTotal: 1 kB\nMemFree 1 kB\n", 2},
		{"MemTotal: 1 kB\nCached: lots kB\n", 2},
		{"MemTotal: 1 MB\n", 1},
		{"MemTotal: 18446744073709551615 kB\n", 1},
	} {
		wantParseErr(t, parseMeminfo([]byte(tc.in), &m), tc.line)
	}
}
