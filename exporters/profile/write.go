package profile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Write reads the artifacts in dir, builds the profile and writes it to
// dir/profile.json, replacing it atomically (written under a temporary
// name, then renamed). Lines of the artifacts that could not be read are
// returned in warn; the profile is written without them.
func Write(dir string) (warn error, err error) {
	spans, rows, warn, err := ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p, err := Build(spans, rows)
	if err != nil {
		return warn, err
	}
	return warn, WriteFile(filepath.Join(dir, FileName), p)
}

// WriteFile writes p as JSON to path, atomically.
func WriteFile(path string, p *Profile) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	w := bufio.NewWriterSize(tmp, 64<<10)
	eerr := json.NewEncoder(w).Encode(p)
	ferr := w.Flush()
	cerr := tmp.Close()
	if err := errors.Join(eerr, ferr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("profile: write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("profile: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("profile: %w", err)
	}
	return nil
}
