//go:build !linux

package guard

// Start returns nil off Linux: there is no guard (see the package doc).
func Start(Options) *Guard { return nil }

// Main is never called off Linux.
func Main() {}

func (g *Guard) spawn() {}
