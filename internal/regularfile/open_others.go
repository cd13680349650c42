//go:build !unix

package regularfile

// openFlags: systems other than Unix have no FIFOs in the file system to
// block on.
const openFlags = 0
