package kernfmt

import (
	"strconv"
	"testing"
)

func TestFieldsAndLines(t *testing.T) {
	line, rest := NextLine([]byte("cpu  1 2\t3\nnext"))
	if string(line) != "cpu  1 2\t3" || string(rest) != "next" {
		t.Fatalf("NextLine = %q, %q", line, rest)
	}
	var got []string
	for f, r := NextField(line); len(f) > 0; f, r = NextField(r) {
		got = append(got, string(f))
	}
	if len(got) != 4 || got[0] != "cpu" || got[3] != "3" {
		t.Errorf("fields = %q", got)
	}
	if f, _ := NextField([]byte(" \t\n")); len(f) != 0 {
		t.Errorf("field of blanks = %q", f)
	}
	if l, r := NextLine([]byte("no newline")); string(l) != "no newline" || r != nil {
		t.Errorf("last line = %q, %q", l, r)
	}
}

func TestNumbers(t *testing.T) {
	if v, ok := ParseUint([]byte("18446744073709551615")); !ok || v != 1<<64-1 {
		t.Errorf("ParseUint(max) = %d, %v", v, ok)
	}
	for _, bad := range []string{"", "18446744073709551616", "-1", "1 ", "0x1"} {
		if _, ok := ParseUint([]byte(bad)); ok {
			t.Errorf("ParseUint(%q) ok", bad)
		}
	}
	if v, ok := ParseInt([]byte("-17")); !ok || v != -17 {
		t.Errorf("ParseInt(-17) = %d, %v", v, ok)
	}
	if _, ok := ParseInt([]byte("9223372036854775808")); ok {
		t.Error("ParseInt accepted 2^63")
	}
	for in, want := range map[string]float64{"0.00": 0, "12.50": 12.5, "100.00": 100, "7": 7, "0.05": 0.05} {
		if got, ok := ParseDecimal([]byte(in)); !ok || got != want {
			t.Errorf("ParseDecimal(%q) = %v, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", ".5", "1.", "1.2.3", "-1", "1e3"} {
		if _, ok := ParseDecimal([]byte(in)); ok {
			t.Errorf("ParseDecimal(%q) ok", in)
		}
	}
	for _, n := range []uint64{0, 7, 42, 1234567, 1<<64 - 1} {
		if got := string(AppendUint([]byte("/proc/"), n)); got != "/proc/"+strconv.FormatUint(n, 10) {
			t.Errorf("AppendUint = %q", got)
		}
	}
}

func TestNoAllocations(t *testing.T) {
	data := []byte("some avg10=1.25 avg60=0.00 avg300=0.00 total=123\n")
	buf := make([]byte, 0, 32)
	n := testing.AllocsPerRun(100, func() {
		line, _ := NextLine(data)
		for f, r := NextField(line); len(f) > 0; f, r = NextField(r) {
			ParseDecimal(f)
			ParseUint(f)
		}
		buf = AppendUint(buf[:0], 12345)
	})
	if n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}
