package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/exporters/promtext"
	"github.com/jobtrace/jobtrace/internal/warnlimit"
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

// promServer is the Prometheus endpoint: an HTTP server that serves what
// its reader collects at /metrics.
type promServer struct {
	srv  *http.Server
	addr string // where it listens, with the port resolved
	done chan struct{}
}

// promReader is the meter provider's reader for the Prometheus endpoint: a
// ManualReader (which reads no OTEL_* variable) that keeps its last
// collection, taken as the meter provider shuts down, for the scrapes that
// come after that and before the endpoint closes.
type promReader struct {
	*sdkmetric.ManualReader

	mu   sync.Mutex
	last *metricdata.ResourceMetrics // set by Shutdown
}

// Shutdown collects once more, then shuts the reader down.
func (r *promReader) Shutdown(ctx context.Context) error {
	var rm metricdata.ResourceMetrics
	if err := r.ManualReader.Collect(ctx, &rm); err == nil {
		r.mu.Lock()
		r.last = &rm
		r.mu.Unlock()
	}
	return r.ManualReader.Shutdown(ctx)
}

// collect is what a scrape sees: the metrics now, none before the reader
// is registered with a meter provider, or their last values once the
// reader is shut down.
func (r *promReader) collect(ctx context.Context) (*metricdata.ResourceMetrics, error) {
	var rm metricdata.ResourceMetrics
	err := r.ManualReader.Collect(ctx, &rm)
	if errors.Is(err, sdkmetric.ErrReaderNotRegistered) {
		// The endpoint listens before the meter provider holding the
		// reader exists: a scrape in between sees no metrics yet.
		return &rm, nil
	}
	if errors.Is(err, sdkmetric.ErrReaderShutdown) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.last != nil {
			return r.last, nil
		}
	}
	return &rm, err
}

// newPromReader makes a Prometheus reader and starts serving it on addr.
// The reader still has to be added to the meter provider.
func newPromReader(addr string, warn func(string)) (sdkmetric.Reader, *promServer, error) {
	keep := map[attribute.Key]bool{}
	for _, k := range PrometheusLabels() {
		keep[k] = true
	}
	r := &promReader{ManualReader: sdkmetric.NewManualReader()}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	// A problem with a metric is said once, however many scrapes meet it.
	problems := warnlimit.New("prometheus endpoint: ", warn, warnlimit.DefaultVerbatim)
	opt := promtext.Options{ResourceLabels: func(kv attribute.KeyValue) bool { return keep[kv.Key] }}
	s := &promServer{
		addr: ln.Addr().String(),
		done: make(chan struct{}),
		srv: &http.Server{
			Handler:           promHandler(r, opt, problems),
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
	return r, s, nil
}

// promHandler serves the metrics in the text format at GET (and HEAD)
// /metrics and nothing else.
func promHandler(r *promReader, opt promtext.Options, problems *warnlimit.Limiter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != PrometheusPath {
			http.NotFound(w, req)
			return
		}
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		rm, err := r.collect(req.Context())
		if err != nil {
			problems.WarnKey(err.Error(), err.Error())
			http.Error(w, "metrics not collected: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		body, err := promtext.Append(nil, rm, opt)
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range joined.Unwrap() {
				problems.WarnKey(e.Error(), e.Error())
			}
		}
		w.Header().Set("Content-Type", promtext.ContentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if req.Method == http.MethodGet {
			// A scraper that went away is its own business.
			_, _ = w.Write(body)
		}
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
