//go:build unix

package supervise

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// StartCode gives a program that cannot be run one code whoever tried to
// start it: Start (jobtrace run), Replace (run and exec short of
// descriptors) and os/exec's Cmd.Start (the Go API's Task.Run); an error
// that says nothing of the program is 1.
func TestStartCode(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noInterpreter := filepath.Join(dir, "no-interpreter")
	if err := os.WriteFile(noInterpreter, []byte("#!"+filepath.Join(dir, "missing-sh")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want int
	}{
		{"no-such-command-jobtrace", ExitNotFound},
		{filepath.Join(dir, "missing"), ExitNotFound},
		{noInterpreter, ExitNotFound},
		{notExec, ExitNotExecutable},
		{dir, ExitNotExecutable},
	} {
		out, errf := files(t)
		_, startErr := Start(Options{Args: []string{c.name}, Stdout: out, Stderr: errf})
		cmdErr := exec.Command(c.name).Start()
		errs := map[string]error{"Start": startErr, "Cmd.Start": cmdErr}
		if c.name != noInterpreter { // Replace would exec it
			errs["Replace"] = Replace([]string{c.name}, nil)
		}
		for by, err := range errs {
			if code, program := StartCode(err); code != c.want || !program {
				t.Errorf("%s: StartCode of %s's %v = %d, %v; want %d, true", c.name, by, err, code, program, c.want)
			}
		}
	}
	for _, err := range []error{context.Canceled, errors.New("output: too many open files")} {
		if code, program := StartCode(err); code != 1 || program {
			t.Errorf("StartCode(%v) = %d, %v; want 1, false", err, code, program)
		}
	}
}
