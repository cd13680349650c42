package procfs

import (
	"strings"
	"testing"
	"time"
)

func TestPressureFixture(t *testing.T) {
	var p Pressure
	if err := fixture.Pressure(PressureIO, &p); err != nil {
		t.Fatal(err)
	}
	want := Pressure{
		Some:    PressureLine{Avg10: 0.11, Avg60: 0.22, Avg300: 0.62, Total: 81609202 * time.Microsecond},
		Full:    PressureLine{Avg10: 0.07, Avg60: 0.17, Avg300: 0.50, Total: 34595371 * time.Microsecond},
		HasSome: true, HasFull: true,
	}
	if p != want {
		t.Errorf("io = %+v, want %+v", p, want)
	}
	if err := fixture.Pressure(PressureCPU, &p); err != nil || p.Some.Total != 2429496579*time.Microsecond || p.Some.Avg10 != 2.21 {
		t.Errorf("cpu = %v %+v", err, p)
	}
	// No irq file in the fixture: absent, not an error of the sample.
	if err := fixture.Pressure(PressureIRQ, &p); !isNotExist(err) {
		t.Errorf("irq: err = %v, want fs.ErrNotExist", err)
	}
	if err := fixture.Pressure(PressureResource(9), &p); err == nil {
		t.Error("unknown resource: no error")
	}
}

func TestParsePressure(t *testing.T) {
	var p Pressure
	// cpu before 5.13: no full line.
	if err := ParsePressure([]byte("some avg10=1.50 avg60=0.00 avg300=100.00 total=5\n"), &p); err != nil {
		t.Fatal(err)
	}
	if p.HasFull || !p.HasSome || p.Some != (PressureLine{Avg10: 1.5, Avg300: 100, Total: 5 * time.Microsecond}) || p.Full != (PressureLine{}) {
		t.Errorf("some only: %+v", p)
	}
	// irq: full only; unknown keys are skipped; no final newline.
	if err := ParsePressure([]byte("full avg10=0.00 avg60=0.01 avg300=0.00 total=7 future=1"), &p); err != nil {
		t.Fatal(err)
	}
	if p.HasSome || !p.HasFull || p.Full.Total != 7*time.Microsecond || p.Full.Avg60 != 0.01 {
		t.Errorf("full only: %+v", p)
	}
	long := "some avg10=0.00 avg60=0.00 avg300=0.00 total=1" + strings.Repeat(" pad=0", 10000) + "\n"
	if err := ParsePressure([]byte(long), &p); err != nil || p.Some.Total != time.Microsecond {
		t.Errorf("long line: %v %+v", err, p)
	}
	for _, tc := range []struct {
		in   string
		line int
	}{
		{"", 1},
		{"\n\n", 1},
		{"some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nhalf avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", 2},
		{"some avg10=0.00 avg60=0.00 avg300=0.00\n", 1},
		{"some avg10=0.00 avg60=0.00 avg300=0.00 total=x\n", 1},
		{"some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=abc avg60=0.00 avg300=0.00 total=0\n", 2},
		{"some avg10 avg60=0.00 avg300=0.00 total=0\n", 1},
		{"some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551615\n", 1},
	} {
		err := ParsePressure([]byte(tc.in), &p)
		wantParseErr(t, err, tc.line)
		if strings.Contains(err.Error(), "  ") || !strings.HasPrefix(err.Error(), "procfs: parse: line ") {
			t.Errorf("message without a path: %q", err)
		}
	}
}

// TestReadPressureCgroupFile reads a cgroup-style file through ReadPressure.
func TestReadPressureCgroupFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/cpu.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=10\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=20\n")
	writeFile(t, dir+"/memory.pressure", "some avg10=0.00 avg60=0.00 total=10\n")
	var p Pressure
	if err := fixture.ReadPressure(dir+"/cpu.pressure", &p); err != nil || p.Full.Total != 20*time.Microsecond {
		t.Errorf("cpu.pressure: %v %+v", err, p)
	}
	err := fixture.ReadPressure(dir+"/memory.pressure", &p)
	wantParseErr(t, err, 1)
	if !strings.Contains(err.Error(), dir+"/memory.pressure line 1") {
		t.Errorf("err = %q, want the path", err)
	}
}
