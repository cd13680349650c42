package main

import (
	"debug/buildinfo"
	"debug/elf"
	"os"
	"regexp"
	"testing"
)

// TestInstallBuildsAStaticBinary checks README's promise of one static
// binary: its install command builds without cgo, and what that builds (the
// binary of these tests) says so in its build information and has no
// interpreter and no shared library to load.
func TestInstallBuildsAStaticBinary(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	install := regexp.MustCompile(`(?m)^(.*)go build -o jobtrace \./cmd/jobtrace\b`).FindSubmatch(readme)
	if install == nil {
		t.Fatal("README.md has no install command 'go build -o jobtrace ./cmd/jobtrace'")
	}
	if env := string(install[1]); env != installEnv+" " {
		t.Errorf("README's install command builds with %q before go build, want %q", env, installEnv)
	}

	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	cgo := ""
	for _, s := range info.Settings {
		if s.Key == "CGO_ENABLED" {
			cgo = s.Value
		}
	}
	if cgo != "0" {
		t.Errorf("the binary was built with CGO_ENABLED=%q, want 0", cgo)
	}

	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary has a program interpreter: it is dynamically linked")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) > 0 {
		t.Errorf("the binary loads shared libraries %v", libs)
	}
}
