package githubjob

import (
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// results are the results of a step's conclusion, for its phase and for
// the job (StepResult).
var results = map[string]string{
	"success":   protocol.ResultSuccess,
	"failure":   protocol.ResultFailure,
	"cancelled": protocol.ResultCancellation,
	"skipped":   protocol.ResultSkip,
	"timed_out": protocol.ResultTimeout,
	"neutral":   protocol.ResultSuccess,
}

// Attribute keys of a step's phase (docs/attributes.md).
const (
	AttrStepNumber     = attribute.Key("jobtrace.github.step.number")
	AttrStepConclusion = attribute.Key("jobtrace.github.step.conclusion")
	// AttrStepOwn marks the steps of jobtrace's own action: "pre" (it
	// builds or finds jobtrace and starts the job's agent) and "main"
	// (it does nothing).
	AttrStepOwn = attribute.Key("jobtrace.github.step.jobtrace")
)

// Phases turns the job's steps into add messages (protocol.TypeAdd), in
// the steps' order: one per completed step that has a start and an end.
// The others (steps skipped without running, steps not finished, such as
// the step that asks, at its end) are counted in left.
//
// The steps of jobtrace's own action are told by the step that asks: the
// one in progress named "Post X" is the post step of the action whose
// step is named X, so "Pre X" is its pre step and X its main step; they
// carry AttrStepOwn.
func Phases(j Job) (msgs []protocol.Msg, left int) {
	own := ""
	for _, s := range j.Steps {
		if s.Status == "in_progress" && strings.HasPrefix(s.Name, "Post ") {
			own = strings.TrimPrefix(s.Name, "Post ")
		}
	}
	for _, s := range j.Steps {
		if s.Status != "completed" || s.StartedAt.IsZero() || s.CompletedAt.IsZero() || s.CompletedAt.Before(s.StartedAt) {
			left++
			continue
		}
		result := StepResult(s.Conclusion)
		attrs := []attribute.KeyValue{AttrStepNumber.Int(s.Number), AttrStepConclusion.String(s.Conclusion)}
		switch {
		case own == "":
		case s.Name == "Pre "+own:
			attrs = append(attrs, AttrStepOwn.String("pre"))
		case s.Name == own:
			attrs = append(attrs, AttrStepOwn.String("main"))
		}
		m := protocol.Msg{V: protocol.Version, Type: protocol.TypeAdd, Name: cleantext.Truncate(cleantext.String(s.Name), protocol.MaxNameBytes),
			Start: s.StartedAt, End: s.CompletedAt, Result: result, Attrs: attrs}
		m.Clean()
		msgs = append(msgs, m)
	}
	return msgs, left
}

// StepResult is the result of a step that concluded with conclusion, by
// the one map of GitHub's words (results); error for a word it does not
// know.
func StepResult(conclusion string) string {
	if r, ok := results[conclusion]; ok {
		return r
	}
	return protocol.ResultError
}

// Result is the job's result as its steps tell it so far, each step's by
// StepResult, as its phase has it: the result of the first step that
// failed (failure, error or timeout: wire.Failed), else cancellation when
// one was cancelled, else success. Steps without a conclusion yet (in
// progress, queued) are left out.
func Result(j Job) string {
	r := protocol.ResultSuccess
	for _, s := range j.Steps {
		if s.Conclusion == "" {
			continue
		}
		switch sr := StepResult(s.Conclusion); {
		case wire.Failed(sr):
			return sr
		case sr == protocol.ResultCancellation:
			r = sr
		}
	}
	return r
}
