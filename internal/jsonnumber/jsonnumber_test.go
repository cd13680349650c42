package jsonnumber

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// FuzzAppendFloat: AppendFloat writes what json.Marshal writes for any
// float64, and fails where it fails (NaN, the infinities);
// AppendAsJSONIterator writes the same number but for a one-digit negative
// exponent's leading 0 (1e-07), and NaN and the infinities as protobuf's
// JSON names them (FuzzLineAsPdata of the spool checks it against pdata's
// own writer).
func FuzzAppendFloat(f *testing.F) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, -1e21, 5e-324, math.MaxFloat64, 0.1, 123456.789, math.NaN(), math.Inf(-1)} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		want, wantErr := json.Marshal(x)
		got, err := AppendFloat(nil, x)
		if (err != nil) != (wantErr != nil) || err == nil && !bytes.Equal(got, want) {
			t.Fatalf("AppendFloat(%v) = %s, %v; json.Marshal: %s, %v", x, got, err, want, wantErr)
		}
		it := string(AppendAsJSONIterator(nil, x))
		switch {
		case math.IsNaN(x):
			want = []byte(`"NaN"`)
		case math.IsInf(x, 1):
			want = []byte(`"Infinity"`)
		case math.IsInf(x, -1):
			want = []byte(`"-Infinity"`)
		default:
			want = []byte(strings.Replace(string(want), "e-", "e-0", 1))
			if i := strings.Index(string(want), "e-0"); i >= 0 && len(want)-i > 4 {
				want = got // a two-digit exponent: no leading 0 to add
			}
		}
		if it != string(want) {
			t.Fatalf("AppendAsJSONIterator(%v) = %s, want %s", x, it, want)
		}
	})
}
