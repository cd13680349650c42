package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// verdictKinds are the words of jobtrace.phase.verdict (docs/attributes.md).
var verdictKinds = []string{"cpu-bound", "single-thread", "io-bound", "memory-pressured", "starved", "waiting", "too-short", "unknown"}

// checkVerdictsInJaeger checks that the verdicts and the advice jobtrace
// put on its spans reached Jaeger as the artifact has them: the job's span
// and each phase with usage in want carry a verdict of a known kind with a
// reason, the job's span its advice; and that Jaeger finds the trace by
// the job's verdict, as a user would search for it.
func checkVerdictsInJaeger(t *testing.T, j *Jaeger, got, want []span, traceID, rootName string, withUsage []string) {
	t.Helper()
	byID := make(map[string]span, len(got))
	for _, s := range got {
		byID[s.SpanID] = s
	}
	for _, w := range want {
		g := byID[w.SpanID]
		for k, v := range w.Attrs {
			if strings.HasPrefix(k, "jobtrace.phase.verdict") || strings.HasPrefix(k, "jobtrace.job.advice.") {
				if g.Attrs[k] != v {
					t.Errorf("span %s: %s = %q in Jaeger, %q in the artifact", w.Name, k, g.Attrs[k], v)
				}
			}
		}
	}
	root, _ := findSpan(got, rootName)
	for _, name := range append([]string{rootName}, withUsage...) {
		s, ok := findSpan(got, name)
		if !ok {
			continue
		}
		if v := s.Attrs["jobtrace.phase.verdict"]; !slices.Contains(verdictKinds, v) || s.Attrs["jobtrace.phase.verdict.reason"] == "" {
			t.Errorf("span %s in Jaeger: verdict %q, reason %q; want one of %v with a reason", name, v, s.Attrs["jobtrace.phase.verdict.reason"], verdictKinds)
		}
	}
	if root.Attrs["jobtrace.job.advice.kind"] == "" || root.Attrs["jobtrace.job.advice.text"] == "" {
		t.Errorf("job span in Jaeger: no advice (jobtrace.job.advice.kind %q, .text %q)", root.Attrs["jobtrace.job.advice.kind"], root.Attrs["jobtrace.job.advice.text"])
	}

	verdict := root.Attrs["jobtrace.phase.verdict"]
	ids, err := j.FindTraces(root.Resource["service.name"], map[string]string{"jobtrace.phase.verdict": verdict})
	if err != nil {
		t.Errorf("searching Jaeger for jobtrace.phase.verdict=%s: %v", verdict, err)
	} else if !slices.Contains(ids, traceID) {
		t.Errorf("Jaeger's search for jobtrace.phase.verdict=%s (service %s) found traces %v, not %s", verdict, root.Resource["service.name"], ids, traceID)
	}
	// A verdict no span of the trace has does not find it: the search
	// above looked at the attribute.
	used := map[string]bool{}
	for _, s := range got {
		used[s.Attrs["jobtrace.phase.verdict"]] = true
	}
	for _, k := range verdictKinds {
		if used[k] {
			continue
		}
		ids, err := j.FindTraces(root.Resource["service.name"], map[string]string{"jobtrace.phase.verdict": k})
		if err == nil && slices.Contains(ids, traceID) {
			t.Errorf("Jaeger's search for jobtrace.phase.verdict=%s found trace %s, none of whose spans has it", k, traceID)
		}
		break
	}
}

// FindTraces searches Jaeger as its UI does (GET /api/traces with tags)
// for the traces of service in the last hour with a span that has every
// attribute in tags, and returns their ids.
func (j *Jaeger) FindTraces(service string, tags map[string]string) ([]string, error) {
	tagJSON, err := json.Marshal(tags)
	if err != nil {
		return nil, err
	}
	q := url.Values{"service": {service}, "tags": {string(tagJSON)}, "lookback": {"1h"}, "limit": {"100"}}
	u := "http://" + j.Query + "/api/traces?" + q.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	status, body, err := j.get(ctx, u)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d: %s", u, status, body)
	}
	var found struct {
		Data []struct {
			TraceID string `json:"traceID"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &found); err != nil {
		return nil, fmt.Errorf("GET %s: decoding: %w", u, err)
	}
	var ids []string
	for _, d := range found.Data {
		ids = append(ids, d.TraceID)
	}
	return ids, nil
}
