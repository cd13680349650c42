package otlp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
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
	var re *rpcError
	if !errors.As(err, &re) {
		return Retry
	}
	switch re.code {
	case codeInvalidArgument:
		return Rejected
	case codeUnknown, codeNotFound, codeAlreadyExists, codePermissionDenied,
		codeFailedPrecondition, codeUnimplemented, codeInternal, codeUnauthenticated:
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
	var re *rpcError
	return errors.As(err, &re) && (re.code == codeDeadlineExceeded || re.code == codeCanceled)
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

// rpcCode is a gRPC status code
// (https://github.com/grpc/grpc/blob/master/doc/statuscodes.md).
type rpcCode uint32

const (
	codeOK rpcCode = iota
	codeCanceled
	codeUnknown
	codeInvalidArgument
	codeDeadlineExceeded
	codeNotFound
	codeAlreadyExists
	codePermissionDenied
	codeResourceExhausted
	codeFailedPrecondition
	codeAborted
	codeOutOfRange
	codeUnimplemented
	codeInternal
	codeUnavailable
	codeDataLoss
	codeUnauthenticated
)

var rpcCodeNames = [...]string{"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound",
	"AlreadyExists", "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
	"Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated"}

func (c rpcCode) String() string {
	if int(c) < len(rpcCodeNames) {
		return rpcCodeNames[c]
	}
	return "Code(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// rpcError is a failed OTLP/gRPC call: the collector's status code and
// message, or the code of a call that got no answer and its cause.
type rpcError struct {
	code  rpcCode
	msg   string
	cause error
}

// Error is written as grpc-go writes a status.
func (e *rpcError) Error() string { return "rpc error: code = " + e.code.String() + " desc = " + e.msg }
func (e *rpcError) Unwrap() error { return e.cause }
