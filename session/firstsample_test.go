package session

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// gatedSource is a hostmetrics.Source whose first read waits until open
// is closed.
type gatedSource struct {
	countedSource
	open chan struct{}
}

func (g *gatedSource) Read(s *hostmetrics.Sample) error {
	if g.reads.Load() == 0 {
		<-g.open
	}
	return g.countedSource.Read(s)
}

// A session with a child returns from Start while its first sample is
// still being read, so that its program starts the job beside it, and
// JobStarting, called right before the job starts, waits for that sample.
func TestJobStartingWaitsForTheFirstSample(t *testing.T) {
	log := &syncBuffer{}
	set := boundarySampled(filepath.Join(t.TempDir(), "out"), log)
	src := &gatedSource{countedSource{done: make(chan int64, 16)}, make(chan struct{})}
	set.Summary, set.Child, set.hooks.source = "off", true, src
	s := New(set)
	opened := false
	release := func() {
		if !opened {
			opened = true
			close(src.open)
		}
	}
	defer release()
	started := make(chan error, 1)
	go func() { started <- s.Start(context.Background()) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(timingtest.Patience):
		release()
		<-started
		t.Fatal("Start waited for the first sample")
	}
	waited := make(chan struct{})
	go func() { s.JobStarting(); close(waited) }()
	select {
	case <-waited:
		t.Fatal("JobStarting returned before the first sample was read")
	case <-time.After(20 * time.Millisecond):
	}
	release()
	select {
	case <-waited:
	case <-time.After(timingtest.Patience):
		t.Fatal("JobStarting did not return once the first sample was read")
	}
	if n := src.reads.Load(); n != 1 {
		t.Errorf("%d samples read before the job, want 1", n)
	}
	s.JobNotStarted()
	if _, err := s.Shutdown(context.Background(), Outcome{Ended: time.Now()}); err != nil {
		t.Fatal(err)
	}
}
