package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// PrometheusPath is the one path the Prometheus endpoint serves.
const PrometheusPath = "/metrics"

// PrometheusLabels returns the resource attributes put as labels on every series
// of the Prometheus endpoint (dots become underscores: service_name,
// host_name, ...), so that series of different projects, machines and
// runners stay apart without a join on target_info. They are the resource
// attributes that name a project, a machine or a runner and stay the same
// from run to run; the others (run ids, revisions, URLs) would make a new
// series per run, and are only in target_info.
func PrometheusLabels() []attribute.Key {
	return []attribute.Key{
		semconv.ServiceNameKey,
		semconv.HostNameKey,
		semconv.HostTypeKey,
		semconv.CICDPipelineNameKey,
		semconv.CICDWorkerIDKey,
		semconv.CICDWorkerNameKey,
		semconv.VCSRepositoryNameKey,
	}
}

// Bounds of the Prometheus endpoint's HTTP server. A scrape is one small
// GET; these only keep a client that stalls from holding a connection for
// the whole job.
const (
	promReadHeaderTimeout = 5 * time.Second
	promReadTimeout       = 10 * time.Second
	promWriteTimeout      = 30 * time.Second
	promIdleTimeout       = 60 * time.Second
	promMaxHeaderBytes    = 16 << 10
	// promShutdownTimeout bounds waiting for a scrape in progress at the
	// end of the job.
	promShutdownTimeout = 500 * time.Millisecond
)

// promServer is the Prometheus endpoint: an HTTP server that serves the
// metrics of the meter provider's Prometheus reader at /metrics.
type promServer struct {
	srv  *http.Server
	addr string // where it listens, with the port resolved
	done chan struct{}
}

// newPromReader makes a Prometheus reader and starts serving it on addr.
// The reader still has to be added to the meter provider.
func newPromReader(addr string, warn func(string)) (sdkmetric.Reader, *promServer, error) {
	reg := prometheus.NewRegistry()
	keep := map[attribute.Key]bool{}
	for _, k := range PrometheusLabels() {
		keep[k] = true
	}
	exp, err := otelprom.New(
		otelprom.WithRegisterer(reg),
		otelprom.WithResourceAsConstantLabels(func(kv attribute.KeyValue) bool { return keep[kv.Key] }),
	)
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:      promLogger(warn),
		ErrorHandling: promhttp.ContinueOnError,
	})
	s := &promServer{
		addr: ln.Addr().String(),
		done: make(chan struct{}),
		srv: &http.Server{
			Handler:           promHandler(metrics),
			ReadHeaderTimeout: promReadHeaderTimeout,
			ReadTimeout:       promReadTimeout,
			WriteTimeout:      promWriteTimeout,
			IdleTimeout:       promIdleTimeout,
			MaxHeaderBytes:    promMaxHeaderBytes,
		},
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			warn(fmt.Sprintf("prometheus endpoint: %v", err))
		}
	}()
	return exp, s, nil
}

// promHandler serves metrics at GET (and HEAD) /metrics and nothing else.
func promHandler(metrics http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != PrometheusPath {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		metrics.ServeHTTP(w, r)
	})
}

// stop closes the listener and waits a little for a scrape in progress.
func (s *promServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), promShutdownTimeout)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
	<-s.done
}

// promLogger routes promhttp's errors to warn.
type promLogger func(string)

func (l promLogger) Println(v ...any) { l("prometheus endpoint: " + fmt.Sprint(v...)) }
