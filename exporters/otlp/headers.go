package otlp

import (
	"maps"
	"slices"
	"strings"
)

// ownHeader reports whether the exporter sets the header name (lower
// case) for each request, or HTTP itself does: a configured value would be
// ignored or would break every request.
func ownHeader(name string) bool {
	switch name {
	case "content-type", "content-length", "content-encoding", "transfer-encoding", "host",
		"connection", "te", "trailer", "upgrade", "keep-alive", "proxy-connection":
		return true
	}
	return false
}

// checkHeaders checks headers against RFC 9110: a name is a token, a value
// has no control character (CR and LF would end the header and fail every
// request) and no white space at its ends (which HTTP strips). A value is
// never quoted in the message: it may be a secret.
func checkHeaders(key string, headers map[string]string) *SettingError {
	for _, k := range slices.Sorted(maps.Keys(headers)) {
		at := func(fe *SettingError) *SettingError {
			fe.Entry = key + "[" + k + "]"
			return fe
		}
		v := headers[k]
		switch {
		case !isHeaderName(k):
			return at(bad(key, "key %q is not an HTTP header name", k))
		case ownHeader(strings.ToLower(k)):
			return at(bad(key, "%q is set by the exporter itself and cannot be configured", k))
		case strings.IndexFunc(v, isCTL) >= 0:
			return at(bad(key, "the value of %q has a control character (such as CR or LF), which HTTP cannot send", k))
		case strings.TrimSpace(v) != v:
			return at(bad(key, "the value of %q starts or ends with white space, which HTTP drops", k))
		}
	}
	return nil
}

// checkGRPCHeaders adds gRPC's rules (grpc-go's metadata validation): names
// of lower-case letters, digits and "-_." once lower-cased, none of the
// names gRPC reserves, and values of printable ASCII unless the name ends
// in -bin.
func checkGRPCHeaders(key string, headers map[string]string) *SettingError {
	for _, k := range slices.Sorted(maps.Keys(headers)) {
		lk := strings.ToLower(k)
		fe := (*SettingError)(nil)
		switch {
		case strings.HasPrefix(lk, "grpc-"):
			fe = bad(key, "%q is reserved by gRPC", k)
		case strings.IndexFunc(lk, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
		}) >= 0:
			fe = bad(key, "%q is not a gRPC header name (letters, digits, - _ .)", k)
		case !strings.HasSuffix(lk, "-bin") && strings.IndexFunc(headers[k], func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0:
			fe = bad(key, "the value of %q is not printable ASCII, which gRPC requires", k)
		}
		if fe != nil {
			fe.Entry = key + "[" + k + "]"
			return fe
		}
	}
	return nil
}

func isCTL(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }

// isHeaderName reports whether s is an RFC 9110 token.
func isHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
