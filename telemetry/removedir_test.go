package telemetry

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jobtrace/jobtrace/exporters/spool"
)

func TestRemoveDir(t *testing.T) {
	for name, extra := range map[string][]string{
		"jobtrace's files":        nil,
		"and a file of its own":   {"other"},
		"and a directory of more": {"sub/deeper"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "private")
			files := append([]string{LockFile, spool.TracesFile, spool.TracesFile + spool.SentSuffix}, extra...)
			for _, f := range files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := RemoveDir(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(dir); !os.IsNotExist(err) {
				t.Errorf("%s is still there (%v)", dir, err)
			}
			if err := RemoveDir(dir); err != nil {
				t.Errorf("removing it again: %v, want nil", err)
			}
		})
	}
}
