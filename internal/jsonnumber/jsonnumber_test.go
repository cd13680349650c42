package jsonnumber

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// FuzzAppendFloat: AppendFloat writes what json.Marshal writes for any
// float64, and fails where it fails (NaN, the infinities).
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
	})
}
