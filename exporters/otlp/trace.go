package otlp

import (
	"context"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TraceClient sends spans to a collector. Stop after the last upload.
type TraceClient interface {
	// Upload sends td in one request, encoded once from pdata.
	Upload(ctx context.Context, td ptrace.Traces) error
	// Stop closes the client's idle connections, so that no connection
	// goroutine outlives it.
	Stop(ctx context.Context) error
}

// NewTraceClient returns an OTLP trace client for e. Nothing touches the
// network until its first upload. It is built from e alone: it reads no
// OTEL_* variable and no file. Its uploads are not retried (the forwarder
// retries from the spool); their errors carry the collector's HTTP status
// or gRPC code, for Classify, and a partial success is a *PartialError.
func NewTraceClient(e *Endpoint) (TraceClient, error) {
	if e == nil {
		return nil, ErrNoEndpoint
	}
	return &traceClient{s: newSender(e, grpcTraceExport)}, nil
}

type traceClient struct{ s sender }

func (c *traceClient) Upload(ctx context.Context, td ptrace.Traces) error {
	body, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		return err
	}
	rejected, msg, err := c.s.send(ctx, body)
	if err != nil {
		return err
	}
	if rejected == 0 && msg == "" {
		return nil
	}
	return &PartialError{Rejected: rejected, Message: msg}
}

func (c *traceClient) Stop(context.Context) error {
	c.s.close()
	return nil
}
