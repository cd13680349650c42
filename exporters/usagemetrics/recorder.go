package usagemetrics

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// Options configure a Recorder.
type Options struct {
	// Active returns the context of the phase span active at the time of a
	// sample. The next sample's measurements, whose figures cover the time
	// from this one on, are recorded with it, so their exemplars point at
	// the span that was running then (the first sample's with its own).
	// context.Background() is used when Active is nil or returns nil.
	Active func() context.Context
	// Warn receives each limit reached (phase names, devices), once, from
	// the goroutine of the Sample or Phase call that reached it; nil drops
	// them.
	Warn func(string)
}

// Recorder records samples and per-phase usage as metrics. Sample and Phase
// may be called from different goroutines.
type Recorder struct {
	opts Options

	// One instrument per metric, in the slot of its kind; nil when the
	// metric is disabled.
	fc [numMetrics]metric.Float64Counter
	ic [numMetrics]metric.Int64Counter
	iu [numMetrics]metric.Int64UpDownCounter
	fg [numMetrics]metric.Float64Gauge
	fh [numMetrics]metric.Float64Histogram
	ih [numMetrics]metric.Int64Histogram

	mu sync.Mutex // guards the sample state below
	sampleState

	phaseMu sync.Mutex
	phaseState
}

var _ hostmetrics.Sink = (*Recorder)(nil)

// New creates the instruments of the enabled metrics of table on meter.
func New(meter metric.Meter, opts Options) (*Recorder, error) {
	if len(table) != numMetrics {
		return nil, fmt.Errorf("usagemetrics: table has %d metrics, want %d", len(table), numMetrics)
	}
	r := &Recorder{opts: opts}
	var errs []error
	for i := range table {
		if err := r.create(meter, i, &table[i]); err != nil {
			errs = append(errs, fmt.Errorf("usagemetrics: %s: %w", table[i].Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r.sampleState.init()
	r.phaseState.init()
	return r, nil
}

func (r *Recorder) create(meter metric.Meter, i int, m *Metric) error {
	if !m.Enabled {
		return nil
	}
	desc, unit := metric.WithDescription(m.Description), metric.WithUnit(m.Unit)
	var err error
	switch {
	case m.Kind == Counter && m.Number == Float64:
		r.fc[i], err = meter.Float64Counter(m.Name, desc, unit)
	case m.Kind == Counter && m.Number == Int64:
		r.ic[i], err = meter.Int64Counter(m.Name, desc, unit)
	case m.Kind == UpDownCounter && m.Number == Int64:
		r.iu[i], err = meter.Int64UpDownCounter(m.Name, desc, unit)
	case m.Kind == Gauge && m.Number == Float64:
		r.fg[i], err = meter.Float64Gauge(m.Name, desc, unit)
	case m.Kind == Histogram && m.Number == Float64:
		r.fh[i], err = meter.Float64Histogram(m.Name, desc, unit, metric.WithExplicitBucketBoundaries(m.Buckets...))
	case m.Kind == Histogram && m.Number == Int64:
		r.ih[i], err = meter.Int64Histogram(m.Name, desc, unit, metric.WithExplicitBucketBoundaries(m.Buckets...))
	default:
		err = fmt.Errorf("no instrument for a %s of %v values", m.Kind, m.Number)
	}
	return err
}

func (r *Recorder) warn(msg string) {
	if r.opts.Warn != nil {
		r.opts.Warn("metrics: " + msg)
	}
}

// attrs is one attribute set, made once, as the options the instruments
// take, so that recording allocates nothing for it.
type attrs struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

func newAttrs(kv ...attribute.KeyValue) attrs {
	o := metric.WithAttributeSet(attribute.NewSet(kv...))
	return attrs{add: []metric.AddOption{o}, rec: []metric.RecordOption{o}}
}
