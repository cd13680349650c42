//go:build !linux

package session

// subreaperSupported: only Linux has child subreapers.
const subreaperSupported = false

// jobCgroup stands for the job's cgroup, which only Linux has.
type jobCgroup struct{}

func setupCgroup(string, Logger, bool) (string, *jobCgroup, string) { return "", nil, "" }

func (c *jobCgroup) cgroupFD() int     { return 0 }
func (c *jobCgroup) dir() string       { return "" }
func (c *jobCgroup) remove() string    { return "" }
func (c *jobCgroup) addProc(int) error { return nil }
