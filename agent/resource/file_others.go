//go:build !unix

package resource

import (
	"io"
	"os"
)

// readFileAt reads path, up to maxFileSize bytes; nil when it cannot be
// read.
func readFileAt(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize))
	if err != nil {
		return nil
	}
	return data
}
