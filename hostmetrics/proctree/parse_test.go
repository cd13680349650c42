package proctree

import (
	"encoding/binary"
	"reflect"
	"testing"
)

func TestParseStat(t *testing.T) {
	// A line from a real process, with its name changed to one holding
	// spaces and parentheses.
	line := "4242 (my (weird) prog) S 4241 4242 4200 0 -1 4194304 100 0 0 0 " +
		"1234 567 89 10 20 0 3 0 579509 3133440 356 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n"
	got, ok := parseStat([]byte(line))
	if !ok {
		t.Fatal("parseStat failed")
	}
	want := procStat{comm: []byte("my (weird) prog"), state: 'S', ppid: 4241, utime: 1234, stime: 567,
		cutime: 89, cstime: 10, threads: 3, starttime: 579509}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseStat = %+v, want %+v", got, want)
	}
}

func TestParseStatComm(t *testing.T) {
	for _, comm := range []string{"sh", "", "a b", ")", "((", ") S 1 2 3 (", "x) R 9 ("} {
		line := "7 (" + comm + ") R 1 7 7 0 -1 0 0 0 0 0 5 6 -1 0 20 0 1 0 99 0 0\n"
		got, ok := parseStat([]byte(line))
		if !ok || string(got.comm) != comm || got.utime != 5 || got.stime != 6 || got.ppid != 1 || got.starttime != 99 || got.cutime != 0 {
			t.Errorf("comm %q: parseStat = %+v, %v", comm, got, ok)
		}
	}
}

func TestParseStatBad(t *testing.T) {
	for _, line := range []string{
		"",
		"1 sh S 1",
		"1 (sh S 1 1 1",
		"1 (sh) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0",                        // ends before starttime
		"1 (sh) S 1 1 1 0 -1 0 0 0 0 0 x 6 0 0 20 0 1 0 99 0 0",                 // utime
		"1 (sh) SS 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 0",                // state
		"1 (sh) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 -99 0 0",                // starttime
		"1 (sh) S 1 1 1 0 -1 0 0 0 0 0 99999999999999999999 6 0 0 20 0 1 0 9 0", // overflow
	} {
		if got, ok := parseStat([]byte(line)); ok {
			t.Errorf("parseStat(%q) = %+v, want failure", line, got)
		}
	}
}

func TestParseStatm(t *testing.T) {
	if got, ok := parseStatm([]byte("765 401 372 5 0 123 0\n")); !ok || got != 401 {
		t.Errorf("parseStatm = %d, %v", got, ok)
	}
	for _, bad := range []string{"", "765", "765 x 1", "\n"} {
		if got, ok := parseStatm([]byte(bad)); ok {
			t.Errorf("parseStatm(%q) = %d, want failure", bad, got)
		}
	}
}

func TestParseIO(t *testing.T) {
	const in = "rchar: 1888111\nwchar: 91274\nsyscr: 8911\nsyscw: 346\n" +
		"read_bytes: 14417920\nwrite_bytes: 237568\ncancelled_write_bytes: 86016\n"
	got, ok := parseIO([]byte(in))
	want := procIO{readBytes: 14417920, writeBytes: 237568}
	if !ok || got != want {
		t.Errorf("parseIO = %+v, %v; want %+v", got, ok, want)
	}
	for _, bad := range []string{"", "rchar: 1\nwchar: 2\n", "rchar 1\n",
		"rchar: 1\nwchar: 2\nread_bytes: x\nwrite_bytes: 4\n"} {
		if got, ok := parseIO([]byte(bad)); ok {
			t.Errorf("parseIO(%q) = %+v, want failure", bad, got)
		}
	}
}

func TestAppendChildren(t *testing.T) {
	got, ok := appendChildren([]int{1}, []byte("200 201 3000 "))
	if !ok || !reflect.DeepEqual(got, []int{1, 200, 201, 3000}) {
		t.Errorf("appendChildren = %v, %v", got, ok)
	}
	if got, ok := appendChildren(nil, nil); !ok || len(got) != 0 {
		t.Errorf("appendChildren(empty) = %v, %v", got, ok)
	}
	for _, bad := range []string{"1 x", "0", "-3", "99999999999"} {
		if _, ok := appendChildren(nil, []byte(bad)); ok {
			t.Errorf("appendChildren(%q) succeeded", bad)
		}
	}
}

// dirent builds one struct linux_dirent64 record, padded to 8 bytes.
func dirent(name string) []byte {
	n := 19 + len(name) + 1
	n = (n + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint64(b, 1)
	binary.NativeEndian.PutUint16(b[16:], uint16(n))
	b[18] = 4 // DT_DIR
	copy(b[19:], name)
	return b
}

func TestAppendDirentPIDs(t *testing.T) {
	var buf []byte
	for _, name := range []string{".", "..", "100", "101", "12345"} {
		buf = append(buf, dirent(name)...)
	}
	got, ok := appendDirentPIDs(nil, buf)
	if !ok || !reflect.DeepEqual(got, []int{100, 101, 12345}) {
		t.Errorf("appendDirentPIDs = %v, %v", got, ok)
	}
	if _, ok := appendDirentPIDs(nil, buf[:len(buf)-3]); ok {
		t.Error("appendDirentPIDs accepted a truncated record")
	}
}
