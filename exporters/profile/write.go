package profile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/jobtrace/jobtrace/internal/safefile"
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

// WriteFile writes p as JSON to path, atomically and without following a
// symbolic link at path (safefile.Replace); no temporary file is left when
// it fails.
func WriteFile(path string, p *Profile) error {
	err := safefile.Replace(path, 0o644, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 64<<10)
		if err := json.NewEncoder(w).Encode(p); err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	return nil
}
