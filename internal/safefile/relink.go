package safefile

import (
	"io"
	"os"
	"path/filepath"
)

// Relink gives f its name again when it lost it (unlinked: it, or the
// directory it was in, was removed while it was open, by a job's `rm -rf`
// or `git clean -x`): the first size bytes of f, all of them when size is
// negative, are written to a new file at path, made with perm as Open makes
// it, in its directory made again when that is gone too (as os.MkdirAll
// makes it). It returns the file to write to from then on: f itself while
// it has its name; else the new file, open with flag at its end, and f is
// closed. relinked tells which. f must be open for reading; on an error it
// is left as it was.
func Relink(f *os.File, path string, flag int, perm os.FileMode, size int64) (nf *os.File, relinked bool, err error) {
	if !unlinked(f) {
		return f, false, nil
	}
	if size < 0 {
		fi, err := f.Stat()
		if err != nil {
			return f, false, err
		}
		size = fi.Size()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return f, false, err
	}
	nf, err = Open(path, flag|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return f, false, err
	}
	if _, err := io.Copy(nf, io.NewSectionReader(f, 0, size)); err != nil {
		nf.Close()
		return f, false, err
	}
	f.Close()
	return nf, true, nil
}
