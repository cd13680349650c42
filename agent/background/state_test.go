package background

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A planted state file names what stop writes to, removes and dials: refused.
func TestPlantedStateFileIsNotFollowed(t *testing.T) {
	base := t.TempDir()
	// Another out directory, any directory as the private one, a socket
	// elsewhere; and Gone removes only a private directory of this user's.
	dirs := make([]string, 3)
	for i, name := range []string{"out", "victim", "jobtrace-7-9"} {
		dirs[i] = filepath.Join(base, name)
	}
	out, victim, priv := dirs[0], dirs[1], dirs[2]
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	good := State{Pid: 7, Started: time.Now(), Out: out, PrivateDir: priv, Socket: filepath.Join(priv, "sock")}
	if err := writeState(good); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(out); err != nil {
		t.Fatalf("an agent's own state refused: %v", err)
	}
	for name, bad := range map[string]func(*State){
		"another out":            func(st *State) { st.Out = victim },
		"any private dir":        func(st *State) { st.PrivateDir, st.Socket = victim, filepath.Join(victim, "sock") },
		"relative private dir":   func(st *State) { st.PrivateDir = "jobtrace-7-9" },
		"socket elsewhere":       func(st *State) { st.Socket = filepath.Join(victim, "sock") },
		"socket without its dir": func(st *State) { st.PrivateDir = "" },
	} {
		st := good
		bad(&st)
		// Written where it names, then moved where stop reads it.
		if err := writeState(st); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(st.Out, StateFile), filepath.Join(out, StateFile)); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadState(out); err == nil {
			t.Errorf("%s: planted state file taken", name)
		}
	}

	// A private directory open to others (not made by a session of this
	// user's) is left in place.
	if err := os.Chmod(priv, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Gone(good, time.Now()); err == nil {
		t.Error("Gone said nothing of the directory it did not remove")
	}
	if _, err := os.Stat(priv); err != nil {
		t.Fatalf("Gone removed a directory that is not private: %v", err)
	}
	if err := os.Chmod(priv, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Gone(good, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(priv); !os.IsNotExist(err) {
		t.Errorf("the agent's private directory left: %v", err)
	}
}
