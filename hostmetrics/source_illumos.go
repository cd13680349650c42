package hostmetrics

// illumosSource stands for illumos until its kstat reader is in place: it
// gives no figures, and says so.
type illumosSource struct{}

// NewSource returns the source for this system.
func NewSource(cfg Config) (Source, error) { return illumosSource{}, nil }

func (illumosSource) Read(s *Sample) error { s.Host = Host{}; s.Job = Job{}; return nil }
func (illumosSource) SetJob(int)           {}
func (illumosSource) JobExited(ExitUsage)  {}
func (illumosSource) Close() error         { return nil }
func (illumosSource) Unavailable() string {
	return "on illumos: no host figures, no process tree, no pressure stall information, no cgroup"
}

// SetSubreaper does nothing: only Linux has child subreapers.
func SetSubreaper() error { return nil }
