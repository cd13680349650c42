// Package jsonnumber appends numbers as encoding/json writes them, without
// reflection.
package jsonnumber

import (
	"fmt"
	"math"
	"strconv"
)

// AppendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21
// on, with a one-digit negative exponent written without its leading 0;
// NaN and the infinities are an error, as they are there.
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	b, exp := appendShortest(b, f)
	if exp {
		// e-09 as e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// AppendAsJSONIterator appends f as json-iterator writes a float64, and so
// pdata's OTLP/JSON a double: as AppendFloat does, but with the exponent
// as strconv writes it (1e-07), and NaN and the infinities as the strings
// protobuf's JSON mapping names them.
func AppendAsJSONIterator(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	b, _ = appendShortest(b, f)
	return b
}

// appendShortest appends the shortest decimal that reads back as f, in
// exponent form (exp) below 1e-6 and from 1e21 on.
func appendShortest(b []byte, f float64) (_ []byte, exp bool) {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, f, format, -1, 64), format == 'e'
}
