package protocol

import (
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// Version is the protocol version this package reads and writes. A message
// without "v" is read as version 1; a message with a higher version is
// rejected, so that a newer client gets a clear error instead of a
// half-understood message.
const Version = wire.Version

// Limits on a message's contents. Names are span or metric names and keys
// are attribute keys: 256 bytes is far beyond any sensible name and keeps a
// single bad marker from producing an oversized span. 64 attributes matches
// the OpenTelemetry SDK's default attribute count limit per span, so nothing
// accepted here is silently dropped later.
const (
	MaxNameBytes = 256
	MaxAttrs     = 64
)

// DefaultMaxMessageBytes bounds one message line on the socket and in the
// marker dir when their options leave it at zero, and is the default of the
// limits.max_message_bytes setting: a message with 64 attributes of a few
// hundred bytes each fits.
const DefaultMaxMessageBytes = 64 << 10

// Type is the kind of a marker message.
type Type string

// The message types.
const (
	TypeBegin   Type = wire.TypeBegin   // open a phase
	TypeEnd     Type = wire.TypeEnd     // close a phase
	TypeEvent   Type = wire.TypeEvent   // a point-in-time event in the current phase
	TypeCounter Type = wire.TypeCounter // add Value to a named counter
	TypeAttr    Type = wire.TypeAttr    // set attributes on a phase (or the job)
	TypeStop    Type = wire.TypeStop    // end the job of a background agent (`jobtrace stop`) with Result
	TypeAdd     Type = wire.TypeAdd     // a phase that has ended, with its start and end
)

// Results of a phase, from the OpenTelemetry semantic conventions'
// cicd.pipeline.task.run.result values. An empty Result means success.
const (
	ResultSuccess      = wire.ResultSuccess
	ResultFailure      = wire.ResultFailure
	ResultError        = wire.ResultError
	ResultTimeout      = wire.ResultTimeout
	ResultCancellation = wire.ResultCancellation
	ResultSkip         = wire.ResultSkip
)

// Syntax values: which source produced a message.
const (
	SyntaxPhase     = "phase"
	SyntaxGitHub    = "github"
	SyntaxGitLab    = "gitlab"
	SyntaxPattern   = "pattern"
	SyntaxSocket    = "socket"
	SyntaxMarkerDir = "markerdir"
	SyntaxGo        = "go" // a Go program that embeds a session
	// SyntaxExec is the source of a step of `jobtrace exec` (its
	// jobtrace.phase.source), whose begin names in Parent the TRACEPARENT
	// it was started with.
	SyntaxExec = "exec"
)

// Msg is one marker message, from any source.
type Msg struct {
	V      int
	Type   Type
	Name   string               // phase, event or counter name; optional for attr and for a GitHub endgroup
	Parent string               // begin and add: the open phase to nest under (name or span id)
	Span   string               // end: the phase's own span (traceparent or span id), ended rather than the innermost of Name
	Scope  string               // the TRACEPARENT its sender was started with (wire.ScopeOf): the message applies within the phase it names
	Result string               // end, add and stop: one of the Result* constants; "" means success
	Status string               // end and add: the description of the status Error of a failed Result; "" for "phase ended with result R"
	Time   time.Time            // zero means "now" (the receiver stamps it)
	Start  time.Time            // add only: when the phase began
	End    time.Time            // add only: when it ended
	Attrs  []attribute.KeyValue // attributes of the phase, event or counter
	Value  float64              // counter increment; Parse sets 1 when absent
	Ack    bool                 // socket only: the sender waits for a Reply line
	Syntax string               // not in JSON: the source, one of the Syntax* constants
	Title  string               // not in JSON: display title (GitLab section header, GitHub group title)
}

// FromWire is the message whose fields but the attributes w holds, its
// type and version as they are on the wire (0: Version).
func FromWire(w wire.Msg) Msg {
	v := w.V
	if v == 0 {
		v = Version
	}
	return Msg{V: v, Type: Type(w.Type), Name: w.Name, Parent: w.Parent, Span: w.Span, Scope: w.Scope,
		Result: w.Result, Status: w.Status, Time: w.Time, Start: w.Start, End: w.End, Value: w.Value, Ack: w.Ack}
}

// Clean replaces invalid UTF-8 and control characters in every text field
// of m (name, parent, span, scope, status, title, attribute keys and string
// values) with U+FFFD, by cleantext.String. Parse does so for what it decodes; sources that
// build a Msg themselves from text (the command line, a GitHub job's steps,
// a Go program's calls) call Clean; the output scanner cleans each field as
// it cuts it out of the line.
func (m *Msg) Clean() {
	m.Name = cleantext.String(m.Name)
	m.Parent = cleantext.String(m.Parent)
	m.Span = cleantext.String(m.Span)
	m.Scope = cleantext.String(m.Scope)
	m.Status = cleantext.String(m.Status)
	m.Title = cleantext.String(m.Title)
	cleantext.Attrs(m.Attrs)
}

// ErrParse is wrapped by every error Parse returns.
var ErrParse = errors.New("marker")

// Reply is the line the socket sends back for a message with "ack":true,
// written and read by package wire.
type Reply = wire.Reply

// ValidResult reports whether r is a result value an end message may carry.
func ValidResult(r string) bool { return wire.ValidResult(r) }

// validType reports whether t is one of the known types.
func validType(t Type) bool {
	switch t {
	case TypeBegin, TypeEnd, TypeEvent, TypeCounter, TypeAttr, TypeStop, TypeAdd:
		return true
	}
	return false
}
