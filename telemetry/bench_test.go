package telemetry

import (
	"bufio"
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	sdkresource "go.opentelemetry.io/otel/sdk/resource"

	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/socket"
)

// benchSocket measures messages per second from one client connection
// through the socket server, the tracker and the spool, as in a job: each
// iteration is one message line.
func benchSocket(b *testing.B, lines [][]byte) {
	dir := b.TempDir()
	pipe, err := New(filepath.Join(dir, "out"), sdkresource.Empty(), ExportSettings{}, func(string) {})
	if err != nil {
		b.Fatal(err)
	}
	tracer := pipe.TracerProvider.Tracer("bench")
	ctx, root := tracer.Start(b.Context(), "job")
	tr := spans.NewTracker(ctx, tracer, spans.TrackerOptions{Meter: pipe.Meter})
	path := filepath.Join(dir, "sock")
	srv, err := socket.Listen(path, func(m protocol.Msg) protocol.Reply { return tr.Handle(m) }, socket.Options{})
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan struct{})
	go func() { defer close(served); srv.Serve() }()
	conn, err := net.Dial("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(conn, 64<<10)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		w.Write(lines[i%len(lines)])
	}
	w.Flush()
	conn.Close()
	srv.Close()
	<-served
	tr.Close("success")
	root.End()
	res := pipe.Shutdown(context.Background(), 5*time.Second, true)
	if res.Err != nil {
		b.Fatal(res.Err)
	}
	b.ReportMetric(float64(res.Dropped), "dropped-spans")
	b.StopTimer()
	if st := srv.Stats(); st.Messages != uint64(b.N) {
		b.Fatalf("%d messages handled, want %d", st.Messages, b.N)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}

func BenchmarkSocketEvents(b *testing.B) {
	benchSocket(b, [][]byte{[]byte(`{"v":1,"type":"event","name":"tick","attrs":{"n":1}}` + "\n")})
}

func BenchmarkSocketPhases(b *testing.B) {
	benchSocket(b, [][]byte{
		[]byte(`{"v":1,"type":"begin","name":"step","attrs":{"k":"v"}}` + "\n"),
		[]byte(`{"v":1,"type":"end","name":"step"}` + "\n"),
	})
}

func BenchmarkSocketCounters(b *testing.B) {
	benchSocket(b, [][]byte{[]byte(`{"v":1,"type":"counter","name":"tests.passed","value":1}` + "\n")})
}
