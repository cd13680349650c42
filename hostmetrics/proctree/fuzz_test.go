package proctree

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
)

// FuzzParseStat prints a /proc/<pid>/stat line as the kernel does, with
// any command name (spaces, parentheses and all), and checks that
// parseStat reads back every field it uses; and that on any bytes it never
// panics and gives a name taken from between the first '(' and the last ')'.
// Seeds: below and in testdata/fuzz/FuzzParseStat.
func FuzzParseStat(f *testing.F) {
	f.Add([]byte("sh"), byte('S'), int32(1), uint32(5), uint32(6), int32(7), int32(8), uint16(1), uint32(99), []byte("1 (sh) S 0"))
	f.Add([]byte("my (weird) prog) x"), byte('R'), int32(-1), uint32(0), uint32(1<<31), int32(-3), int32(0), uint16(65535), uint32(0), []byte("((()"))
	f.Add([]byte(""), byte('Z'), int32(0), uint32(0), uint32(0), int32(0), int32(0), uint16(0), uint32(0), []byte("1 () Z 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22"))
	f.Fuzz(func(t *testing.T, comm []byte, state byte, ppid int32, utime, stime uint32, cutime, cstime int32, threads uint16, start uint32, raw []byte) {
		defer fuzzcheck.NoHang(comm, raw)()
		if s, ok := parseStat(raw); ok {
			open, end := bytes.IndexByte(raw, '('), bytes.LastIndexByte(raw, ')')
			if !bytes.Equal(s.comm, raw[open+1:end]) {
				t.Fatalf("parseStat(%q): comm %q", raw, s.comm)
			}
		}
		if state <= ' ' || state == '(' || state == ')' || state >= 0x7f {
			state = 'S'
		}
		line := fmt.Appendf(nil, "%d (%s) %c %d 1 1 0 -1 4194560 10 0 0 0 %d %d %d %d 20 0 %d 0 %d 1000 200 18446744073709551615\n",
			4242, comm, state, ppid, utime, stime, cutime, cstime, threads, start)
		s, ok := parseStat(line)
		want := procStat{comm: comm, state: state, ppid: int(ppid), utime: uint64(utime), stime: uint64(stime),
			cutime: uint64(max(cutime, 0)), cstime: uint64(max(cstime, 0)), threads: int(threads), starttime: uint64(start)}
		if !ok || !bytes.Equal(s.comm, want.comm) || s.state != want.state || s.ppid != want.ppid || s.utime != want.utime ||
			s.stime != want.stime || s.cutime != want.cutime || s.cstime != want.cstime || s.threads != want.threads || s.starttime != want.starttime {
			t.Fatalf("parseStat(%q) = %+v, %v; want %+v", line, s, ok, want)
		}
	})
}

// FuzzParseFiles feeds any bytes to the parsers of /proc/<pid>/io and
// statm: they never panic, and what they accept, printed as the kernel
// prints it, they read back the same. Seeds: below and in
// testdata/fuzz/FuzzParseFiles.
func FuzzParseFiles(f *testing.F) {
	f.Add([]byte("rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 5\nwrite_bytes: 6\ncancelled_write_bytes: 7\n"))
	f.Add([]byte("1000 200 100 10 0 50 0\n"))
	f.Add([]byte("rchar 1\n:\nread_bytes: 99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzcheck.NoHang(data)()
		if p, ok := parseIO(data); ok {
			again := fmt.Appendf(nil, "read_bytes: %d\nwrite_bytes: %d\n", p.readBytes, p.writeBytes)
			if q, ok := parseIO(again); !ok || q != p {
				t.Fatalf("parseIO(%q) = %+v; printed again %+v, %v", data, p, q, ok)
			}
		}
		if n, ok := parseStatm(data); ok {
			if m, ok := parseStatm(fmt.Appendf(nil, "7 %d 1 1 0 1 0\n", n)); !ok || m != n {
				t.Fatalf("parseStatm(%q) = %d; printed again %d, %v", data, n, m, ok)
			}
		}
	})
}
