package session

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// countedSource is a hostmetrics.Source that counts its reads and says
// when each is done.
type countedSource struct {
	reads atomic.Int64
	done  chan int64
}

func (c *countedSource) Read(*hostmetrics.Sample) error {
	c.done <- c.reads.Add(1)
	return nil
}

// waitRead waits until the n-th read is done.
func (c *countedSource) waitRead(t *testing.T, n int64) {
	t.Helper()
	for {
		select {
		case got := <-c.done:
			if got >= n {
				return
			}
		case <-time.After(time.Minute):
			t.Fatalf("sample %d not read after a minute (%d read)", n, c.reads.Load())
		}
	}
}

func (c *countedSource) SetJob(int)                      {}
func (c *countedSource) JobOutsideCgroup()               {}
func (c *countedSource) JobExited(hostmetrics.ExitUsage) {}
func (c *countedSource) Unavailable() string             { return "" }
func (c *countedSource) Close() error                    { return nil }

// countedSession is a started session with a child, sampled from a
// countedSource at its boundaries only, writing to dir.
func countedSession(t *testing.T) (dir string, log *syncBuffer, src *countedSource, s *Session) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "out")
	log = &syncBuffer{}
	set := boundarySampled(dir, log)
	src = &countedSource{done: make(chan int64, 16)}
	set.Summary, set.Child, set.hooks.source = "off", true, src
	s = New(set)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.JobNotStarted()
	return dir, log, src, s
}

// exitThenShutdown tells s its job exited, waits for the n-th sample, the
// one read then, and shuts s down.
func exitThenShutdown(t *testing.T, s *Session, src *countedSource, n int64) {
	t.Helper()
	s.JobExited(hostmetrics.ExitUsage{})
	src.waitRead(t, n)
	if _, err := s.Shutdown(context.Background(), Outcome{Ended: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

// The job's last sample is read as soon as the job is reaped (JobExited),
// and Shutdown takes it as the last one: no sample is read after it.
func TestLastSampleReadWhenTheJobExits(t *testing.T) {
	dir, _, src, s := countedSession(t)
	exitThenShutdown(t, s, src, 2)
	if n := src.reads.Load(); n != 2 {
		t.Errorf("%d samples read, want 2: the first, and the last read when the job exited", n)
	}
	if reasons, _ := csvRows(t, dir); strings.Join(reasons, ",") != "start,end" {
		t.Errorf("samples %v, want start,end", reasons)
	}
}

// A phase still open when the job exits is ended by Shutdown with a sample
// of its own, read after the one read when the job exited: that one is
// then not the last, and the last sample is read after the phase's, so
// that the job's usage covers the phase's.
func TestLastSampleAfterTheOpenPhasesEnd(t *testing.T) {
	dir, log, src, s := countedSession(t)
	if err := s.Begin("compile"); err != nil {
		t.Fatal(err)
	}
	src.waitRead(t, 2)
	exitThenShutdown(t, s, src, 3)
	// start, compile's begin, the one read when the job exited, compile's
	// end, the last.
	if n := src.reads.Load(); n != 5 {
		t.Errorf("%d samples read, want 5", n)
	}
	reasons, times := csvRows(t, dir)
	if strings.Join(reasons, ",") != "start,boundary,boundary,end" {
		t.Errorf("samples %v, want start,boundary,boundary,end", reasons)
	}
	for i := 1; i < len(times); i++ {
		if times[i] < times[i-1] {
			t.Errorf("sample %d (%s) at %s, before the one before it (%s)", i, reasons[i], times[i], times[i-1])
		}
	}
	if !strings.Contains(log.String(), "phases still open when the job ended: compile") {
		t.Errorf("no warning of the open phase:\n%s", log.String())
	}
}
