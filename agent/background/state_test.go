package background

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A state file planted in the out directory (or left by another agent)
// names what `jobtrace stop` then writes to, renders in, removes and talks
// to: another out directory, any directory as the private one, a socket
// elsewhere. ReadState refuses it, and Gone removes no directory that is
// not a private one of this user's.
func TestPlantedStateFileIsNotFollowed(t *testing.T) {
	base := t.TempDir()
	out, victim := filepath.Join(base, "out"), filepath.Join(base, "victim")
	priv := filepath.Join(base, "jobtrace-7-9")
	for _, d := range []string{out, victim, priv} {
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
		st.Out = out // written where stop reads it
		if err := writeState(st); err != nil {
			t.Fatal(err)
		}
		if name == "another out" {
			planted, _ := os.ReadFile(filepath.Join(out, StateFile))
			planted = []byte(strings.Replace(string(planted), `"out": "`+out, `"out": "`+victim, 1))
			if err := os.WriteFile(filepath.Join(out, StateFile), planted, 0o644); err != nil {
				t.Fatal(err)
			}
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
