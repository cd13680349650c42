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
