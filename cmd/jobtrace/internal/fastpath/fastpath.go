package fastpath

import (
	"errors"
	"strconv"
	"time"

	"github.com/jobtrace/jobtrace/spans/wire"
)

// Request is one marker command: `phase begin|end|add`, `event` or
// `counter`.
type Request struct {
	Type       string // begin, end, add, event, counter
	Name       string
	Parent     string
	Result     string
	Value      float64
	Start, End time.Time // add
	Attrs      [][2]string
}

// ErrHelp is returned by Parse for -h, -help or --help.
var ErrHelp = errors.New("help requested")

// ErrNotMarker is returned by Parse for a command that is not a marker
// command.
var ErrNotMarker = errors.New("not a marker command")

// UsageError is a malformed marker command line; its text names the
// command ("phase end: ...").
type UsageError string

func (e UsageError) Error() string { return string(e) }

// Parse reads the arguments of a marker command, the command's name first
// ("phase", "end", "deploy", "--result", "failure"). It is the one parser of
// these commands: the fast path and the full command both use it. Flags
// take one or two dashes, their value after '=' or as the next argument,
// and may come before or after NAME; "--" ends the flags. --attr repeats;
// a flag given twice otherwise keeps its last value.
func Parse(args []string) (Request, error) {
	var r Request
	if len(args) == 0 {
		return r, ErrNotMarker
	}
	what := args[0]
	var rest []string
	switch what {
	case "phase":
		if len(args) < 2 {
			return r, UsageError("phase: want 'begin', 'end' or 'add' (usage: jobtrace phase begin|end|add NAME)")
		}
		switch args[1] {
		case "begin", "end", "add":
		case "-h", "-help", "--help", "help":
			return r, ErrHelp
		default:
			return r, UsageError("phase: unknown action " + strconv.Quote(args[1]) + ": want begin, end or add")
		}
		r.Type, rest, what = args[1], args[2:], "phase "+args[1]
	case "event", "counter":
		r.Type, rest = what, args[1:]
	default:
		return r, ErrNotMarker
	}
	valueSet := false
	flags := true
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !flags || a == "-" || a == "" || a[0] != '-' {
			if r.Name != "" {
				return r, UsageError(what + ": unexpected argument " + strconv.Quote(a))
			}
			r.Name = a
			continue
		}
		if a == "--" {
			flags = false
			continue
		}
		flag := a[1:]
		if flag != "" && flag[0] == '-' {
			flag = flag[1:]
		}
		flag, val, hasVal := cut(flag, '=')
		if flag == "h" || flag == "help" {
			return r, ErrHelp
		}
		if flag == "" || flag[0] == '-' || flag[0] == '=' {
			return r, UsageError(what + ": bad flag syntax: " + a)
		}
		if !hasVal {
			if i+1 >= len(rest) {
				return r, UsageError(what + ": flag needs an argument: -" + flag)
			}
			i++
			val = rest[i]
		}
		switch {
		case flag == "attr":
			k, v, ok := ParseAttr(val)
			if !ok {
				return r, UsageError(what + ": --attr " + strconv.Quote(val) + " is not key=value")
			}
			r.Attrs = append(r.Attrs, [2]string{k, v})
		case flag == "result" && (r.Type == "end" || r.Type == "add"):
			if val == "" || !wire.ValidResult(val) {
				return r, UsageError(what + ": --result " + strconv.Quote(val) + ": want success, failure, error, timeout, cancellation or skip")
			}
			r.Result = val
		case flag == "parent" && (r.Type == "begin" || r.Type == "add"):
			r.Parent = val
		case (flag == "start" || flag == "end") && r.Type == "add":
			t, err := time.Parse(time.RFC3339Nano, val)
			if err != nil {
				return r, UsageError(what + ": --" + flag + " " + strconv.Quote(val) + " is not an RFC 3339 time (2006-01-02T15:04:05Z)")
			}
			if flag == "start" {
				r.Start = t
			} else {
				r.End = t
			}
		case flag == "value" && r.Type == "counter":
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || !wire.ValidCounterValue(v) {
				return r, UsageError(what + ": --value " + strconv.Quote(val) + " is not a non-negative number")
			}
			r.Value, valueSet = v, true
		default:
			return r, UsageError(what + ": flag provided but not defined: -" + flag + " (see 'jobtrace " + what + " --help')")
		}
	}
	if r.Name == "" {
		return r, UsageError(what + ": NAME is missing")
	}
	if r.Type == "counter" && !valueSet {
		r.Value = 1
	}
	if r.Type == "add" {
		switch err := wire.CheckAdd(r.Start, r.End); err {
		case wire.ErrAddWithoutTimes:
			return r, UsageError(what + ": --start and --end are required")
		case wire.ErrAddEndBeforeStart:
			return r, UsageError(what + ": --end is before --start")
		}
	}
	return r, nil
}

// What names the command of r in a message: `phase begin "compile"`,
// `event "cache-miss"`.
func (r *Request) What() string {
	w := r.Type
	switch r.Type {
	case wire.TypeBegin, wire.TypeEnd, wire.TypeAdd:
		w = "phase " + w
	}
	return w + " " + strconv.Quote(r.Name)
}

// Unreached is the warning of a marker command whose agent at path could
// not be reached or did not answer (cause); sent tells whether the message
// may have reached it all the same. A marker never fails the job's step:
// the command exits 0 after it, as after a marker the agent refused.
func Unreached(path, cause, what string, sent bool) string {
	s := "jobtrace: warning: JOBTRACE_SOCKET=" + path + ": " + cause + ": " + what
	if sent {
		return s + " may not be recorded\n"
	}
	return s + " not recorded\n"
}

// ParseAttr reads the value of --attr, key=value with a key that is not
// empty.
func ParseAttr(s string) (key, value string, ok bool) {
	key, value, ok = cut(s, '=')
	return key, value, ok && key != ""
}

// cut is strings.Cut for one byte: this package does not import strings
// (see the package comment).
func cut(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// Msg is r's message but its attributes, asking for a reply, stamped now,
// in the scope of traceparent (the TRACEPARENT the command was started
// with, wire.ScopeOf); a counter has neither time nor scope: it belongs to
// the job.
func (r *Request) Msg(now time.Time, traceparent string) wire.Msg {
	m := wire.Msg{Type: r.Type, Name: r.Name, Parent: r.Parent, Result: r.Result, Value: r.Value,
		Start: r.Start, End: r.End, Ack: true}
	if r.Type != wire.TypeCounter {
		m.Time, m.Scope = now, wire.ScopeOf(traceparent)
	}
	return m
}

// AppendLine appends r as one protocol line: its Msg, then its attributes.
func (r *Request) AppendLine(b []byte, now time.Time, traceparent string) []byte {
	m := r.Msg(now, traceparent)
	b = m.AppendHead(b)
	for i, kv := range r.Attrs {
		b = wire.AppendAttrKey(b, i, kv[0])
		b = wire.AppendString(b, kv[1])
	}
	return m.AppendTail(b, len(r.Attrs))
}

// splitNUL splits NUL-terminated strings, as /proc/self/cmdline holds
// them.
func splitNUL(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == 0 {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, string(b[start:]))
	}
	return out
}
