package procstat

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	// A line from a real process, with its name changed to one holding
	// spaces and parentheses.
	line := "4242 (my (weird) prog) S 4241 4240 4200 0 -1 4194304 100 0 0 0 " +
		"1234 567 89 10 20 0 3 0 579509 3133440 356 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n"
	got, ok := Parse([]byte(line))
	if !ok {
		t.Fatal("Parse failed")
	}
	want := Stat{PID: 4242, Comm: []byte("my (weird) prog"), State: 'S', PPID: 4241, PGRP: 4240, Session: 4200,
		UTime: 1234, STime: 567, CUTime: 89, CSTime: 10, Threads: 3, StartTime: 579509}
	if !reflect.DeepEqual(got, want) || got.Exited() {
		t.Errorf("Parse = %+v, want %+v", got, want)
	}
	z, ok := Parse([]byte("12 (z) Z 1 12 12 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0"))
	if !ok || !z.Exited() || z.StartTime != 55 {
		t.Errorf("a zombie: %+v, %v", z, ok)
	}
}

func TestParseComm(t *testing.T) {
	for _, comm := range []string{"sh", "", "a b", ")", "((", ") S 1 2 3 (", "x) R 9 ("} {
		line := "7 (" + comm + ") R 1 7 7 0 -1 0 0 0 0 0 5 6 -1 0 20 0 1 0 99 0 0\n"
		got, ok := Parse([]byte(line))
		if !ok || string(got.Comm) != comm || got.UTime != 5 || got.STime != 6 || got.PPID != 1 || got.StartTime != 99 || got.CUTime != 0 {
			t.Errorf("comm %q: Parse = %+v, %v", comm, got, ok)
		}
	}
}

func TestParseBad(t *testing.T) {
	for _, line := range []string{
		"",
		"1 sh S 1",
		"1 (sh S 1 1 1",
		"(sh) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 0",                   // no pid
		"0 (sh) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 0",                 // pid 0
		"1 2 (sh) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 0",               // two pids
		"1 (sh) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0",                        // ends before starttime
		"1 (sh) S 1 1 1 0 -1 0 0 0 0 0 x 6 0 0 20 0 1 0 99 0 0",                 // utime
		"1 (sh) S 1 x 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 0",                 // process group
		"1 (sh) SS 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 0",                // state
		"1 (sh) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 -99 0 0",                // starttime
		"1 (sh) S 1 1 1 0 -1 0 0 0 0 0 99999999999999999999 6 0 0 20 0 1 0 9 0", // overflow
	} {
		if got, ok := Parse([]byte(line)); ok {
			t.Errorf("Parse(%q) = %+v, want failure", line, got)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	line := []byte("4242 (my prog) S 4241 4240 4200 0 -1 4194304 100 0 0 0 " +
		"1234 567 89 10 20 0 3 0 579509 3133440 356 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Parse(line); !ok {
			b.Fatal("Parse failed")
		}
	}
}
