package cgroup

import (
	"errors"
	"strings"
	"testing"
)

func TestParseCPUStat(t *testing.T) {
	// Without the cpu controller (hybrid unified hierarchy): no throttling keys.
	var s CPUStat
	if err := parseCPUStat("cpu.stat", []byte("usage_usec 502671\nuser_usec 482558\nsystem_usec 20112\nnice_usec 0\n"), &s); err != nil {
		t.Fatal(err)
	}
	want := CPUStat{UsageUsec: some[uint64](502671), UserUsec: some[uint64](482558), SystemUsec: some[uint64](20112)}
	if s != want {
		t.Errorf("got %+v, want %+v", s, want)
	}
	// With it, and a key in a new place.
	s = CPUStat{}
	in := "usage_usec 10\nuser_usec 6\nsystem_usec 4\ncore_sched.force_idle_usec 0\nnr_periods 5\nnr_throttled 2\nthrottled_usec 300\nnr_bursts 0\nburst_usec 0"
	if err := parseCPUStat("cpu.stat", []byte(in), &s); err != nil {
		t.Fatal(err)
	}
	want = CPUStat{some[uint64](10), some[uint64](6), some[uint64](4), some[uint64](300)}
	if s != want {
		t.Errorf("got %+v, want %+v", s, want)
	}
	err := parseCPUStat("x/cpu.stat", []byte("usage_usec 1\nuser_usec -3\n"), &s)
	if !errors.Is(err, ErrParse) || err.Error() != `cgroup: malformed file: x/cpu.stat line 2: want "key value"` {
		t.Errorf("err = %v", err)
	}
}

func TestParseSingle(t *testing.T) {
	if v, err := parseSingle("memory.current", []byte("536870912\n")); err != nil || v != some[uint64](536870912) {
		t.Errorf("parseSingle = %+v, %v", v, err)
	}
	if _, err := parseSingle("memory.current", []byte("18446744073709551616\n")); !errors.Is(err, ErrParse) {
		t.Errorf("overflow: err = %v", err)
	}
}

func TestParseMemory(t *testing.T) {
	var e MemoryEvents
	if err := parseMemoryEvents("memory.events", []byte("low 0\nhigh 0\nmax 14\noom 2\noom_kill 1\noom_group_kill 0\n"), &e); err != nil {
		t.Fatal(err)
	}
	if e != (MemoryEvents{OOM: some[uint64](2), OOMKill: some[uint64](1)}) {
		t.Errorf("events = %+v", e)
	}
}

func TestParseIOStat(t *testing.T) {
	var s IOStat
	in := "8:16 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0\n" +
		"8:0 rbytes=100 wbytes=200 rios=1 wios=2\n" // a kernel without the discard keys
	if err := parseIOStat("io.stat", []byte(in), &s); err != nil {
		t.Fatal(err)
	}
	want := IOStat{some[uint64](1459300), some[uint64](314773704)}
	if s != want {
		t.Errorf("got %+v, want %+v", s, want)
	}
	// Present but empty: no IO yet is zero, not absent.
	if err := parseIOStat("io.stat", nil, &s); err != nil || s != (IOStat{some[uint64](0), some[uint64](0)}) {
		t.Errorf("empty: %+v, %v", s, err)
	}
	for _, bad := range []string{"rbytes=1\n", "8:0 rbytes\n", "8:0 rbytes=x\n"} {
		if err := parseIOStat("io.stat", []byte(bad), &s); !errors.Is(err, ErrParse) {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

func TestPressureErrorsNameTheFile(t *testing.T) {
	var p Pressure
	for _, bad := range []string{"half avg10=0.00\n", "some avg10\n", "some avg10=1.x\n", "some total=-1\n"} {
		err := readPressure("io.pressure", []byte(bad), &p)
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "io.pressure") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

func TestParseDescendants(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"nr_descendants 0\nnr_dying_descendants 3\n", 0, true},
		{"nr_subsys_cpu 2\nnr_descendants 17\n", 17, true},
		{"nr_dying_descendants 3\n", 0, false},
		{"nr_descendants x\n", 0, false},
		{"", 0, false},
	} {
		n, err := ParseDescendants("cgroup.stat", []byte(c.in))
		if (err == nil) != c.ok || n != c.want {
			t.Errorf("%q: %d, %v; want %d, ok %v", c.in, n, err, c.want, c.ok)
		}
		if err != nil && !errors.Is(err, ErrParse) {
			t.Errorf("%q: %v does not wrap ErrParse", c.in, err)
		}
	}
}
