package procfs

import "testing"

func TestLoadavgFixture(t *testing.T) {
	var l Loadavg
	if err := fixture.Loadavg(&l); err != nil {
		t.Fatal(err)
	}
	if l != (Loadavg{Load1: 0.43, Load5: 0.53, Load15: 1.05, Running: 2, Total: 83, LastPID: 27721}) {
		t.Errorf("got %+v", l)
	}
}

func TestParseLoadavg(t *testing.T) {
	var l Loadavg
	if err := parseLoadavg([]byte("123.45 0 10.5 1000/123456 4194304"), &l); err != nil {
		t.Fatal(err)
	}
	if l != (Loadavg{Load1: 123.45, Load5: 0, Load15: 10.5, Running: 1000, Total: 123456, LastPID: 4194304}) {
		t.Errorf("got %+v", l)
	}
	for _, in := range []string{"", "0.1 0.2\n", "0.1 0.2 0.3 1-84 5\n", "0.1 0.2 0.3 1/84\n", "0.1 0.2 -0.3 1/84 5\n", "0.1 0.2 0.3 /84 5\n", "0.1. 0.2 0.3 1/84 5\n"} {
		wantParseErr(t, parseLoadavg([]byte(in), &l), 1)
	}
}
