package profile

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/runmodel"
)

// encodingJSON is what encoding/json's Encoder writes for p, the bytes
// appendProfile must write.
func encodingJSON(p *Profile) ([]byte, error) {
	var buf bytes.Buffer
	err := json.NewEncoder(&buf).Encode(p)
	return buf.Bytes(), err
}

// fuzzedProfile is the fixture's profile with s, t, f, g and n set in
// every kind of place: strings of the structs, of the marker data's
// values and keys, of the string table; floats of the struct fields, the
// lists and the marker data; the omitempty members set or left empty by
// the strings' emptiness.
func fuzzedProfile(tb testing.TB, s, t string, f, g float64, n int) *Profile {
	tb.Helper()
	run, _, err := runmodel.ReadDir(fixture)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := Build(run)
	if err != nil {
		tb.Fatal(err)
	}
	p.Meta.Product = s
	p.Meta.Interval = f
	p.Meta.StartTime = g
	p.Meta.LogicalCPUs = n
	p.Meta.SampleUnits[s] = t
	p.Meta.Categories = append(p.Meta.Categories, Category{Name: t, Color: s, Subcategories: []string{s, t}})
	p.Meta.MarkerSchema = append(p.Meta.MarkerSchema, MarkerSchema{Name: s, TooltipLabel: t, TableLabel: s,
		ChartLabel: t, Description: s, ColorField: t, Fields: []MarkerField{{Key: s, Label: t, Hidden: s == ""}}})
	p.Shared.StringArray = append(p.Shared.StringArray, s, t)
	p.Shared.FrameTable[t] = []any{s, f, n, nil, true}
	p.Libs = append(p.Libs, s, g)
	p.Pages = nil
	th := &p.Threads[0]
	th.Name, th.Pid = t, s
	th.ProcessShutdownTime = &f
	th.UnregisterTime = nil
	th.Samples.Weight = append(th.Samples.Weight, f, g)
	th.Samples.Stack = append(th.Samples.Stack, nil, &n)
	th.Markers.Data = append(th.Markers.Data, map[string]any{s: t, t: f, "n": n, "g": g, "i": int64(n), "m": map[string]any{t: s}}, nil)
	th.Markers.StartTime = append(th.Markers.StartTime, g)
	th.Markers.EndTime = append(th.Markers.EndTime, &g, nil)
	if len(p.Counters) > 0 {
		c := &p.Counters[0]
		c.Name, c.Description = s, t
		c.Samples.Count = append(c.Samples.Count, f)
		c.Display.MarkerSchemaLocation = &t
		c.Display.TooltipRows = append(c.Display.TooltipRows, TooltipRow{Type: s, Source: t, Label: s, Format: &TooltipFormat{Unit: t}})
	}
	return p
}

// FuzzEncodeAsEncodingJSON: appendProfile writes the bytes encoding/json's
// Encoder writes, whatever the strings (invalid UTF-8, control
// characters, <, >, &, U+2028 and U+2029) and the floats (exponent form at
// both ends, negative zero, the smallest and largest); NaN and the
// infinities are an error in both.
func FuzzEncodeAsEncodingJSON(f *testing.F) {
	f.Add("plain", "", 1.5, 0.0, 0)
	f.Add("<a href=\"x\">&amp;</a>\\", "\u2028\u2029\x7f", 1e-7, 1e21, 3)
	f.Add("\xff\xfe\xc3(\xe2\x82", "\x00\x01\b\f\n\r\t\x1f ", 5e-324, math.MaxFloat64, -1)
	f.Add("é😀\u00a0\ufeff", "\xed\xa0\x80", math.Copysign(0, -1), -1e-9, 1<<40)
	f.Add("x", "y", 123456789.123456789, 9.999999999999999e20, 7)
	f.Add("x", "y", 1e-6, 0.000001234, 7)
	f.Add("nan", "inf", math.NaN(), math.Inf(1), 0)
	f.Add("inf", "", 0.0, math.Inf(-1), 0)
	f.Fuzz(func(t *testing.T, s, u string, x, y float64, n int) {
		p := fuzzedProfile(t, s, u, x, y, n)
		want, wantErr := encodingJSON(p)
		got, err := appendProfile(nil, p)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, encoding/json's %v", err, wantErr)
		}
		if wantErr != nil {
			return
		}
		if d := fuzzcheck.FirstDifference(got, want); d != "" {
			t.Fatalf("profile.json %s (want: encoding/json's)", d)
		}
	})
}

// A value of a type the encoder does not know by hand, in a marker's
// data, is written by encoding/json all the same.
func TestEncodeOtherTypes(t *testing.T) {
	p := fuzzedProfile(t, "a", "b", 1, 2, 3)
	p.Threads[0].Markers.Data[0]["other"] = struct {
		A uint8   `json:"a"`
		B []int32 `json:"b"`
	}{7, []int32{1, 2}}
	p.Threads[0].Markers.Data[0]["f32"] = float32(0.1)
	want, err := encodingJSON(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := appendProfile(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("differs from encoding/json:\n got %s\nwant %s", got, want)
	}
}

func BenchmarkEncode(b *testing.B) {
	p := fuzzedProfile(b, "a", "b", 1, 2, 3)
	b.Run("appendProfile", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = appendProfile(buf[:0], p)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			encodingJSON(p)
		}
	})
}

// BenchmarkBuildAndEncode builds the profile of the real run of
// testdata/run and encodes it, in memory, as Write does before the file.
func BenchmarkBuildAndEncode(b *testing.B) {
	run, _, err := runmodel.ReadDir(fixture)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p, err := Build(run)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := appendProfile(make([]byte, 0, 64<<10), p); err != nil {
			b.Fatal(err)
		}
	}
}
