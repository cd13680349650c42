package wire

// Reply is the line sent back for a message that asked for one.
type Reply struct {
	OK          bool   `json:"ok"`
	Error       string `json:"error,omitempty"`
	Traceparent string `json:"traceparent,omitempty"`
}

// AppendLine appends r as one line, newline included.
func (r Reply) AppendLine(b []byte) []byte {
	b = append(b, `{"ok":`...)
	b = AppendBool(b, r.OK)
	b = appendField(b, "error", r.Error)
	b = appendField(b, "traceparent", r.Traceparent)
	return append(b, "}\n"...)
}

// ParseReply reads a reply line (its newline optional). Unknown fields are
// skipped, null is read as absent.
func ParseReply(line []byte) (Reply, error) {
	var r Reply
	d := NewDecoder(line)
	d.Object(func(key []byte) {
		if d.Next() == 'n' {
			d.Literal("null")
			return
		}
		switch string(key) {
		case "ok":
			r.OK = d.Bool()
		case "error":
			r.Error = d.String()
		case "traceparent":
			r.Traceparent = d.String()
		default:
			d.Skip()
		}
	})
	d.End()
	return r, d.Err()
}
