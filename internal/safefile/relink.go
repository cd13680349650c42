package safefile

import (
	"io"
	"os"
	"path/filepath"
)

// Relink writes the first size bytes of f, a file whose name was removed
// while it was open (Unlinked), again at path: a new file made with perm,
// opened as Open opens it, and, when it is gone too, its directory (as
// os.MkdirAll makes it). It returns the new file, open with flag at its
// end, for the caller to write to instead of f, which it leaves open; f
// must be open for reading.
func Relink(f *os.File, path string, flag int, perm os.FileMode, size int64) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	nf, err := Open(path, flag|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(nf, io.NewSectionReader(f, 0, size)); err != nil {
		nf.Close()
		return nil, err
	}
	return nf, nil
}
