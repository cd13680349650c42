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

// fill reads with read into *buf, which it grows, until read gives no more
// bytes or limit bytes are in (no limit when limit is 0), and returns how
// many it read: ReadFileUpTo's loop, over whatever reads the file.
func fill(buf *[]byte, limit int, read func([]byte) (int, error)) (int, error) {
	b := *buf
	n := 0
	for limit == 0 || n < limit {
		if n == len(b) {
			b = grow(buf, n)
		}
		end := len(b)
		if limit > 0 {
			end = min(end, limit)
		}
		m, err := read(b[n:end])
		if err != nil {
			return 0, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}
