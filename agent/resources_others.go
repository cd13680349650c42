//go:build !linux

package agent

// subreaperSupported: only Linux has child subreapers.
const subreaperSupported = false

// jobCgroup stands for the job's cgroup, which only Linux has.
type jobCgroup struct{}

func setupCgroup(string) (string, *jobCgroup, string) { return "", nil, "" }

func (c *jobCgroup) cgroupFD() int     { return 0 }
func (c *jobCgroup) remove() string    { return "" }
func (c *jobCgroup) addProc(int) error { return nil }
