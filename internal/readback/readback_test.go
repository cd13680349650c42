package readback

import (
	"math"
	"strconv"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// A figure is a finite number from 0 to MaxFigure, an int or a float; a
// key set twice is read as its last, even when the last is no figure.
func TestNumber(t *testing.T) {
	const k = attribute.Key("k")
	for _, c := range []struct {
		v    attribute.Value
		want float64
		ok   bool
	}{
		{attribute.Int64Value(3), 3, true},
		{attribute.Int64Value(math.MaxInt64), math.MaxInt64, true},
		{attribute.Float64Value(0.5), 0.5, true},
		{attribute.Float64Value(0), 0, true},
		{attribute.Float64Value(MaxFigure), MaxFigure, true},
		{attribute.Int64Value(-1), 0, false},
		{attribute.Float64Value(-0.5), 0, false},
		{attribute.Float64Value(math.Nextafter(MaxFigure, math.Inf(1))), 0, false},
		{attribute.Float64Value(math.Inf(1)), 0, false},
		{attribute.Float64Value(math.NaN()), 0, false},
		{attribute.StringValue("1"), 0, false},
		{attribute.BoolValue(true), 0, false},
	} {
		got, ok := Number([]attribute.KeyValue{{Key: k, Value: c.v}}, k)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s: %v %v, want %v %v", c.v.Emit(), got, ok, c.want, c.ok)
		}
	}
	twice := []attribute.KeyValue{k.Int(1), attribute.Int("other", 5), k.Int(2)}
	if v, ok := Number(twice, k); v != 2 || !ok {
		t.Errorf("a key set twice: %v %v, want its last, 2", v, ok)
	}
	if _, ok := Number([]attribute.KeyValue{k.Int(1), k.String("x")}, k); ok {
		t.Errorf("a key set twice, the last no number: read the first")
	}
	if _, ok := Number(twice, "absent"); ok {
		t.Errorf("an absent key read")
	}
}

// A count is the whole part of a figure, at most what 64 bits hold; a
// duration in seconds reads back as the one written.
func TestCountAndSeconds(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want uint64
	}{{0, 0}, {2.9, 2}, {1 << 40, 1 << 40}, {MaxFigure, math.MaxUint64}} {
		if got := Count(c.v); got != c.want {
			t.Errorf("Count(%v) = %d, want %d", c.v, got, c.want)
		}
	}
	for _, d := range []time.Duration{0, time.Nanosecond, 1234567891 * time.Nanosecond, 41 * time.Second, 90 * time.Hour} {
		if got := Seconds(d.Seconds()); got != d {
			t.Errorf("Seconds(%v) = %v", d.Seconds(), got)
		}
	}
	if got := Seconds(MaxFigure); got != math.MaxInt64 {
		t.Errorf("Seconds(MaxFigure) = %v, want the largest duration", got)
	}
}

// A duration written by SecondsOf shows as its exact decimal (the shortest
// form that reads back) and reads back as itself; Duration.Seconds gave
// 2.4469311559999998 for the first.
func TestSecondsOfShowsTheDecimal(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{2446931156, "2.446931156"},
		{1516482 * time.Microsecond, "1.516482"},
		{1234567891, "1.234567891"},
		{time.Second, "1"},
		{7 * time.Microsecond, "7e-06"},
		{36*time.Hour + 1, "129600.000000001"},
		{0, "0"},
	} {
		v := SecondsOf(c.d)
		if got := strconv.FormatFloat(v, 'g', -1, 64); got != c.want {
			t.Errorf("SecondsOf(%d ns) shows %s, want %s", int64(c.d), got, c.want)
		}
		if back := Seconds(v); back != c.d {
			t.Errorf("SecondsOf(%d ns) reads back as %d ns", int64(c.d), int64(back))
		}
	}
}
