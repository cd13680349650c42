package otlp

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Outcome says what a failed upload means for the data in it, following
// the OTLP specification's list of retryable responses
// (https://opentelemetry.io/docs/specs/otlp/#failures).
type Outcome int

const (
	// Accepted: the collector took the data (nil error), or all of it but
	// the spans a *PartialError counts, which must not be sent again.
	Accepted Outcome = iota
	// Retry: the collector may take the same data later. Network errors,
	// timeouts, HTTP 429, 502, 503 and 504, gRPC Unavailable,
	// DeadlineExceeded, Canceled, Aborted, OutOfRange, DataLoss and
	// ResourceExhausted.
	Retry
	// Rejected: the collector will never take this data; sending it again
	// unchanged is pointless. HTTP 400 (Bad Request) and 413 (Content Too
	// Large), gRPC InvalidArgument.
	Rejected
	// Refused: the collector refuses any data until something on its side
	// or in the settings changes (a credential, the path, the protocol).
	// Every other HTTP 4xx and 5xx status and every other gRPC code. The
	// specification forbids retrying these; the data itself is not at fault.
	Refused
)

func (o Outcome) String() string {
	switch o {
	case Accepted:
		return "accepted"
	case Rejected:
		return "rejected"
	case Refused:
		return "refused"
	}
	return "retry"
}

// Classify returns what an error from the Upload of a client made by
// NewTraceClient means. Errors that carry no collector response (a refused
// connection, a timeout, a TLS failure) are Retry.
func Classify(err error) Outcome {
	var pe *PartialError
	if err == nil || errors.As(err, &pe) {
		return Accepted
	}
	var se *statusError
	if errors.As(err, &se) {
		switch se.code {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			return Rejected
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return Retry
		}
		if se.code >= 400 {
			return Refused
		}
		return Retry
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return Retry
	}
	st, ok := status.FromError(err)
	if !ok {
		return Retry
	}
	switch st.Code() {
	case codes.InvalidArgument:
		return Rejected
	case codes.Unknown, codes.NotFound, codes.AlreadyExists, codes.PermissionDenied,
		codes.FailedPrecondition, codes.Unimplemented, codes.Internal, codes.Unauthenticated:
		return Refused
	}
	return Retry
}

// Abandoned reports whether err means the client gave up waiting for the
// collector's answer: the request may have reached the collector and been
// taken, so sending it again may deliver it twice.
func Abandoned(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	if st, ok := status.FromError(err); ok {
		return st.Code() == codes.DeadlineExceeded || st.Code() == codes.Canceled
	}
	return false
}

// statusError is a failed OTLP/HTTP upload with the collector's status
// code.
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// PartialError is an upload the collector accepted except for Rejected
// spans (an OTLP partial success). The upload succeeded: the OTLP
// specification forbids sending it again.
type PartialError struct {
	Rejected int64
	Message  string
}

func (e *PartialError) Error() string {
	return "the collector accepted the upload but rejected " + strconv.FormatInt(e.Rejected, 10) + " spans: " + e.Message
}
