package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

// The OTLP/JSON shape of metrics (opentelemetry-proto's MetricsData), reduced
// to the fields the tests look at: what the collector's file exporter writes,
// one MetricsData per line.
// https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding

type metricsData struct {
	ResourceMetrics []struct {
		Resource struct {
			Attributes []keyValue `json:"attributes"`
		} `json:"resource"`
		ScopeMetrics []struct {
			Scope struct {
				Name string `json:"name"`
			} `json:"scope"`
			Metrics []otlpMetric `json:"metrics"`
		} `json:"scopeMetrics"`
	} `json:"resourceMetrics"`
}

type otlpMetric struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Unit        string `json:"unit"`
	Sum         *struct {
		DataPoints             []otlpNumberPoint `json:"dataPoints"`
		AggregationTemporality json.RawMessage   `json:"aggregationTemporality"`
		IsMonotonic            bool              `json:"isMonotonic"`
	} `json:"sum"`
	Gauge *struct {
		DataPoints []otlpNumberPoint `json:"dataPoints"`
	} `json:"gauge"`
	Histogram *struct {
		DataPoints             []otlpHistogramPoint `json:"dataPoints"`
		AggregationTemporality json.RawMessage      `json:"aggregationTemporality"`
	} `json:"histogram"`
	ExponentialHistogram json.RawMessage `json:"exponentialHistogram"`
	Summary              json.RawMessage `json:"summary"`
}

type otlpNumberPoint struct {
	Attributes   []keyValue     `json:"attributes"`
	TimeUnixNano json.Number    `json:"timeUnixNano"`
	AsDouble     *float64       `json:"asDouble"`
	AsInt        *json.Number   `json:"asInt"`
	Exemplars    []otlpExemplar `json:"exemplars"`
}

type otlpHistogramPoint struct {
	Attributes     []keyValue     `json:"attributes"`
	TimeUnixNano   json.Number    `json:"timeUnixNano"`
	Count          json.Number    `json:"count"`
	Sum            *float64       `json:"sum"`
	ExplicitBounds []float64      `json:"explicitBounds"`
	Exemplars      []otlpExemplar `json:"exemplars"`
}

type otlpExemplar struct {
	TraceID string `json:"traceId"`
	SpanID  string `json:"spanId"`
}

// Metric kinds as docs/metrics.md spells them, plus the OTLP kinds jobtrace
// does not use.
const (
	kindCounter       = "counter"       // monotonic sum
	kindUpDownCounter = "updowncounter" // non-monotonic sum
	kindGauge         = "gauge"
	kindHistogram     = "histogram"
)

// Temporality is the OTLP AggregationTemporality enum.
const (
	temporalityDelta      = 1
	temporalityCumulative = 2
)

// receivedMetric is one metric of one export, with its resource and points
// normalised.
type receivedMetric struct {
	Name, Description, Unit string
	Kind                    string
	Temporality             int // 0 for a gauge
	Resource                map[string]string
	Scope                   string
	Points                  []metricPoint
}

// metricPoint is a number point (Value) or a histogram point (Count, Sum,
// Bounds).
type metricPoint struct {
	Attrs     map[string]string
	Time      uint64
	Value     float64
	Count     uint64
	Sum       float64
	Bounds    []float64
	Exemplars []exemplar
}

type exemplar struct{ TraceID, SpanID string }

func (md metricsData) metrics() ([]receivedMetric, error) {
	var out []receivedMetric
	for _, rm := range md.ResourceMetrics {
		res := attrMap(rm.Resource.Attributes)
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				r := receivedMetric{Name: m.Name, Description: m.Description, Unit: m.Unit, Resource: res, Scope: sm.Scope.Name}
				var err error
				switch {
				case m.Sum != nil:
					r.Kind = kindUpDownCounter
					if m.Sum.IsMonotonic {
						r.Kind = kindCounter
					}
					if r.Temporality, err = temporality(m.Sum.AggregationTemporality); err == nil {
						r.Points, err = numberPoints(m.Sum.DataPoints)
					}
				case m.Gauge != nil:
					r.Kind = kindGauge
					r.Points, err = numberPoints(m.Gauge.DataPoints)
				case m.Histogram != nil:
					r.Kind = kindHistogram
					if r.Temporality, err = temporality(m.Histogram.AggregationTemporality); err == nil {
						r.Points, err = histogramPoints(m.Histogram.DataPoints)
					}
				case m.ExponentialHistogram != nil:
					r.Kind = "exponential histogram"
				case m.Summary != nil:
					r.Kind = "summary"
				default:
					r.Kind = "no data"
				}
				if err != nil {
					return nil, fmt.Errorf("metric %s: %w", m.Name, err)
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func numberPoints(dps []otlpNumberPoint) ([]metricPoint, error) {
	var out []metricPoint
	for _, dp := range dps {
		p := metricPoint{Attrs: attrMap(dp.Attributes), Exemplars: exemplars(dp.Exemplars)}
		var err error
		if p.Time, err = uintOf(dp.TimeUnixNano); err != nil {
			return nil, fmt.Errorf("timeUnixNano: %w", err)
		}
		switch {
		case dp.AsDouble != nil:
			p.Value = *dp.AsDouble
		case dp.AsInt != nil:
			if p.Value, err = dp.AsInt.Float64(); err != nil {
				return nil, fmt.Errorf("asInt: %w", err)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func histogramPoints(dps []otlpHistogramPoint) ([]metricPoint, error) {
	var out []metricPoint
	for _, dp := range dps {
		p := metricPoint{Attrs: attrMap(dp.Attributes), Bounds: dp.ExplicitBounds, Exemplars: exemplars(dp.Exemplars)}
		var err error
		if p.Time, err = uintOf(dp.TimeUnixNano); err != nil {
			return nil, fmt.Errorf("timeUnixNano: %w", err)
		}
		if p.Count, err = uintOf(dp.Count); err != nil {
			return nil, fmt.Errorf("count: %w", err)
		}
		if dp.Sum != nil {
			p.Sum = *dp.Sum
		}
		out = append(out, p)
	}
	return out, nil
}

func exemplars(es []otlpExemplar) []exemplar {
	var out []exemplar
	for _, e := range es {
		out = append(out, exemplar{TraceID: normID(e.TraceID, 16), SpanID: normID(e.SpanID, 8)})
	}
	return out
}

// uintOf reads a fixed64 or uint64, which OTLP/JSON writes as a decimal
// string; an absent field is 0.
func uintOf(n json.Number) (uint64, error) {
	if n == "" {
		return 0, nil
	}
	return strconv.ParseUint(string(n), 10, 64)
}

// temporality accepts the enum as a number (what the OTLP/JSON spec asks
// for) or by name (what a generic protobuf JSON encoder writes).
func temporality(raw json.RawMessage) (int, error) {
	if len(raw) == 0 {
		return 0, nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err == nil {
		return n, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("aggregation temporality %s: %w", raw, err)
	}
	switch s {
	case "AGGREGATION_TEMPORALITY_UNSPECIFIED":
		return 0, nil
	case "AGGREGATION_TEMPORALITY_DELTA":
		return temporalityDelta, nil
	case "AGGREGATION_TEMPORALITY_CUMULATIVE":
		return temporalityCumulative, nil
	}
	return 0, fmt.Errorf("unknown aggregation temporality %q", s)
}

// readMetricsFile reads the file exporter's metrics file and returns the
// metrics of every export in order, and the number of exports. A last line
// without its newline is being written: it is left for the next read.
func readMetricsFile(path string) ([]receivedMetric, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	var out []receivedMetric
	lines := 0
	for n := 1; len(data) > 0; n++ {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		if !complete {
			break
		}
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var md metricsData
		if err := json.Unmarshal(line, &md); err != nil {
			return nil, 0, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		ms, err := md.metrics()
		if err != nil {
			return nil, 0, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		out = append(out, ms...)
		lines++
	}
	return out, lines, nil
}
