package fastpath

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Request is one parsed command.
type Request struct {
	Type   string // begin, end, event, counter
	Name   string
	Parent string
	Result string
	Value  float64
	Attrs  [][2]string
}

var results = map[string]bool{"": true, "success": true, "failure": true, "error": true, "timeout": true, "cancellation": true, "skip": true}

// Parse reads the arguments after the program name. ok is false for
// anything but the simple forms, which main then handles.
func Parse(args []string) (r Request, ok bool) {
	if len(args) < 2 {
		return r, false
	}
	var rest []string
	switch args[0] {
	case "phase":
		if len(args) < 3 || (args[1] != "begin" && args[1] != "end") {
			return r, false
		}
		r.Type, rest = args[1], args[2:]
	case "event", "counter":
		r.Type, rest = args[0], args[1:]
	default:
		return r, false
	}
	valueSet := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !strings.HasPrefix(a, "-") {
			if r.Name != "" {
				return r, false // a second argument
			}
			r.Name = a
			continue
		}
		flag, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if len(a)-len(strings.TrimLeft(a, "-")) > 2 {
			return r, false
		}
		if !hasVal {
			if i+1 >= len(rest) {
				return r, false
			}
			i++
			val = rest[i]
		}
		switch {
		case flag == "attr":
			k, v, ok := strings.Cut(val, "=")
			if !ok || k == "" {
				return r, false
			}
			r.Attrs = append(r.Attrs, [2]string{k, v})
		case flag == "result" && r.Type == "end" && r.Result == "":
			if !results[val] {
				return r, false
			}
			r.Result = val
		case flag == "parent" && r.Type == "begin" && r.Parent == "":
			r.Parent = val
		case flag == "value" && r.Type == "counter" && !valueSet:
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return r, false
			}
			r.Value, valueSet = v, true
		default:
			// --help, --result on a begin, a repeated flag, ...
			return r, false
		}
	}
	if r.Name == "" {
		return r, false
	}
	if r.Type == "counter" && !valueSet {
		r.Value = 1
	}
	return r, true
}

// AppendJSON appends r as one protocol line asking for a reply; ts is left
// out for counters, as the full command does.
func (r Request) AppendJSON(b []byte, now time.Time) []byte {
	b = append(b, `{"v":1,"type":`...)
	b = appendString(b, r.Type)
	b = append(b, `,"name":`...)
	b = appendString(b, r.Name)
	if r.Parent != "" {
		b = append(b, `,"parent":`...)
		b = appendString(b, r.Parent)
	}
	if r.Result != "" {
		b = append(b, `,"result":`...)
		b = appendString(b, r.Result)
	}
	if r.Type != "counter" {
		b = append(b, `,"ts":"`...)
		b = now.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if len(r.Attrs) > 0 {
		b = append(b, `,"attrs":{`...)
		for i, kv := range r.Attrs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, kv[0])
			b = append(b, ':')
			b = appendString(b, kv[1])
		}
		b = append(b, '}')
	}
	if r.Type == "counter" {
		b = append(b, `,"value":`...)
		b = strconv.AppendFloat(b, r.Value, 'g', -1, 64)
	}
	return append(b, ",\"ack\":true}\n"...)
}

// appendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// ReplyError returns the error of a reply line, "" when it says ok.
func ReplyError(line string) string {
	if strings.Contains(line, `"ok":true`) {
		return ""
	}
	_, rest, found := strings.Cut(line, `"error":"`)
	if !found {
		return "the socket refused the message"
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c == '"' {
			break
		}
		if c == '\\' && i+1 < len(rest) {
			i++
			c = rest[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}
