package profile

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/runmodel"
)

// Write builds the profile of run and writes it to dir/profile.json,
// replacing it atomically (written under a temporary name, then renamed).
func Write(dir string, run *runmodel.Run) error {
	p, err := Build(run)
	if err != nil {
		return err
	}
	return WriteFile(filepath.Join(dir, FileName), p)
}

// WriteFile writes p as JSON to path, atomically and without following a
// symbolic link at path (safefile.Replace); no temporary file is left when
// it fails. The bytes are those of json.NewEncoder(f).Encode(p)
// (appendProfile).
func WriteFile(path string, p *Profile) error {
	err := safefile.Replace(path, 0o644, func(f io.Writer) error {
		b, err := appendProfile(make([]byte, 0, 64<<10), p)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	return nil
}
