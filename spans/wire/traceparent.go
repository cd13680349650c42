package wire

// TraceparentLen is the length of a W3C traceparent of version 00, and of
// the part of a later version's that this version reads.
const TraceparentLen = 55

// ParseTraceparent reads a W3C traceparent (Trace Context, "traceparent
// Header"): version, trace id, span id and flags, in lower-case hex,
// joined by "-". Version 00 is exactly TraceparentLen characters; a later
// version is read by its first TraceparentLen, which must end the value or
// be followed by "-" (its own fields); version ff is invalid, and so is an
// all-zero trace id or span id. It is the one parser of a traceparent that
// a marker names (spans.ParseTraceparent) and of what a marker sends as its
// scope (ScopeOf).
func ParseTraceparent(s string) (traceID [16]byte, spanID [8]byte, flags byte, ok bool) {
	if len(s) < TraceparentLen || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return traceID, spanID, 0, false
	}
	version, ok := hexBytes(s[:2], nil)
	switch {
	case !ok || version == 0xff:
		return traceID, spanID, 0, false
	case version == 0 && len(s) != TraceparentLen:
		return traceID, spanID, 0, false
	case len(s) > TraceparentLen && s[TraceparentLen] != '-':
		return traceID, spanID, 0, false
	}
	_, okT := hexBytes(s[3:35], traceID[:])
	_, okS := hexBytes(s[36:52], spanID[:])
	flags, okF := hexBytes(s[53:55], nil)
	if !okT || !okS || !okF || traceID == [16]byte{} || spanID == [8]byte{} {
		return traceID, spanID, 0, false
	}
	return traceID, spanID, flags, true
}

// hexBytes decodes s, lower-case hex, into dst, or returns its one byte
// when dst is nil (s of two digits); false for any other character.
func hexBytes(s string, dst []byte) (byte, bool) {
	var b byte
	for i := 0; i+1 < len(s); i += 2 {
		hi, okH := hexDigit(s[i])
		lo, okL := hexDigit(s[i+1])
		if !okH || !okL {
			return 0, false
		}
		b = hi<<4 | lo
		if dst != nil {
			dst[i/2] = b
		}
	}
	return b, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// ScopeOf returns the scope a marker sends (Msg.Scope) for tp, the
// TRACEPARENT of its environment: the part ParseTraceparent reads, when tp
// is a traceparent, else "" (left out), so that whatever the environment
// holds, it never makes the message one the receiver refuses (a field
// longer than a name may be).
func ScopeOf(tp string) string {
	if _, _, _, ok := ParseTraceparent(tp); !ok {
		return ""
	}
	return tp[:TraceparentLen]
}
