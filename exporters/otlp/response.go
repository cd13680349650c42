package otlp

import (
	"encoding/binary"
	"errors"
)

// errResponse is an answer that is not the protobuf of an OTLP export
// response.
var errResponse = errors.New("otlp: the collector's answer is not an OTLP export response")

// Protobuf wire types (https://protobuf.dev/programming-guides/encoding/).
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// partialSuccess reads the one field jobtrace uses of an OTLP export
// response, the same in ExportTraceServiceResponse and
// ExportMetricsServiceResponse: partial_success (field 1), a message of
// the count of spans or data points rejected (field 1, an int64) and an
// error message (field 2). Other fields are skipped; an empty answer is a
// full success.
func partialSuccess(b []byte) (rejected int64, msg string, err error) {
	err = protoFields(b, func(num uint64, typ int, _ uint64, data []byte) error {
		if num != 1 || typ != wireBytes {
			return nil
		}
		return protoFields(data, func(num uint64, typ int, v uint64, data []byte) error {
			switch {
			case num == 1 && typ == wireVarint:
				rejected = int64(v)
			case num == 2 && typ == wireBytes:
				msg = string(data)
			}
			return nil
		})
	})
	return rejected, msg, err
}

// protoFields calls fn for each field of the protobuf message b, in order,
// with its number and wire type, and its value (a varint) or its bytes (a
// length-delimited field). Fixed-size fields are skipped; groups and
// truncated fields are errors.
func protoFields(b []byte, fn func(num uint64, typ int, v uint64, data []byte) error) error {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 || tag>>3 == 0 {
			return errResponse
		}
		b = b[n:]
		num, typ := tag>>3, int(tag&7)
		var v uint64
		var data []byte
		switch typ {
		case wireVarint:
			v, n = binary.Uvarint(b)
			if n <= 0 {
				return errResponse
			}
		case wireFixed64, wireFixed32:
			n = 8
			if typ == wireFixed32 {
				n = 4
			}
			if len(b) < n {
				return errResponse
			}
		case wireBytes:
			l, m := binary.Uvarint(b)
			if m <= 0 || l > uint64(len(b)-m) {
				return errResponse
			}
			data, n = b[m:m+int(l)], m+int(l)
		default:
			return errResponse
		}
		b = b[n:]
		if err := fn(num, typ, v, data); err != nil {
			return err
		}
	}
	return nil
}
