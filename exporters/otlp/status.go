package otlp

import (
	"context"
	"errors"
	"net/http"
	"reflect"
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

// Classify returns what an error from the UploadTraces of a client made by
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

// statusError is a failed OTLP/HTTP upload with the collector's status code,
// which the OTel HTTP client only puts in its message.
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// statusKey is the context key under which an upload leaves room for the
// HTTP status code of its response.
type statusKey struct{}

// statusTransport records the status code of each response in the *int the
// request's context carries under statusKey.
type statusTransport struct{ http.RoundTripper }

func (t statusTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.RoundTripper.RoundTrip(r)
	if resp != nil {
		if p, ok := r.Context().Value(statusKey{}).(*int); ok {
			*p = resp.StatusCode
		}
	}
	return resp, err
}

// withStatus runs upload with a context that records the HTTP status of its
// response, and wraps a failure with that status so Classify can read it.
func withStatus(ctx context.Context, upload func(context.Context) error) error {
	code := 0
	err := partial(upload(context.WithValue(ctx, statusKey{}, &code)))
	if err == nil || code < 300 {
		return err
	}
	return &statusError{code: code, err: err}
}

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

// partial turns the OTel clients' partial-success error, which they return
// from a successful upload (its type is internal to them), into a
// *PartialError; any other error is returned as it is.
func partial(err error) error {
	if err == nil {
		return nil
	}
	var found *PartialError
	var other bool
	var walk func(error)
	walk = func(e error) {
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
			return
		}
		v := reflect.ValueOf(e)
		if v.Kind() == reflect.Struct && v.Type().Name() == "PartialSuccess" {
			n, m := v.FieldByName("RejectedItems"), v.FieldByName("ErrorMessage")
			if n.IsValid() && n.CanInt() && m.IsValid() && m.Kind() == reflect.String {
				if found == nil {
					found = &PartialError{}
				}
				found.Rejected += n.Int()
				if found.Message == "" {
					found.Message = m.String()
				}
				return
			}
		}
		other = true
	}
	walk(err)
	if found == nil || other {
		return err
	}
	return found
}
