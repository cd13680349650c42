package proctree

import (
	"encoding/binary"
	"reflect"
	"testing"
)

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
	for _, bad := range []string{"", "rchar: 1\nwchar: 2\n", "rchar 1\n", "read_bytes: 1\nread_bytes: 2\n",
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
