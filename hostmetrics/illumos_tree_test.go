package hostmetrics

import (
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/illumosproc"
)

func TestIllumosTreeTotals(t *testing.T) {
	at := time.Unix(1700000000, 0)
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	var tt illumosTreeTotals
	for i, c := range []struct {
		what      string
		u         illumosproc.Usage
		exited    ExitUsage
		user, sys time.Duration
		processes int
		roots     int
	}{
		{
			what: "the job (sh) and a compiler",
			u:    illumosproc.Usage{Processes: 2, Threads: 2, CPUUser: ms(300), CPUSystem: ms(100), RSS: 4 << 20},
			user: ms(300), sys: ms(100), processes: 2, roots: 1,
		},
		{
			what: "the compiler exited and was reaped: its time is in sh's children's",
			u:    illumosproc.Usage{Processes: 1, Threads: 1, CPUUser: ms(120), CPUSystem: ms(50), ChildUser: ms(400), ChildSystem: ms(90)},
			user: ms(520), sys: ms(140), processes: 1, roots: 1,
		},
		{
			what: "a process reaped between the reading of its parent and its own: missed, held",
			u:    illumosproc.Usage{Processes: 1, Threads: 1, CPUUser: ms(125), CPUSystem: ms(51), ChildUser: ms(300), ChildSystem: ms(80)},
			user: ms(520), sys: ms(140), processes: 1, roots: 1,
		},
		{
			what:   "the job reaped: wait's usage covers it and what it waited for",
			exited: ExitUsage{User: ms(560), System: ms(150), ReadBytes: 1 << 20},
			user:   ms(560), sys: ms(150), processes: 0, roots: 0,
		},
	} {
		tr := tt.tree(c.u, c.exited, c.roots, at.Add(time.Duration(i)*time.Second))
		if tr.CPUUser != c.user || tr.CPUSystem != c.sys || tr.Processes != c.processes || tr.Roots != c.roots {
			t.Errorf("%s: %+v, want user %v system %v, %d processes", c.what, tr, c.user, c.sys, c.processes)
		}
		if tr.HasIO || tr.ReadBytes != 0 || !tr.At.Equal(at.Add(time.Duration(i)*time.Second)) {
			t.Errorf("%s: IO %v %d, At %v", c.what, tr.HasIO, tr.ReadBytes, tr.At)
		}
	}
}

// The reader and the totals together, on the fixture tree of illumosproc:
// the same figures on every system.
func TestIllumosTreeFromFixtures(t *testing.T) {
	r := illumosproc.NewReader("illumosproc/testdata/proc")
	u, err := r.Sample([]int{200}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var tt illumosTreeTotals
	tr := tt.tree(u, ExitUsage{}, 1, time.Time{})
	// Own time of sh, make, sudo, cc and ld, plus the children reaped by
	// sh and make (status) and by sudo (pr_ctime, counted as user time).
	wantUser := (500 + 300 + 10 + 1400 + 2000 + 2500 + 1000 + 600) * time.Millisecond
	wantSys := (250 + 100 + 20 + 300 + 600 + 500 + 200) * time.Millisecond
	if tr.CPUUser != wantUser || tr.CPUSystem != wantSys || tr.Processes != 5 || tr.Threads != 7 ||
		tr.RSS != (2048+4096+1536+8192)*1024 || tr.HasIO {
		t.Errorf("%+v, want user %v system %v", tr, wantUser, wantSys)
	}
}
