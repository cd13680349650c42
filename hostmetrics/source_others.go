//go:build !linux

package hostmetrics

import "runtime"

// otherSource stands for the systems without a native reader yet: it gives
// no figures.
type otherSource struct{}

// NewSource returns the source for this system.
func NewSource(cfg Config) (Source, error) { return otherSource{}, nil }

func (otherSource) Read(s *Sample) error { s.Host = Host{}; s.Job = Job{}; return nil }
func (otherSource) SetJob(int)           {}
func (otherSource) JobExited(ExitUsage)  {}
func (otherSource) Close() error         { return nil }
func (otherSource) Unavailable() string {
	return "resource figures are not read on " + runtime.GOOS
}

// SetSubreaper does nothing: only Linux has child subreapers.
func SetSubreaper() error { return nil }
