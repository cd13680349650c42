package protocol

import "fmt"

// ExcerptBytes is how much of a line or message that was refused a warning
// quotes; the readers keep that much of the head of an over-long one.
const ExcerptBytes = 80

// Excerpt quotes at most ExcerptBytes of line for a warning, so that a
// warning about a 1 MiB line stays one short line.
func Excerpt(line []byte) string {
	if len(line) <= ExcerptBytes {
		return fmt.Sprintf("%q", line)
	}
	return LongExcerpt(line, int64(len(line)))
}

// LongExcerpt quotes a line of size bytes that was too long to keep, from
// its head: at most ExcerptBytes of it, then the size.
func LongExcerpt(head []byte, size int64) string {
	if len(head) > ExcerptBytes {
		head = head[:ExcerptBytes]
	}
	return fmt.Sprintf("%q… (%d bytes)", head, size)
}
