package hostmetrics

// NewSourceForTest is NewSource whose job's pid is taken for gone (the job
// reaped) when gone says so, rather than when it no longer exists.
func NewSourceForTest(cfg Config, gone func(pid int) bool) (Source, error) {
	src, err := NewSource(cfg)
	if s, ok := src.(*linuxSource); ok {
		s.gone = gone
	}
	return src, err
}
