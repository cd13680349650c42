package otlp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/jobtrace/jobtrace/internal/otlptest"
)

// What each collector answer means, as the OTLP specification lists them,
// read from real uploads to real servers.
func TestClassifyCollectorAnswers(t *testing.T) {
	upload := func(t *testing.T, proto, addr string) error {
		c, err := NewTraceClient(resolve(t, Settings{Endpoint: "http://" + addr, General: General{
			Protocol: proto, Timeout: 5 * time.Second}}).Traces)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		defer c.Stop(ctx)
		return c.Upload(ctx, oneSpan("s"))
	}
	for code, want := range map[int]Outcome{
		http.StatusBadRequest: Rejected, http.StatusRequestEntityTooLarge: Rejected,
		http.StatusTooManyRequests: Retry, http.StatusBadGateway: Retry, http.StatusServiceUnavailable: Retry, http.StatusGatewayTimeout: Retry,
		http.StatusUnauthorized: Refused, http.StatusForbidden: Refused, http.StatusNotFound: Refused,
		http.StatusUnsupportedMediaType: Refused, http.StatusInternalServerError: Refused,
	} {
		t.Run(fmt.Sprint("http/", code), func(t *testing.T) {
			c := &otlptest.Collector{}
			c.RefuseAll(code, codes.OK)
			err := upload(t, ProtocolHTTPProtobuf, otlptest.StartHTTP(t, "", c).Addr)
			if got := Classify(err); got != want {
				t.Errorf("HTTP %d: %v, want %v (%v)", code, got, want, err)
			}
		})
	}
	for code, want := range map[codes.Code]Outcome{
		codes.InvalidArgument: Rejected,
		codes.Unavailable:     Retry, codes.ResourceExhausted: Retry, codes.Aborted: Retry, codes.DataLoss: Retry,
		codes.Unauthenticated: Refused, codes.PermissionDenied: Refused, codes.Unimplemented: Refused, codes.Internal: Refused,
	} {
		t.Run(fmt.Sprint("grpc/", code), func(t *testing.T) {
			c := &otlptest.Collector{}
			c.RefuseAll(-1, code)
			err := upload(t, ProtocolGRPC, otlptest.StartGRPC(t, "", c).Addr)
			if got := Classify(err); got != want {
				t.Errorf("%v: %v, want %v (%v)", code, got, want, err)
			}
		})
	}
	t.Run("partial success", func(t *testing.T) {
		for _, proto := range []string{ProtocolGRPC, ProtocolHTTPProtobuf} {
			c := &otlptest.Collector{}
			c.SetPartial(2)
			var addr string
			if proto == ProtocolGRPC {
				addr = otlptest.StartGRPC(t, "", c).Addr
			} else {
				addr = otlptest.StartHTTP(t, "", c).Addr
			}
			err := upload(t, proto, addr)
			var pe *PartialError
			if Classify(err) != Accepted || !errors.As(err, &pe) || pe.Rejected != 2 {
				t.Errorf("%s: partial success gave %v (%v)", proto, Classify(err), err)
			}
		}
	})
	t.Run("refused connection", func(t *testing.T) {
		err := upload(t, ProtocolHTTPProtobuf, otlptest.Refused(t))
		if Classify(err) != Retry || Abandoned(err) {
			t.Errorf("refused connection: %v, abandoned %v (%v)", Classify(err), Abandoned(err), err)
		}
	})
}
