package kstat

import (
	"bytes"
	"fmt"
)

// kstat_named_t in the LP64 data model: a 31-byte name, the data type, then
// the 16-byte value union, 8-aligned. For KSTAT_DATA_STRING the union holds
// value.str: addr.ptr, a char * (8 bytes), then len, a uint32_t counting the
// string and its NUL.
const (
	namedSize = 48

	offKnName     = 0  // char name[KSTAT_STRLEN]
	offKnDataType = 31 // uchar_t data_type
	offKnValue    = 32 // union value: c[16], i32, ui32, i64, ui64, str
	offKnStrPtr   = 32 // value.str.addr.ptr
	offKnStrLen   = 40 // value.str.len
	valueSize     = 16 // sizeof (value)
)

// parseNamed decodes the data section of a named kstat: ndata kstat_named_t,
// then the strings of its KSTAT_DATA_STRING values. base is the address the
// data was at when the driver wrote it: the driver points value.str.addr.ptr
// into that buffer, so a string is found at ptr - base in data. A pointer
// that lands before the end of the kstat_named_t array or past the end of
// data is an error; a NULL pointer is an empty string.
//
// Values of types this package does not decode (the obsolete
// KSTAT_DATA_FLOAT and KSTAT_DATA_DOUBLE) are returned with their type and
// no value.
func parseNamed(data []byte, ndata uint32, base uint64) ([]Named, error) {
	arr := uint64(ndata) * namedSize
	if arr > uint64(len(data)) {
		return nil, fmt.Errorf("%w: %d kstat_named_t need %d bytes, have %d", ErrParse, ndata, arr, len(data))
	}
	ns := make([]Named, ndata)
	for i := range ns {
		b := data[i*namedSize : (i+1)*namedSize]
		name, ok := cstring(b[offKnName : offKnName+kstatStrlen])
		if !ok {
			return nil, fmt.Errorf("%w: kstat_named_t %d: name has no NUL", ErrParse, i)
		}
		n := Named{Name: name, Type: DataType(b[offKnDataType])}
		v := b[offKnValue : offKnValue+valueSize]
		switch n.Type {
		case DataChar:
			n.Str, _ = cstring(v) // all 16 bytes may be text
		case DataInt32:
			n.Int = int64(int32(le.Uint32(v)))
		case DataUint32:
			n.Uint = uint64(le.Uint32(v))
		case DataInt64:
			n.Int = int64(le.Uint64(v))
		case DataUint64:
			n.Uint = le.Uint64(v)
		case DataString:
			s, err := namedString(data, arr, base, le.Uint64(b[offKnStrPtr:]), le.Uint32(b[offKnStrLen:]))
			if err != nil {
				return nil, fmt.Errorf("%w: kstat_named_t %d (%s): %v", ErrParse, i, name, err)
			}
			n.Str = s
		}
		ns[i] = n
	}
	return ns, nil
}

// namedString finds a KSTAT_DATA_STRING's text: length bytes (the NUL
// included) at ptr, a pointer into data, which was at address base. Strings
// come after the arr bytes of kstat_named_t.
func namedString(data []byte, arr, base, ptr uint64, length uint32) (string, error) {
	if ptr == 0 {
		return "", nil
	}
	if ptr < base || ptr-base > uint64(len(data)) {
		return "", fmt.Errorf("string pointer %#x is outside the buffer at %#x (%d bytes)", ptr, base, len(data))
	}
	off := ptr - base
	if off < arr {
		return "", fmt.Errorf("string pointer %#x points into the kstat_named_t array", ptr)
	}
	if uint64(length) > uint64(len(data))-off {
		return "", fmt.Errorf("string of %d bytes at offset %d runs past the %d-byte buffer", length, off, len(data))
	}
	s := data[off : off+uint64(length)]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return string(s), nil
}
