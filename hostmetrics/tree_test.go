package hostmetrics

import (
	"testing"
	"time"
)

func TestTreeTotals(t *testing.T) {
	var tt treeTotals
	at := time.Unix(1700000000, 0)
	w := walkSum{Processes: 3, Threads: 5, Roots: 1, RSS: 100, User: 2 * time.Second, System: time.Second,
		IO: true, ReadBytes: 10, WriteBytes: 20}
	tr := tt.tree(&w, at)
	want := Tree{Processes: 3, Threads: 5, Roots: 1, RSS: 100, CPUUser: 2 * time.Second, CPUSystem: time.Second,
		HasIO: true, ReadBytes: 10, WriteBytes: 20, At: at}
	if tr != want {
		t.Errorf("got  %+v\nwant %+v", tr, want)
	}
	// A process missed by this walk: the totals stay where they were.
	w2 := walkSum{Processes: 2, User: time.Second, System: 2 * time.Second, IO: true, IOAbsent: true, ReadBytes: 5}
	tr = tt.tree(&w2, at)
	if tr.CPUUser != 2*time.Second || tr.CPUSystem != 2*time.Second || tr.ReadBytes != 10 || tr.WriteBytes != 20 {
		t.Errorf("totals went down: %+v", tr)
	}
	if !tr.HasIO || !tr.IOPartial {
		t.Errorf("IO counted before, some unreadable now: HasIO %v, IOPartial %v", tr.HasIO, tr.IOPartial)
	}
	// Nothing readable and nothing counted yet: no IO.
	var fresh treeTotals
	if tr := fresh.tree(&walkSum{Processes: 1, IO: true, IOAbsent: true}, at); tr.HasIO {
		t.Errorf("IO present though none could be read: %+v", tr)
	}
	// A system without per-process IO gives none, whatever was summed.
	if tr := fresh.tree(&walkSum{Processes: 1, ReadBytes: 7}, at); tr.HasIO || tr.ReadBytes != 0 {
		t.Errorf("IO from a system that gives none: %+v", tr)
	}
}
