package procstat

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
)

// FuzzParse prints a /proc/<pid>/stat line as the kernel does, with any
// command name (spaces, parentheses and all), and checks that Parse reads
// back every field it keeps; and that on any bytes it never panics and
// gives a name taken from between the first '(' and the last ')'.
func FuzzParse(f *testing.F) {
	f.Add([]byte("sh"), byte('S'), int32(1), int32(5), uint32(5), uint32(6), int32(7), int32(8), uint16(1), uint32(99), []byte("1 (sh) S 0"))
	f.Add([]byte("my (weird) prog) x"), byte('R'), int32(-1), int32(0), uint32(0), uint32(1<<31), int32(-3), int32(0), uint16(65535), uint32(0), []byte("((()"))
	f.Add([]byte(""), byte('Z'), int32(0), int32(-1), uint32(0), uint32(0), int32(0), int32(0), uint16(0), uint32(0), []byte("1 () Z 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22"))
	f.Fuzz(func(t *testing.T, comm []byte, state byte, ppid, pgrp int32, utime, stime uint32, cutime, cstime int32, threads uint16, start uint32, raw []byte) {
		defer fuzzcheck.NoHang(comm, raw)()
		if s, ok := Parse(raw); ok {
			open, end := bytes.IndexByte(raw, '('), bytes.LastIndexByte(raw, ')')
			if !bytes.Equal(s.Comm, raw[open+1:end]) || s.PID <= 0 {
				t.Fatalf("Parse(%q): pid %d, comm %q", raw, s.PID, s.Comm)
			}
		}
		if state <= ' ' || state == '(' || state == ')' || state >= 0x7f {
			state = 'S'
		}
		line := fmt.Appendf(nil, "%d (%s) %c %d %d 1 0 -1 4194560 10 0 0 0 %d %d %d %d 20 0 %d 0 %d 1000 200 18446744073709551615\n",
			4242, comm, state, ppid, pgrp, utime, stime, cutime, cstime, threads, start)
		s, ok := Parse(line)
		want := Stat{PID: 4242, Comm: comm, State: state, PPID: int(ppid), PGRP: int(pgrp), Session: 1, UTime: uint64(utime), STime: uint64(stime),
			CUTime: uint64(max(cutime, 0)), CSTime: uint64(max(cstime, 0)), Threads: int(threads), StartTime: uint64(start)}
		if !ok || !bytes.Equal(s.Comm, want.Comm) || s.State != want.State || s.PPID != want.PPID || s.PGRP != want.PGRP ||
			s.Session != want.Session || s.UTime != want.UTime || s.STime != want.STime || s.CUTime != want.CUTime ||
			s.CSTime != want.CSTime || s.Threads != want.Threads || s.StartTime != want.StartTime || s.PID != want.PID {
			t.Fatalf("Parse(%q) = %+v, %v; want %+v", line, s, ok, want)
		}
	})
}
