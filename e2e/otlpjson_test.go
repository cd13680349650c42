package e2e

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// The OTLP/JSON shape (opentelemetry-proto's TracesData), reduced to the
// fields the tests look at. It decodes both what Jaeger's /api/v3 returns and
// the lines of jobtrace's spans.otlp.jsonl (ExportTraceServiceRequest has the
// same resourceSpans field).
// https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding

type tracesData struct {
	ResourceSpans []resourceSpans `json:"resourceSpans"`
}

type resourceSpans struct {
	Resource struct {
		Attributes []keyValue `json:"attributes"`
	} `json:"resource"`
	ScopeSpans []struct {
		Scope struct {
			Name string `json:"name"`
		} `json:"scope"`
		Spans []otlpSpan `json:"spans"`
	} `json:"scopeSpans"`
}

type otlpSpan struct {
	TraceID      string     `json:"traceId"`
	SpanID       string     `json:"spanId"`
	ParentSpanID string     `json:"parentSpanId"`
	Name         string     `json:"name"`
	Attributes   []keyValue `json:"attributes"`
	Events       []struct {
		Name       string     `json:"name"`
		Attributes []keyValue `json:"attributes"`
	} `json:"events"`
	Status struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"status"`
}

type keyValue struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

// anyValue keeps the scalar kinds. Per the OTLP/JSON rules int64 values are
// strings ("3"); json.Number takes both that and a bare number.
type anyValue struct {
	StringValue *string      `json:"stringValue"`
	IntValue    *json.Number `json:"intValue"`
	BoolValue   *bool        `json:"boolValue"`
	DoubleValue *float64     `json:"doubleValue"`
}

func (v anyValue) String() string {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.IntValue != nil:
		return v.IntValue.String()
	case v.BoolValue != nil:
		return strconv.FormatBool(*v.BoolValue)
	case v.DoubleValue != nil:
		return strconv.FormatFloat(*v.DoubleValue, 'g', -1, 64)
	}
	return ""
}

// span is one span with its resource attributes and normalised ids.
type span struct {
	TraceID, SpanID, ParentSpanID string
	Name                          string
	Attrs                         map[string]string
	Resource                      map[string]string
	Events                        []event
	Error                         bool
	StatusMessage                 string
}

type event struct {
	Name  string
	Attrs map[string]string
}

func (td tracesData) spans() ([]span, error) {
	var out []span
	for _, rs := range td.ResourceSpans {
		res := attrMap(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				code, err := statusCode(s.Status.Code)
				if err != nil {
					return nil, fmt.Errorf("span %q: %w", s.Name, err)
				}
				sp := span{
					TraceID:       normID(s.TraceID, 16),
					SpanID:        normID(s.SpanID, 8),
					ParentSpanID:  normID(s.ParentSpanID, 8),
					Name:          s.Name,
					Attrs:         attrMap(s.Attributes),
					Resource:      res,
					Error:         code == 2,
					StatusMessage: s.Status.Message,
				}
				for _, e := range s.Events {
					sp.Events = append(sp.Events, event{Name: e.Name, Attrs: attrMap(e.Attributes)})
				}
				out = append(out, sp)
			}
		}
	}
	return out, nil
}

func attrMap(kvs []keyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value.String()
	}
	return m
}

// statusCode accepts the enum as a number (what the OTLP/JSON spec asks for)
// or by name (what a generic protobuf JSON encoder writes).
func statusCode(raw json.RawMessage) (int, error) {
	if len(raw) == 0 {
		return 0, nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err == nil {
		return n, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("status code %s: %w", raw, err)
	}
	switch s {
	case "STATUS_CODE_UNSET":
		return 0, nil
	case "STATUS_CODE_OK":
		return 1, nil
	case "STATUS_CODE_ERROR":
		return 2, nil
	}
	return 0, fmt.Errorf("unknown status code %q", s)
}

// normID returns a trace or span id as lower-case hex. OTLP/JSON uses hex;
// a generic protobuf JSON encoder would write base64, so accept that too.
func normID(id string, size int) string {
	if id == "" {
		return ""
	}
	if len(id) == 2*size {
		if _, err := hex.DecodeString(id); err == nil {
			return strings.ToLower(id)
		}
	}
	if b, err := base64.StdEncoding.DecodeString(id); err == nil && len(b) == size {
		return hex.EncodeToString(b)
	}
	return id
}

// readSpansFile reads an OTLP/JSON lines file: one ExportTraceServiceRequest
// per line.
func readSpansFile(path string) ([]span, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []span
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var td tracesData
		if err := json.Unmarshal(line, &td); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		spans, err := td.spans()
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		out = append(out, spans...)
	}
	return out, sc.Err()
}

// renderTree draws the spans as an indented tree, children sorted by name, an
// error status shown as " [error]". Spans whose parent is not among them are
// roots. Spans that keep returns false are left out together with their
// subtrees. The text form makes a mismatch readable in the test output.
func renderTree(spans []span, keep func(span) bool) string {
	byID := map[string]bool{}
	children := map[string][]span{}
	var roots []span
	for _, s := range spans {
		byID[s.SpanID] = true
	}
	for _, s := range spans {
		if !keep(s) {
			continue
		}
		if s.ParentSpanID != "" && byID[s.ParentSpanID] {
			children[s.ParentSpanID] = append(children[s.ParentSpanID], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var walk func([]span, int)
	walk = func(list []span, depth int) {
		sort.SliceStable(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		for _, s := range list {
			b.WriteString(strings.Repeat("  ", depth))
			b.WriteString(s.Name)
			if s.Error {
				b.WriteString(" [error]")
			}
			b.WriteByte('\n')
			walk(children[s.SpanID], depth+1)
		}
	}
	walk(roots, 0)
	return b.String()
}

func findSpan(spans []span, name string) (span, bool) {
	for _, s := range spans {
		if s.Name == name {
			return s, true
		}
	}
	return span{}, false
}
