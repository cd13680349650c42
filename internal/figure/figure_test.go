package figure

import (
	"math"
	"testing"
	"time"
)

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-time.Second, "0s"},
		{math.MinInt64, "0s"},
		{1, "1ns"},
		{999, "999ns"},
		{1000, "1µs"},
		{1234, "1.23µs"},
		{1235, "1.24µs"}, // half up
		{9995, "10µs"},
		{10_050, "10.1µs"},
		{850 * time.Microsecond, "850µs"},
		{999_499, "999µs"},
		{999_500, "1ms"}, // three digits at most: the next unit
		{time.Millisecond, "1ms"},
		{1500 * time.Microsecond, "1.5ms"},
		{12_340 * time.Microsecond, "12.3ms"},
		{999_949 * time.Microsecond, "1s"},
		{999_400 * time.Microsecond, "999ms"},
		{4560 * time.Millisecond, "4.56s"},
		{3500 * time.Millisecond, "3.5s"},
		{30 * time.Second, "30s"},
		{59_940 * time.Millisecond, "59.9s"},
		{59_950 * time.Millisecond, "1m00s"}, // 60.0s is a minute
		{time.Minute, "1m00s"},
		{123 * time.Second, "2m03s"},
		{59*time.Minute + 59*time.Second + 499*time.Millisecond, "59m59s"},
		{59*time.Minute + 59*time.Second + 500*time.Millisecond, "1h00m"},
		{time.Hour + 5*time.Minute + 29*time.Second, "1h05m"},
		{time.Hour + 5*time.Minute + 30*time.Second, "1h06m"},
		{50 * time.Hour, "50h00m"},
		{math.MaxInt64, "2562047h47m"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%d) = %q, want %q", int64(c.d), got, c.want)
		}
	}
}

// floatCase is a figure held as a float and the text its rule writes.
type floatCase struct {
	v    float64
	want string
}

// The rules of figures held as floats: each one's texts for its inputs.
func TestFloatRules(t *testing.T) {
	for _, rule := range []struct {
		name  string
		write func(float64) string
		cases []floatCase
	}{
		{"Seconds", Seconds, []floatCase{
			{0, "0s"},
			{-3, "0s"},
			{math.NaN(), Absent},
			{math.Inf(1), Absent},
			{math.Inf(-1), Absent},
			{0.0051, "5.1ms"},
			{8.3, "8.3s"},
			{1e300, "2562047h47m"},
		}},
		{"Bytes", Bytes, []floatCase{
			{0, "0 B"},
			{-1, "0 B"},
			{-5 * gib, "0 B"},
			{math.NaN(), Absent},
			{math.Inf(1), Absent},
			{0.4, "0 B"},
			{999, "999 B"},
			{999.4, "999 B"},
			{999.5, "0.98 KiB"}, // four digits: the next unit
			{1000, "0.98 KiB"},
			{1023, "1 KiB"},
			{1024, "1 KiB"},
			{1536, "1.5 KiB"},
			{1.23 * kib, "1.23 KiB"},
			{12.34 * kib, "12.3 KiB"},
			{999 * kib, "999 KiB"},
			{999.4 * kib, "999 KiB"},
			{999.95 * kib, "0.98 MiB"},
			{1000 * kib, "0.98 MiB"},
			{300*mib + 100*kib, "300 MiB"},
			{2.62 * gib, "2.62 GiB"},
			{3100 * mib, "3.03 GiB"},
			{8 * gib, "8 GiB"},
			{3 << 40, "3 TiB"},
			{5 << 60, "5 EiB"},
			{5000 * (1 << 60), "5000 EiB"},
		}},
		{"Rate", Rate, []floatCase{
			{0, "0 B/s"},
			{-7, "0 B/s"},
			{2.5 * mib, "2.5 MiB/s"},
			{1000, "0.98 KiB/s"},
			{math.NaN(), Absent},
			{math.Inf(-1), Absent},
		}},
		{"Count", Count, []floatCase{
			{0, "0"},
			{-2, "0"},
			{math.NaN(), Absent},
			{math.Inf(1), Absent},
			{0.004, "0"},
			{0.05, "0.05"},
			{0.2, "0.2"},
			{0.333, "0.33"},
			{0.996, "1"},
			{1, "1"},
			{2.14, "2.1"},
			{9.94, "9.9"},
			{9.96, "10"},
			{12.3, "12"},
			{999, "999"},
			{1000, "1000"},
			{1023, "1023"},
			{1024, "1024"},
			{1234.4, "1234"},
		}},
		{"Percent", Percent, []floatCase{
			{0, "0%"},
			{-1, "0%"},
			{math.NaN(), Absent},
			{math.Inf(1), Absent},
			{0.25, "0.25%"},
			{0.5, "0.5%"},
			{3.14, "3.1%"},
			{9.96, "10%"},
			{35.4, "35%"},
			{99.6, "100%"},
			{100, "100%"},
		}},
	} {
		for _, c := range rule.cases {
			if got := rule.write(c.v); got != c.want {
				t.Errorf("%s(%v) = %q, want %q", rule.name, c.v, got, c.want)
			}
		}
	}
	// A duration in seconds is written as the same duration in
	// nanoseconds.
	for _, s := range []float64{1e-9, 0.0051, 0.123456, 8.3, 59.96, 3600.5, 1e6} {
		if got, want := Seconds(s), Duration(time.Duration(math.Round(s*1e9))); got != want {
			t.Errorf("Seconds(%v) = %q, Duration writes %q", s, got, want)
		}
	}
}

// The Append forms append to what the slice holds, write what the string
// forms return, and allocate nothing when the slice has room.
func TestAppendForms(t *testing.T) {
	prefix := []byte("x=")
	buf := make([]byte, 0, 64)
	for _, c := range []struct {
		name   string
		str    string
		append func([]byte) []byte
	}{
		{"Duration", Duration(4560 * time.Millisecond), func(b []byte) []byte { return AppendDuration(b, 4560*time.Millisecond) }},
		{"Duration in minutes", Duration(123 * time.Second), func(b []byte) []byte { return AppendDuration(b, 123*time.Second) }},
		{"Seconds", Seconds(0.0123), func(b []byte) []byte { return AppendSeconds(b, 0.0123) }},
		{"Bytes", Bytes(999.95 * kib), func(b []byte) []byte { return AppendBytes(b, 999.95*kib) }},
		{"Rate", Rate(2.5 * mib), func(b []byte) []byte { return AppendRate(b, 2.5*mib) }},
		{"Count", Count(0.333), func(b []byte) []byte { return AppendCount(b, 0.333) }},
		{"Percent", Percent(3.14), func(b []byte) []byte { return AppendPercent(b, 3.14) }},
		{"Percent absent", Percent(math.NaN()), func(b []byte) []byte { return AppendPercent(b, math.NaN()) }},
	} {
		if got := string(c.append(prefix)); got != "x="+c.str {
			t.Errorf("Append%s = %q, want %q", c.name, got, "x="+c.str)
		}
		if n := testing.AllocsPerRun(10, func() { buf = c.append(buf[:0]) }); n != 0 {
			t.Errorf("Append%s allocates %v times", c.name, n)
		}
	}
}
