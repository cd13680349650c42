package usagecsv

import (
	"encoding/csv"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// t0 is in a zone other than UTC, so that a test sees the conversion.
var t0 = time.Date(2026, 11, 29, 22, 35, 45, 123456789, time.FixedZone("CET", 3600))

// fullA and fullB are two samples, two seconds apart, with every group
// present: the job has its own cgroup with every controller on.
func fullA() *hostmetrics.Sample {
	return &hostmetrics.Sample{
		Time:   t0,
		Reason: hostmetrics.ReasonStart,
		Host: hostmetrics.Host{
			NumCPU:    4,
			HasCPU:    true,
			CPU:       hostmetrics.CPUTimes{User: 100, Nice: 10, System: 50, Idle: 800, IOWait: 20, IRQ: 1, SoftIRQ: 2, Steal: 3},
			HasMemory: true,
			Memory: hostmetrics.Memory{Total: 16e9, Used: 4e9, Free: 1e9, Available: 12e9,
				SwapTotal: 8e9, SwapUsed: 1e6},
			HasPaging: true,
			Paging:    hostmetrics.Paging{Minor: 5000, Major: 100},
			HasDisk:   true,
			Disk:      hostmetrics.DiskIO{Reads: 1000, Writes: 2000, ReadBytes: 1e6, WrittenBytes: 2e6},
			Disks:     []hostmetrics.Disk{{Name: "sda", Whole: true}},
			HasNet:    true,
			Net:       hostmetrics.NetIO{RxBytes: 5000, TxBytes: 6000},
			Ifaces:    []hostmetrics.Iface{{Name: "eth0"}, {Name: "lo"}},
			HasLoad:   true,
			Load:      hostmetrics.Load{Load1: 1.5, Load5: 1, Load15: 0.5, Running: 3, Total: 400},
			HasFS:     true,
			FS:        hostmetrics.Filesystem{Path: "/work", Used: 1e10, Free: 5e9},
			Pressure: hostmetrics.PressureSet{
				CPU:    hostmetrics.Pressure{Some: 10 * time.Second, HasSome: true},
				Memory: hostmetrics.Pressure{Some: time.Second, Full: time.Second, HasSome: true, HasFull: true},
				IO:     hostmetrics.Pressure{Some: 3 * time.Second, Full: time.Second, HasSome: true, HasFull: true},
			},
		},
		Job: hostmetrics.Job{
			HasTree: true,
			Tree: hostmetrics.Tree{Processes: 5, Threads: 9, CPUUser: time.Second, CPUSystem: time.Second / 2,
				RSS: 100e6, HasIO: true, ReadBytes: 1000, WriteBytes: 2000, Roots: 1},
			HasCgroup: true,
			CgroupOwn: true,
			CgroupDir: "/sys/fs/cgroup/jobtrace/job",
			Cgroup: hostmetrics.Cgroup{
				HasCPU: true, CPU: 3 * time.Second, CPUUser: 2 * time.Second, CPUSystem: time.Second,
				HasThrottled: true,
				HasMemory:    true, Memory: 200e6,
				HasOOMKills: true,
				HasIO:       true, ReadBytes: 4096, WriteBytes: 8192,
				Pressure: hostmetrics.PressureSet{
					CPU:    hostmetrics.Pressure{Some: time.Second, HasSome: true},
					Memory: hostmetrics.Pressure{HasSome: true, HasFull: true},
					IO:     hostmetrics.Pressure{Some: 2 * time.Second, HasSome: true},
				},
			},
		},
	}
}

func fullB() *hostmetrics.Sample {
	s := fullA()
	s.Time = t0.Add(2 * time.Second)
	s.Reason = hostmetrics.ReasonInterval
	h := &s.Host
	// 8 CPU-seconds in 2 s on 4 CPUs, 3.5 of them idle or iowait.
	h.CPU = hostmetrics.CPUTimes{User: 102, Nice: 10.5, System: 51, Idle: 803, IOWait: 20.5, IRQ: 1, SoftIRQ: 2.5, Steal: 3.5}
	h.Memory.Used, h.Memory.Available, h.Memory.SwapUsed = 5e9, 11e9, 2e6
	h.Paging.Major = 130
	h.Disk = hostmetrics.DiskIO{Reads: 1010, Writes: 2020, ReadBytes: 1e6 + 40960, WrittenBytes: 2e6 + 81920}
	h.Net = hostmetrics.NetIO{RxBytes: 6500, TxBytes: 6250}
	h.Load = hostmetrics.Load{Load1: 2.25, Running: 4, Total: 410}
	h.FS.Used, h.FS.Free = 1.1e10, 4.9e9
	h.Pressure.CPU.Some = 10*time.Second + time.Second/2
	h.Pressure.Memory = hostmetrics.Pressure{} // the file went missing
	h.Pressure.IO.Some = 3*time.Second + time.Second/4
	j := &s.Job
	j.Tree.Processes, j.Tree.Threads, j.Tree.RSS = 7, 12, 150e6
	j.Tree.CPUUser, j.Tree.ReadBytes = 2*time.Second, 5000
	c := &j.Cgroup
	c.CPUUser, c.CPUSystem, c.Throttled = 3500*time.Millisecond, 1300*time.Millisecond, 250*time.Millisecond
	c.Memory = 300e6
	c.OOMKills = 1
	c.ReadBytes, c.WriteBytes = 4096+1<<20, 8192+4096
	c.Pressure.CPU.Some = time.Second + time.Second/2
	c.Pressure.Memory.Some, c.Pressure.Memory.Full = time.Second/8, time.Second/10
	c.Pressure.IO.Some = 2*time.Second + time.Microsecond
	return s
}

// memFile is a file in memory that can be told to fail.
type memFile struct {
	data   []byte
	off    int64
	closed bool
	// failAt makes the write of that index (0 is the header) fail after
	// writing part bytes of it.
	failAt      int
	part        int
	writes      int
	truncateErr error
}

func (f *memFile) Write(p []byte) (int, error) {
	if f.closed {
		return 0, os.ErrClosed
	}
	i := f.writes
	f.writes++
	n, err := len(p), error(nil)
	if i == f.failAt {
		n, err = f.part, errors.New("no space left on device")
	}
	f.data = append(f.data[:f.off], p[:n]...)
	f.off += int64(n)
	return n, err
}

func (f *memFile) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekStart {
		return 0, errors.New("unsupported whence")
	}
	f.off = off
	return off, nil
}

func (f *memFile) Truncate(size int64) error {
	if f.truncateErr != nil {
		return f.truncateErr
	}
	f.data = f.data[:size]
	return nil
}

func (f *memFile) Close() error { f.closed = true; return nil }

// readCSV parses a whole file with encoding/csv, which fails on a row whose
// field count differs from the header's.
func readCSV(t *testing.T, data string) [][]string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(data))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv cannot read the file: %v\n%s", err, data)
	}
	return recs
}

// cells maps each column name to its value in rec.
func cells(t *testing.T, rec []string) map[string]string {
	t.Helper()
	if len(rec) != len(columns) {
		t.Fatalf("row has %d fields, want %d", len(rec), len(columns))
	}
	m := make(map[string]string, len(rec))
	for i, c := range columns {
		m[c.Name] = rec[i]
	}
	return m
}

// checkCells compares a row with want, which must name every column.
func checkCells(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for _, c := range columns {
		w, ok := want[c.Name]
		if !ok {
			t.Errorf("%s: the test does not say what %s should be", what, c.Name)
			continue
		}
		if got[c.Name] != w {
			t.Errorf("%s: %s = %q, want %q", what, c.Name, got[c.Name], w)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("%s: no column %s", what, k)
		}
	}
}
