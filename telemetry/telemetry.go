package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/jobtrace/jobtrace/exporters/forward"
	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/exporters/usagemetrics"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/render/profile"
	htmlreport "github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans"
)

// MetricExportInterval is how often metrics are pushed to the collector
// during a job; the last values are pushed once more at its end.
const MetricExportInterval = 10 * time.Second

// ExportSettings say where telemetry goes besides the local artifacts. A nil
// Traces or Metrics means that signal is not exported.
type ExportSettings struct {
	Traces  *otlp.Endpoint
	Metrics *otlp.Endpoint
	// PrometheusListen, when set, is the address of an HTTP endpoint that
	// serves the metrics for scraping at /metrics, besides OTLP.
	PrometheusListen string
	// MetricExporter builds the OTLP metric exporter of Metrics;
	// otlp.NewMetricExporter when nil.
	MetricExporter func(*otlp.Endpoint) (sdkmetric.Exporter, error)
}

// Pipeline is jobtrace's telemetry: a tracer provider whose every span is
// spooled to a local file, a forwarder that sends the spool to a collector,
// and a meter provider.
type Pipeline struct {
	TracerProvider *sdktrace.TracerProvider
	Meter          metric.Meter

	mp        *sdkmetric.MeterProvider
	prom      *promServer
	spoolProc *spool.SpanProcessor
	spoolPath string
	fwd       *forward.Forwarder
	fwdCancel context.CancelFunc
	fwdDone   chan struct{}
	endpoint  string
	recorder  *runmodel.Recorder
	dir       string
	unlock    func()
	// Rendered, when set, is closed once the files rendered from the model
	// of the run are written in the artifacts directory, which the caller
	// renders while the pipeline shuts down: Shutdown waits for it before
	// it gives the directory up (removes its lock).
	Rendered <-chan struct{}
}

// Dir is the directory the artifacts go to.
func (p *Pipeline) Dir() string { return p.dir }

// RelinkSpool writes the spool again at its path when it was removed while
// the pipeline held it open (spool.TraceClient.Relink). It reports whether
// it did.
func (p *Pipeline) RelinkSpool() (bool, error) {
	if p.spoolProc == nil {
		return false, nil
	}
	return p.spoolProc.Relink()
}

// LockFile is the file in an artifacts directory that a running jobtrace
// holds locked.
const LockFile = ".jobtrace.lock"

// artifactNames are the files a run writes in its artifacts directory,
// besides LockFile.
func artifactNames() []string {
	return []string{
		spool.TracesFile, spool.TracesFile + spool.SentSuffix, spool.TracesFile + spool.RejectedSuffix,
		spool.TracesFile + spool.UncertainSuffix, usagecsv.FileName, htmlreport.HTMLName, htmlreport.SVGName, profile.FileName,
	}
}

// RemoveDir removes dir, a directory only a Pipeline wrote (the private
// spool of `jobtrace exec` outside a run). jobtrace's own files there are
// removed by name first, which takes no descriptor: os.RemoveAll opens the
// directory to list it, and with none left (a low `ulimit -n`) it failed
// and left the directory behind. What else is there goes with RemoveAll.
func RemoveDir(dir string) error {
	for _, name := range append(artifactNames(), LockFile) {
		_ = os.Remove(filepath.Join(dir, name))
	}
	if err := os.Remove(dir); err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return os.RemoveAll(dir)
}

// Reclaim frees the names of jobtrace's files in dir from what is not a
// file of its own: a symbolic link, a FIFO or a socket there is removed,
// with one warning each, rather than followed or let cost the run its
// artifacts (package safefile).
func Reclaim(dir string, names []string, warn func(string)) {
	for _, name := range names {
		path := filepath.Join(dir, name)
		what, err := safefile.Reclaim(path)
		switch {
		case err != nil:
			warn(err.Error())
		case what != "":
			warn(fmt.Sprintf("removed %s, which was %s: jobtrace writes its own files there and never through a link", path, what))
		}
	}
}

// ErrDirBusy is an artifacts directory another jobtrace is writing to.
var ErrDirBusy = errors.New("another jobtrace is writing to this directory")

// New sets up the telemetry with the spool in dir. When another
// jobtrace is writing to dir (a `jobtrace run` inside a job that is itself
// under `jobtrace run`, in the same directory), the spool goes to a
// directory of its own inside it, run-<pid>, since a spool and its .sent
// offset have one writer.
func New(dir string, res *sdkresource.Resource, exp ExportSettings, warn func(string), opts ...sdktrace.TracerProviderOption) (*Pipeline, error) {
	if err := safefile.OwnLink(dir); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	// A directory made here holds nothing to reclaim.
	fresh := os.Mkdir(dir, 0o755) == nil
	if !fresh {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("output directory: %w", err)
		}
		Reclaim(dir, []string{LockFile}, warn)
	}
	unlock, err := LockDir(dir)
	if errors.Is(err, ErrDirBusy) {
		own := filepath.Join(dir, fmt.Sprintf("run-%d", os.Getpid()))
		warn(fmt.Sprintf("another jobtrace is writing to %s: this run's artifacts go to %s", dir, own))
		dir, fresh = own, false
		if err := subDir(dir); err != nil {
			return nil, fmt.Errorf("output directory: %w", err)
		}
		unlock, err = LockDir(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	if !fresh {
		Reclaim(dir, artifactNames(), warn)
	}
	p := &Pipeline{dir: dir, unlock: unlock, spoolPath: filepath.Join(dir, spool.TracesFile), recorder: runmodel.NewRecorder()}
	client := spool.NewTraceClient(p.spoolPath)
	p.spoolProc = spool.NewSpanProcessor(client, spool.WithWarn(warn))
	p.TracerProvider = sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{
		sdktrace.WithResource(res),
		sdktrace.WithSampler(spans.NewSampler()),
		// Every limit, so that the OTEL_SPAN_*_LIMIT variables of the
		// job's environment do not apply to jobtrace's spans.
		sdktrace.WithRawSpanLimits(spans.SpanLimits()),
		sdktrace.WithSpanProcessor(p.spoolProc),
		sdktrace.WithSpanProcessor(p.recorder),
	}, opts...)...)
	// The network side degrades to local artifacts only, never removes
	// them: an exporter that cannot be built costs its signal, with one
	// warning. (Settings are checked when they are loaded, so this is the
	// exception.)
	if exp.Traces != nil {
		tc, err := otlp.NewTraceClient(exp.Traces)
		if err != nil {
			warn(fmt.Sprintf("OTLP traces to %s: %v: spans are only written to %s", exp.Traces, err, spool.TracesFile))
		} else {
			p.endpoint = exp.Traces.String()
			p.fwd = forward.New(p.spoolPath, tc, forward.Options{Timeout: exp.Traces.Timeout, Warn: warn})
			client.OnAppend(func(int64, int) { p.fwd.Notify() })
			ctx, cancel := context.WithCancel(context.Background())
			p.fwdCancel = cancel
			p.fwdDone = make(chan struct{})
			go func() { defer close(p.fwdDone); p.fwd.Run(ctx) }()
		}
	}
	var readers []sdkmetric.Option
	if exp.Metrics != nil {
		newExporter := exp.MetricExporter
		if newExporter == nil {
			newExporter = func(e *otlp.Endpoint) (sdkmetric.Exporter, error) {
				return otlp.NewMetricExporter(context.Background(), e)
			}
		}
		me, err := newExporter(exp.Metrics)
		if err != nil {
			warn(fmt.Sprintf("OTLP metrics to %s: %v: metrics are not exported", exp.Metrics, err))
		} else {
			// Interval and timeout given, so that the SDK's reader takes
			// neither from OTEL_METRIC_EXPORT_INTERVAL or _TIMEOUT: the
			// resolved endpoint's timeout bounds an export, as it bounds a
			// request of the spans.
			readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me,
				sdkmetric.WithInterval(MetricExportInterval), sdkmetric.WithTimeout(exp.Metrics.Timeout))))
		}
	}
	if exp.PrometheusListen != "" {
		// A second reader on the same provider, so that pushing and
		// scraping can both be on. An address that cannot be listened on
		// costs the endpoint, not the job.
		r, srv, err := newPromReader(exp.PrometheusListen, warn)
		if err != nil {
			warn(fmt.Sprintf("prometheus endpoint %s: %v: metrics are not served for scraping", exp.PrometheusListen, err))
		} else {
			p.prom = srv
			readers = append(readers, sdkmetric.WithReader(r))
		}
	}
	if len(readers) > 0 {
		p.mp = sdkmetric.NewMeterProvider(append([]sdkmetric.Option{sdkmetric.WithResource(res)}, readers...)...)
		p.Meter = p.mp.Meter("jobtrace")
	} else {
		p.Meter = noop.NewMeterProvider().Meter("jobtrace")
	}
	return p, nil
}

// RecordsMetrics reports whether Meter records anything: a metrics
// exporter or the Prometheus endpoint reads it. Otherwise Meter is a no-op
// one, and what exists only to be recorded by it need not be made.
func (p *Pipeline) RecordsMetrics() bool { return p.mp != nil }

// subDir makes dir, a directory jobtrace names inside the output directory,
// or takes it as it is when it is a directory already; a link there (which
// anyone who can write to the output directory could plant) is refused.
func subDir(dir string) error {
	err := os.Mkdir(dir, 0o755)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	return nil
}

// PrometheusAddr is the address the Prometheus endpoint listens on, with
// the port resolved; "" when it is not served.
func (p *Pipeline) PrometheusAddr() string {
	if p.prom == nil {
		return ""
	}
	return p.prom.addr
}

// Recorder keeps what the model of the run is built from: the spans as
// they end, and the CSV's rows given to its Tee.
func (p *Pipeline) Recorder() *runmodel.Recorder { return p.recorder }

// Exports reports whether spans are sent to a collector.
func (p *Pipeline) Exports() bool { return p.fwd != nil }

// SpoolPath is the file every span is written to.
func (p *Pipeline) SpoolPath() string { return p.spoolPath }

// ShutdownResult is what the end of the pipeline achieved.
type ShutdownResult struct {
	Spans    int // spans written to the spool
	Dropped  int // spans not written (queue bound)
	Lost     int // spans not written because the spool could not be written (a full disk)
	Exported bool
	Sent     int // spans delivered to the collector in this run
	Pending  int // spans in the spool not delivered
	// Rejected spans the collector refused as invalid, kept in the
	// spool's .rejected file; Discarded spans it said it dropped from an
	// accepted upload; Uncertain pending spans whose upload was abandoned
	// and may have arrived; Resent spans delivered again after an
	// abandoned upload. See forward.Result.
	Rejected, Discarded, Uncertain, Resent int
	Err                                    error // why spans are pending
	// MetricsErr is why the last metrics were not accepted; metrics are
	// not spooled, so this is a warning, not something to replay.
	MetricsErr error
	// Interrupted is why the caller cut the export short (the cause of
	// the cancellation of Shutdown's context), nil when it did not.
	Interrupted error
	Took        time.Duration
	Endpoint    string
}

// Shutdown writes every span to the spool, then gives the forwarder and the
// metric exporter until timeout to deliver what is left, or until ctx is
// done: a caller interrupted (a signal to jobtrace once the job has ended)
// cancels ctx, with the reason as its cause (context.WithCancelCause), and
// what was not delivered stays in the spool, Err saying why. Writing the
// spool is not cut short by ctx: it is local and bounded, and what makes
// "nothing is lost" true. When export is false (the trace is not sampled)
// nothing is sent and the spool is marked as not to be sent.
func (p *Pipeline) Shutdown(ctx context.Context, timeout time.Duration, export bool) ShutdownResult {
	start := time.Now()
	var r ShutdownResult
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Spool first: local, fast, and what makes "nothing is lost" true.
	flushCtx, flushCancel := context.WithTimeout(context.Background(), 5*time.Second)
	if err := p.TracerProvider.Shutdown(flushCtx); err != nil {
		r.Err = fmt.Errorf("spool: %w", err)
	}
	flushCancel()
	st := p.spoolProc.Stats()
	r.Spans, r.Dropped, r.Lost = int(st.Spans), int(st.Dropped), int(st.Lost)
	if n := st.Dropped + st.Lost; n > 0 {
		if c, err := usagemetrics.NewDropped(p.Meter); err == nil {
			c.Add(context.Background(), n, metric.WithAttributes(usagemetrics.AttrDroppedWhat.String("spans")))
		}
	}
	r.Endpoint = p.endpoint
	var wg sync.WaitGroup
	var metricErr error
	if p.mp != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.mp.Shutdown(ctx); err != nil && export {
				metricErr = interrupted(ctx, err)
			}
		}()
	}
	if p.fwd != nil {
		p.fwdCancel()
		<-p.fwdDone
		if export {
			r.Exported = true
			fr := p.fwd.Finish(ctx)
			r.Sent, r.Pending = fr.Sent, fr.Pending
			r.Rejected, r.Discarded, r.Uncertain, r.Resent = fr.Rejected, fr.Discarded, fr.Uncertain, fr.Resent
			if fr.Err != nil {
				r.Err = errors.Join(r.Err, interrupted(ctx, fr.Err))
			}
		} else {
			// Nothing of the forwarder's may write after the .sent
			// file below.
			p.fwd.Stop(ctx)
			if fi, err := os.Stat(p.spoolPath); err == nil {
				_ = spool.WriteSent(p.spoolPath, fi.Size())
			}
		}
	}
	wg.Wait()
	if p.Rendered != nil {
		<-p.Rendered
	}
	r.MetricsErr = metricErr
	if errors.Is(ctx.Err(), context.Canceled) {
		r.Interrupted = interrupted(ctx, ctx.Err())
	}
	if p.prom != nil {
		// After the final flush, so that a scrape until then sees the
		// job's last values.
		p.prom.stop()
	}
	p.unlock()
	r.Took = time.Since(start)
	return r
}

// interrupted is err, or the cause of ctx's cancellation when ctx was
// cancelled by the caller (not by the export timeout): the reason the
// caller gave, instead of "context canceled".
func interrupted(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
			return cause
		}
	}
	return err
}

// ExportNotes says what the collector did not take, and which spans it may
// hold twice: delivery is at least once.
func ExportNotes(printf func(string, ...any), rejected, discarded, uncertain, resent int, spoolPath string) {
	if rejected > 0 {
		printf("%d spans rejected by the collector as invalid, not sent again: kept in %s", rejected, spoolPath+spool.RejectedSuffix)
	}
	if discarded > 0 {
		printf("%d spans discarded by the collector from uploads it accepted (a partial success)", discarded)
	}
	if uncertain > 0 {
		printf("%d of the pending spans were in an upload abandoned at its deadline: the collector may have them already, and a replay would then deliver them twice", uncertain)
	}
	if resent > 0 {
		printf("%d spans were sent again after an upload abandoned at its deadline: the collector may have them twice", resent)
	}
}
