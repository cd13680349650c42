// Package rawfile reads the small files of /proc, /sys and cgroupfs without
// allocating, so that a steady-state sample allocates nothing: os.Open
// allocates a File per call, and the path-taking wrappers of syscall and
// x/sys/unix copy the path into a new NUL-terminated buffer every time.
// On Linux, callers keep their paths NUL-terminated in buffers they reuse,
// or keep the files they read at every sample open (File); ReadFile reads
// a file read once with bare system calls. Elsewhere, where the readers
// only read fixtures, ReadFile reads with the os package.
package rawfile

// minBuf is the size a nil or empty buffer grows to first.
const minBuf = 4 << 10

// grow doubles *buf, keeping its first n bytes, and returns it.
func grow(buf *[]byte, n int) []byte {
	nb := make([]byte, max(2*len(*buf), minBuf))
	copy(nb, (*buf)[:n])
	*buf = nb
	return nb
}
