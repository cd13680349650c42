package procfs

import (
	"os"
	"testing"
	"time"
)

func TestDiskstatsFixture(t *testing.T) {
	var d Diskstats
	if err := fixture.Diskstats(&d); err != nil {
		t.Fatal(err)
	}
	type dev struct {
		name           string
		whole, virtual bool
	}
	var got []dev
	for _, s := range d.Devices {
		got = append(got, dev{s.Name, s.Whole, s.Virtual})
	}
	want := []dev{{"loop0", true, true}, {"loop1", true, true}, {"vda", true, false}, {"vda1", false, false}, {"zram0", true, true}}
	if len(got) != len(want) {
		t.Fatalf("devices = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("device %d = %v, want %v", i, got[i], want[i])
		}
	}
	vda := d.Devices[2]
	if vda.Major != 254 || vda.Minor != 0 || vda.Reads != 691311 || vda.Writes != 118647 ||
		vda.ReadBytes() != 29168282*512 || vda.WrittenBytes() != 39207808*512 || vda.IOTime != 174872*time.Millisecond {
		t.Errorf("vda = %+v", vda)
	}
}

// TestDiskstatsSysRule checks the /sys/block rule, including a name with a
// '/' that sysfs spells with '!'.
func TestDiskstatsSysRule(t *testing.T) {
	proc, sys := t.TempDir(), t.TempDir()
	writeFile(t, proc+"/diskstats", ""+
		"   8 0 sda 1 0 8 0 2 0 16 0 0 3 0\n"+
		"   8 1 sda1 1 0 8 0 2 0 16 0 0 3 0\n"+
		"   9 0 md0 1 0 8 0 2 0 16 0 0 3 0\n"+
		" 104 0 cciss/c0d0 1 0 8 0 2 0 16 0 0 3 0\n")
	for _, name := range []string{"sda", "md0", "cciss!c0d0"} {
		writeFile(t, sys+"/block/"+name+"/dev", "x\n")
	}
	f := NewFS(proc, sys)
	var d Diskstats
	if err := f.Diskstats(&d); err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Devices {
		if want := s.Name != "sda1"; s.Whole != want {
			t.Errorf("%s: Whole = %v, want %v", s.Name, s.Whole, want)
		}
	}
	// The answer is cached per name: removing /sys/block/sda does not change it.
	if err := os.RemoveAll(sys + "/block/sda"); err != nil {
		t.Fatal(err)
	}
	if err := f.Diskstats(&d); err != nil || !d.Devices[0].Whole || d.Devices[1].Whole {
		t.Errorf("second read: %v %+v", err, d.Devices)
	}
	// A device that comes after the first read is looked up in /sys then.
	writeFile(t, sys+"/block/sdb/dev", "x\n")
	writeFile(t, proc+"/diskstats", ""+
		"   8 16 sdb 1 0 8 0 2 0 16 0 0 3 0\n"+
		"   8 17 sdb1 1 0 8 0 2 0 16 0 0 3 0\n")
	if err := f.Diskstats(&d); err != nil || !d.Devices[0].Whole || d.Devices[1].Whole {
		t.Errorf("a device added later: %v %+v", err, d.Devices)
	}
}

func TestDiskstatsNameRule(t *testing.T) {
	proc := t.TempDir()
	writeFile(t, proc+"/diskstats", ""+
		" 259 0 nvme0n1 1 0 8 0 2 0 16 0 0 3 0\n"+
		" 259 1 nvme0n1p1 1 0 8 0 2 0 16 0 0 3 0\n"+
		" 259 2 nvme0n10 1 0 8 0 2 0 16 0 0 3 0\n"+
		"   8 0 sda 1 0 8 0 2 0 16 0 0 3 0\n"+
		"   8 1 sda1 1 0 8 0 2 0 16 0 0 3 0\n"+
		"   8 16 sdaa 1 0 8 0 2 0 16 0 0 3 0\n"+
		" 179 0 mmcblk0 1 0 8 0 2 0 16 0 0 3 0\n"+
		" 179 1 mmcblk0p2 1 0 8 0 2 0 16 0 0 3 0\n"+
		"   7 1 loop1 1 0 8 0 2 0 16 0 0 3 0\n"+
		"   7 10 loop10 1 0 8 0 2 0 16 0 0 3 0\n"+
		" 253 0 dm-0 1 0 8 0 2 0 16 0 0 3 0\n")
	partitions := map[string]bool{"nvme0n1p1": true, "sda1": true, "mmcblk0p2": true}
	// No sys root, and a sys root without block/: both use the name rule.
	for _, sys := range []string{"", t.TempDir()} {
		var d Diskstats
		if err := NewFS(proc, sys).Diskstats(&d); err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Devices {
			if s.Whole == partitions[s.Name] {
				t.Errorf("sys %q: %s: Whole = %v", sys, s.Name, s.Whole)
			}
		}
	}
}

func TestParseDiskstats(t *testing.T) {
	var d Diskstats
	// Old kernels print 14 fields, new ones 20; names are reused.
	in := " 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n 8 16 sdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n"
	if err := parseDiskstats([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Devices) != 2 || d.Devices[1].Name != "sdb" || d.Devices[1].Writes != 5 || d.Devices[1].IOTime != 10*time.Millisecond {
		t.Fatalf("got %+v", d.Devices)
	}
	if err := parseDiskstats([]byte(" 8 16 sdb 1 2 3 4 5 6 7 8 9 10 11\n"), &d); err != nil || len(d.Devices) != 1 || d.Devices[0].Name != "sdb" {
		t.Fatalf("reparse: %v %+v", err, d.Devices)
	}
	for _, tc := range []struct {
		in   string
		line int
	}{
		{"8 0 sda 1 2 3 4 5 6 7 8 9 10\n", 1}, // 13 fields
		{"8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 x sdb 1 2 3 4 5 6 7 8 9 10 11\n", 2},
		{"8 0\n", 1},
		{"4294967296 0 sda 1 2 3 4 5 6 7 8 9 10 11\n", 1},
		{"8 0 sda 1 2 3 4 5 6 7 8 9 10 -11\n", 1},
	} {
		wantParseErr(t, parseDiskstats([]byte(tc.in), &d), tc.line)
	}
}
