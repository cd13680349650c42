//go:build illumos

package kstat

import (
	"testing"
	"time"
)

// TestLive reads the running kernel's kstats through /dev/kstat and checks
// that the values are plausible: it is the check of the ioctl layer that the
// fixture tests cannot make.
func TestLive(t *testing.T) {
	tok, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer tok.Close()

	all := tok.All()
	if len(all) < 10 || all[0].ID != 0 || all[0].String() != "unix:0:kstat_headers" {
		t.Fatalf("chain: %d kstats, first %+v", len(all), all[0])
	}
	if changed, err := tok.Update(); err != nil {
		t.Errorf("Update: %v (changed %v)", err, changed)
	}

	misc, ok := tok.Lookup("unix", 0, "system_misc")
	if !ok {
		t.Fatal("no unix:0:system_misc")
	}
	ns, err := tok.ReadNamed(misc)
	if err != nil {
		t.Fatal(err)
	}
	ncpus := uint64(0)
	for _, c := range []struct {
		name     string
		min, max uint64
	}{
		{"ncpus", 1, 1 << 16},
		{"nproc", 1, 1 << 24},
		{"boot_time", uint64(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()), uint64(time.Now().Unix()) + 1},
		{"avenrun_1min", 0, 1 << 24},
		{"avenrun_5min", 0, 1 << 24},
		{"avenrun_15min", 0, 1 << 24},
	} {
		n, ok := Value(ns, c.name)
		if !ok || n.Type != DataUint32 || n.Uint < c.min || n.Uint > c.max {
			t.Errorf("unix:0:system_misc %s = %+v, want a uint32 in [%d, %d]", c.name, n, c.min, c.max)
		}
		if c.name == "ncpus" {
			ncpus = n.Uint
		}
	}
	t.Logf("unix:0:system_misc: %d values, ncpus %d", len(ns), ncpus)

	cpu, ok := tok.Lookup("cpu", -1, "sys") // CPU 0 may be offline
	if !ok {
		t.Fatal("no cpu:*:sys")
	}
	sum := func() uint64 {
		ns, err := tok.ReadNamed(cpu)
		if err != nil {
			t.Fatal(err)
		}
		var total uint64
		for _, name := range []string{"cpu_nsec_user", "cpu_nsec_kernel", "cpu_nsec_idle"} {
			n, ok := Value(ns, name)
			if !ok || n.Type != DataUint64 {
				t.Errorf("%s %s = %+v, want a uint64", cpu, name, n)
			}
			total += n.Uint
		}
		return total
	}
	first := sum()
	time.Sleep(50 * time.Millisecond)
	second := sum()
	if first == 0 || second < first {
		t.Errorf("%s: user+kernel+idle ns went from %d to %d", cpu, first, second)
	}
	t.Logf("%s: user+kernel+idle %d ns, then %d ns", cpu, first, second)

	// cpu_info has KSTAT_DATA_STRING values: the pointer decoding's live test.
	if info, ok := tok.Lookup("cpu_info", cpu.Instance, ""); ok {
		ns, err := tok.ReadNamed(info)
		if err != nil {
			t.Errorf("%s: %v", info, err)
		}
		text := 0
		for _, n := range ns {
			if n.Type == DataString {
				t.Logf("%s %s %q", info, n.Name, n.Str)
				if n.Str != "" {
					text++
				}
			}
		}
		if err == nil && text == 0 {
			t.Errorf("%s: no KSTAT_DATA_STRING value with text", info)
		}
	}

	// Disks, if the zone sees any.
	for _, d := range tok.Find(func(k KStat) bool { return k.Class == "disk" && k.Type == TypeIO }) {
		io, err := tok.ReadIO(d)
		if err != nil {
			t.Errorf("%s: %v", d, err)
			continue
		}
		t.Logf("%s: %d bytes read in %d reads, %d written in %d writes, busy %d ns", d, io.NRead, io.Reads, io.NWritten, io.Writes, io.RTime)
	}
}
