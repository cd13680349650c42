package forward

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/exporters/spool"
)

// replaySpans is the size of the spool BenchmarkReplay sends: as many
// spans as a model of a run keeps (spool.MaxReadSpans), one line each as
// the agent writes them.
const replaySpans = spool.MaxReadSpans

// BenchmarkReplay replays a spool of replaySpans spans, all of it, to an
// OTLP/HTTP endpoint on loopback that reads each request and accepts it
// without decoding it: what is measured is jobtrace's side, reading the
// spool and sending it.
func BenchmarkReplay(b *testing.B) {
	dir := b.TempDir()
	j := newJob(b, dir, nil)
	j.spans(seq("s", replaySpans)...)
	j.end()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	s := otlp.DefaultSettings()
	s.Endpoint, s.Protocol = srv.URL, otlp.ProtocolHTTPProtobuf
	exp, err := otlp.Resolve(s, otlp.Signals{Traces: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c, err := otlp.NewTraceClient(exp.Traces)
		if err != nil {
			b.Fatal(err)
		}
		r := Replay(context.Background(), dir, c, true, Options{})
		if r.Err != nil || r.Sent != replaySpans {
			b.Fatalf("sent %d of %d: %v", r.Sent, replaySpans, r.Err)
		}
	}
	b.ReportMetric(float64(replaySpans), "spans/op")
}
