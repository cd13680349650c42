package protocol

import "fmt"

// Excerpt quotes at most n bytes of line for a warning, so that a warning
// about a 1 MiB line stays one short line.
func Excerpt(line []byte, n int) string {
	if len(line) <= n {
		return fmt.Sprintf("%q", line)
	}
	return fmt.Sprintf("%q… (%d bytes)", line[:n], len(line))
}

// ExcerptBytes is how much of an over-long line or message a warning
// quotes (LongExcerpt); the readers keep that much of its head.
const ExcerptBytes = 80

// LongExcerpt quotes a line of size bytes that was too long to keep, from
// its head: at most ExcerptBytes of it, then the size.
func LongExcerpt(head []byte, size int64) string {
	if len(head) > ExcerptBytes {
		head = head[:ExcerptBytes]
	}
	return fmt.Sprintf("%q… (%d bytes)", head, size)
}
