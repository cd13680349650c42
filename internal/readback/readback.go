// Package readback is the one rule for a figure jobtrace reads back from
// what it wrote, a span's attributes (the spool, or the SDK's span in a
// run) or a cell of resource-usage.csv, whoever wrote the file: a figure is
// a finite number from 0 to MaxFigure, an attribute's number is an int or
// a float, and an attribute set twice counts as its last, as the SDK keeps
// it.
//
// Every figure jobtrace writes is within the rule; a file that breaks it
// is damaged, edited or hostile, and the figure counts as absent. A
// span's usage (usage.FromAttributes, package hostmetrics/usage), its
// advice (sizing.FromAttributes), its verdict (verdict.FromAttributes) and
// the model's figures (runmodel.Number) are read by it.
package readback

import (
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// MaxFigure bounds a figure read back: no figure of a run is larger (bytes
// and counts fit in 64 bits, seconds and shares are far smaller). The
// renderers take differences, rates, sums and products of figures, which
// stay finite for figures within it. usage.MaxFigure is it.
const MaxFigure = 1 << 64

// Figure reports whether v is a figure: finite, and from 0 to MaxFigure.
// No figure of a run is negative (a counter's change is taken by package
// monotonic's rule, never below 0).
func Figure(v float64) bool { return v >= 0 && v <= MaxFigure } // false for NaN

// Attr returns the value of key among attrs, the last if it is set twice.
func Attr(attrs []attribute.KeyValue, key attribute.Key) (attribute.Value, bool) {
	for i := len(attrs) - 1; i >= 0; i-- {
		if attrs[i].Key == key {
			return attrs[i].Value, true
		}
	}
	return attribute.Value{}, false
}

// Value returns v as a figure when it is an int or a float that is one
// (Figure).
func Value(v attribute.Value) (float64, bool) {
	var f float64
	switch v.Type() {
	case attribute.INT64:
		f = float64(v.AsInt64())
	case attribute.FLOAT64:
		f = v.AsFloat64()
	default:
		return 0, false
	}
	return f, Figure(f)
}

// Number returns the value of key among attrs (Attr) as a figure (Value).
func Number(attrs []attribute.KeyValue, key attribute.Key) (float64, bool) {
	v, ok := Attr(attrs, key)
	if !ok {
		return 0, false
	}
	return Value(v)
}

// Count is a figure (Figure) that counts bytes or things as a whole
// number: its whole part, and past what 64 bits hold (MaxFigure itself),
// the most they do.
func Count(v float64) uint64 {
	if v < MaxFigure {
		return uint64(v)
	}
	return math.MaxUint64
}

// SecondsOf is a duration written as a figure in seconds: the float64
// nearest its exact value, which shows as its decimal (2.446931156) and
// reads back as itself (Seconds). Duration.Seconds adds the whole and the
// fractional seconds, each rounded, and is off by a unit in the last
// place for most durations over a second: 2.4469311559999998, as a
// span's attribute shows in Jaeger or the Firefox Profiler.
func SecondsOf(d time.Duration) float64 { return float64(d) / 1e9 }

// Seconds is a figure in seconds as a duration: the nearest nanosecond,
// so that a duration written as seconds (SecondsOf) reads back as
// itself; beyond what a Duration holds, the largest one.
func Seconds(v float64) time.Duration {
	ns := math.Round(v * 1e9)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}
