//go:build !unix

package lowfd

// Free returns upTo: elsewhere than on Unix, there is no limit of file
// descriptors to speak of (Windows's handles are bounded by memory).
func Free(upTo int) int { return upTo }

// Limit returns 0: no limit is known.
func Limit() uint64 { return 0 }
