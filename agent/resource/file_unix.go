//go:build unix

package resource

import "golang.org/x/sys/unix"

// readFileAt reads path, up to maxFileSize bytes, with bare system calls:
// open, read to the end, close. A file opened by the os package costs a
// few more (its descriptor offered to the runtime's poller and taken
// back), as much as reading a small file. nil when it cannot be read.
func readFileAt(path string) []byte {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	data := make([]byte, 0, 512)
	for len(data) < maxFileSize {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := unix.Read(fd, data[len(data):min(cap(data), maxFileSize)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil
		}
		if n == 0 {
			break
		}
		data = data[:len(data)+n]
	}
	return data
}
