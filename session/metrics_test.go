package session

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/exporters/usagemetrics"
	"github.com/jobtrace/jobtrace/hostmetrics"
)

// quietSource is a hostmetrics.Source that reads nothing.
type quietSource struct{ countedSource }

func (*quietSource) Read(*hostmetrics.Sample) error { return nil }

// A run that exports no metrics (no endpoint, no Prometheus listener) says
// nothing of the bounds on metric series: with more phase names than
// usagemetrics.MaxPhaseNames, no warning that later ones are recorded
// under another name, since none is recorded.
func TestNoMetricsNoSeriesWarnings(t *testing.T) {
	log := &syncBuffer{}
	set := boundarySampled(filepath.Join(t.TempDir(), "out"), log)
	set.Summary, set.hooks.source = "off", &quietSource{}
	s := New(set)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := range usagemetrics.MaxPhaseNames + 2 {
		name := "step-" + strconv.Itoa(i)
		if err := s.Begin(name); err != nil {
			t.Fatal(err)
		}
		if err := s.End(name, "success"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Shutdown(context.Background(), Outcome{Ended: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "phase names") {
		t.Errorf("a warning about metric series without metrics:\n%s", log.String())
	}
}
