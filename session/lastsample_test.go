package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdkresource "go.opentelemetry.io/otel/sdk/resource"

	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/supervise"
)

// The job's usage is read from the last sample, the one that ends the run:
// a run that ends right after it started reads two samples, its first and
// its last, and no third one just before the last.
func TestJobUsageFromTheLastSample(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var log syncBuffer
	s := New(Settings{
		Name: "build", Out: dir, ExportTimeout: time.Second,
		Sampling: SamplingOptions{Interval: time.Hour},
		Resource: sdkresource.Empty(), Summary: "off",
		Log: supervise.NewLogger(&log),
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Shutdown(context.Background(), Outcome{}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, usagecsv.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := usagecsv.NewDecoder(f)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for {
		err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		reasons = append(reasons, d.Text(usagecsv.Index("reason")))
	}
	if got := strings.Join(reasons, ","); got != "start,end" {
		t.Errorf("samples %s, want start,end", got)
	}
	// The job's usage covers every sample written, the last one included.
	if n := readSpool(t, dir)["build"].attrs[string(usage.AttrSamples)]; fmt.Sprint(n) != fmt.Sprint(len(reasons)) {
		t.Errorf("the job's usage is from %v samples, want the %d written", n, len(reasons))
	}
}
