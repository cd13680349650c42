package usage

import "testing"

// The job's own IO when it was read, else the machine's disks', said to be
// the host's; a share shown at most 1.
func TestShownFigures(t *testing.T) {
	for _, c := range []struct {
		u        Usage
		r, w     uint64
		host, ok bool
	}{
		{Usage{HasIO: true, ReadBytes: 1, WriteBytes: 2, HasSystemDisk: true, SystemReadBytes: 10, SystemWriteBytes: 20}, 1, 2, false, true},
		{Usage{HasSystemDisk: true, SystemReadBytes: 10, SystemWriteBytes: 20}, 10, 20, true, true},
		{Usage{}, 0, 0, false, false},
	} {
		r, w, host, ok := c.u.StorageIO()
		if r != c.r || w != c.w || host != c.host || ok != c.ok {
			t.Errorf("%+v: StorageIO %d %d %v %v, want %d %d %v %v", c.u, r, w, host, ok, c.r, c.w, c.host, c.ok)
		}
	}
	if BoundShare(1.3) != 1 || BoundShare(0.4) != 0.4 {
		t.Error("BoundShare does not keep a share at most 1")
	}
}
