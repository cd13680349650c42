package usagecsv

import (
	"testing"
	"time"
)

func TestAppendSeconds(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{2, "2"},
		{1.5, "1.5"},
		{0.000125, "0.000125"},
		{0.0000004, "0"}, // below a microsecond
		{0.0000006, "0.000001"},
		{-0.0000001, "0"},    // no "-0"
		{102.5 - 100, "2.5"}, // float noise does not show
		{0.1 + 0.2, "0.3"},
		{86400.25, "86400.25"},
		{time.Duration(1234567891).Seconds(), "1.234568"},
	} {
		if got := string(appendSeconds([]byte("x,"), c.in)); got != "x,"+c.want {
			t.Errorf("appendSeconds(%v) = %q, want %q", c.in, got, "x,"+c.want)
		}
	}
}

func TestAppendFixed2(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0.00"}, {100, "100.00"}, {22.5, "22.50"}, {56.254, "56.25"}, {0.006, "0.01"},
	} {
		if got := string(appendFixed2(nil, c.in)); got != c.want {
			t.Errorf("appendFixed2(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAppendField(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"build/compile", "build/compile"},
		{"a b", "a b"},
		{"a,b", `"a,b"`},
		{`say "hi"`, `"say ""hi"""`},
		{`"`, `""""`},
		{"two\nlines", "\"two\nlines\""},
		{"cr\r", "\"cr\r\""},
		{"'single'", "'single'"},
	} {
		if got := string(appendField(nil, c.in)); got != c.want {
			t.Errorf("appendField(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAppendTime(t *testing.T) {
	for _, c := range []struct {
		in   time.Time
		want string
	}{
		{t0, "2026-11-29T21:35:45.123Z"},
		{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "2026-01-02T03:04:05.000Z"},
		{time.Date(2026, 1, 2, 3, 4, 5, 999999999, time.FixedZone("", -7*3600)), "2026-01-02T10:04:05.999Z"},
	} {
		if got := string(appendTime(nil, c.in)); got != c.want {
			t.Errorf("appendTime(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAppendDuration(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want string
	}{
		{0, "0"},
		{time.Second, "1"},
		{1500 * time.Millisecond, "1.5"},
		{time.Microsecond, "0.000001"},
		{499 * time.Nanosecond, "0"},
		{500 * time.Nanosecond, "0.000001"},
		{1234567891, "1.234568"},
		{100*time.Hour + 10*time.Microsecond, "360000.00001"},
		{-1500 * time.Millisecond, "-1.5"},
	} {
		if got := string(appendDuration(nil, c.in)); got != c.want {
			t.Errorf("appendDuration(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
