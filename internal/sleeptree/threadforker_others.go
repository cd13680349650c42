//go:build !linux

package sleeptree

// RunThreadForker returns at once: the thread forker runs on Linux only.
func RunThreadForker() {}
