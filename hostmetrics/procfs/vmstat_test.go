package procfs

import "testing"

func TestVmstatFixture(t *testing.T) {
	var v Vmstat
	if err := fixture.Vmstat(&v); err != nil {
		t.Fatal(err)
	}
	if v != (Vmstat{PgFault: 133889979, PgMajFault: 36651}) {
		t.Errorf("got %+v", v)
	}
	if v.MinorFaults() != 133889979-36651 {
		t.Errorf("MinorFaults = %d", v.MinorFaults())
	}
}

func TestParseVmstat(t *testing.T) {
	var v Vmstat
	wantParseErr(t, parseVmstat([]byte("nr_free_pages 1\n"), &v), 1)
	wantParseErr(t, parseVmstat([]byte("nr_free_pages 1\npgfault -1\n"), &v), 2)
}

// Once both counters are read, the rest of the file is not.
func TestParseVmstatStopsAtItsTwoCounters(t *testing.T) {
	var v Vmstat
	if err := parseVmstat([]byte("pgmajfault 2\npgfault 3\npgfault y\n"), &v); err != nil || v != (Vmstat{PgFault: 3, PgMajFault: 2}) {
		t.Errorf("got %+v, %v", v, err)
	}
}

// A counter written twice is not the other one: the file is read on to it.
func TestParseVmstatCounterTwice(t *testing.T) {
	var v Vmstat
	if err := parseVmstat([]byte("pgfault 1\npgfault 3\nnr_x 5\npgmajfault 2\n"), &v); err != nil || v != (Vmstat{PgFault: 3, PgMajFault: 2}) {
		t.Errorf("got %+v, %v", v, err)
	}
}
