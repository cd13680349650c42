package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The private directory is removed at the end whatever the job left in its
// marker dir: nothing, marker files (read, and left there), a directory.
func TestPrivateDirRemovedWithWhatIsLeft(t *testing.T) {
	for _, left := range []string{"", "file", "dir"} {
		t.Run("left "+left, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			var log syncBuffer
			set := boundarySampled(dir, &log)
			set.Socket, set.MarkerDir, set.Summary = true, true, "off"
			s := New(set)
			if err := s.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			md := ""
			for _, kv := range s.JobEnv(nil) {
				if v, ok := strings.CutPrefix(kv, EnvMarkerDir+"="); ok {
					md = v
				}
			}
			if md == "" {
				t.Fatal("no marker dir")
			}
			switch left {
			case "file":
				line := `{"type":"event","name":"cache hit"}` + "\n"
				if err := os.WriteFile(filepath.Join(md, "step.jsonl"), []byte(line), 0o600); err != nil {
					t.Fatal(err)
				}
			case "dir":
				if err := os.MkdirAll(filepath.Join(md, "sub", "deeper"), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Shutdown(context.Background(), Outcome{}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(s.PrivateDir()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("private directory %q left behind: %v", s.PrivateDir(), err)
			}
			if left == "file" {
				if n := s.srcs.reader.Stats().Messages; n != 1 {
					t.Errorf("%d marker messages read, want the one left in the marker dir", n)
				}
			}
		})
	}
}
