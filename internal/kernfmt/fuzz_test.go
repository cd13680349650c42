package kernfmt

import (
	"bytes"
	"math"
	"strconv"
	"testing"
)

// FuzzNumbers checks the number parsers against strconv: whatever they
// accept, strconv reads as the same number; ParseUint accepts exactly the
// runs of digits that fit; AppendUint prints what ParseUint reads back.
// Seeds: below and in testdata/fuzz/FuzzNumbers.
func FuzzNumbers(f *testing.F) {
	for _, s := range []string{"0", "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-0",
		"0.00", "1.", ".5", "12.345678901234567890", "+1", " 1", "1e3", "00012", "99999999999999999999.99"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		u, ok := ParseUint(b)
		su, serr := strconv.ParseUint(string(b), 10, 64)
		digits := len(b) > 0 && len(bytes.Trim(b, "0123456789")) == 0
		if ok != (digits && serr == nil) || ok && u != su {
			t.Fatalf("ParseUint(%q) = %d, %v; strconv %d, %v", b, u, ok, su, serr)
		}
		if back, ok := ParseUint(AppendUint(nil, su)); !ok || back != su {
			t.Fatalf("AppendUint(%d) reads back as %d, %v", su, back, ok)
		}
		if i, ok := ParseInt(b); ok {
			if si, err := strconv.ParseInt(string(b), 10, 64); err != nil || si != i {
				t.Fatalf("ParseInt(%q) = %d; strconv %d, %v", b, i, si, err)
			}
		}
		if d, ok := ParseDecimal(b); ok {
			sd, err := strconv.ParseFloat(string(b), 64)
			if err != nil || math.Abs(sd-d) > 1e-12*math.Max(1, math.Abs(sd)) {
				t.Fatalf("ParseDecimal(%q) = %v; strconv %v, %v", b, d, sd, err)
			}
		}
	})
}
