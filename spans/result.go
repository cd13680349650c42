package spans

import (
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// SetResult sets how a phase or the job ended on its span, the one way
// every span of jobtrace gets it (the tracker's phases, the job's span, a
// standalone phase or step): result as cicd.pipeline.task.run.result,
// and the status Error when it failed (wire.Failed), described by desc,
// or, when desc is empty, by "phase ended with result R". A cancelled or
// skipped phase did not fail: its status is left unset.
func SetResult(sp trace.Span, result, desc string) {
	sp.SetAttributes(semconv.CICDPipelineTaskRunResultKey.String(result))
	if !wire.Failed(result) {
		return
	}
	if desc == "" {
		desc = "phase ended with result " + result
	}
	sp.SetStatus(codes.Error, cleantext.String(desc))
}
