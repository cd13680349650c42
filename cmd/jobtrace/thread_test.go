//go:build unix

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoGoroutineEndsItsThread: no package of the Linux binary but the
// runtime locks a goroutine to its thread (runtime.LockOSThread). The Go
// runtime ends a thread only when a goroutine exits while locked to it,
// and the kernel sends the job's parent-death signal when the thread that
// forked it ends (package supervise starts the job from the calling
// goroutine's thread): without such a lock, that thread lives as long as
// jobtrace, and the job dies with jobtrace, not before.
func TestNoGoroutineEndsItsThread(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}`, ".")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", installEnv)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 100 {
		t.Fatalf("go list -deps listed %d packages", len(lines))
	}
	fset := token.NewFileSet()
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] == "runtime" {
			continue
		}
		for _, name := range f[2:] {
			file, err := parser.ParseFile(fset, filepath.Join(f[1], name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, pos := range lockCalls(file) {
				t.Errorf("%s: runtime.LockOSThread", fset.Position(pos))
			}
		}
	}
}

// lockCalls are the places where f calls runtime.LockOSThread.
func lockCalls(f *ast.File) []token.Pos {
	name := ""
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "runtime" {
			name = "runtime"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" {
		return nil
	}
	var found []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok && s.Sel.Name == "LockOSThread" {
			if id, ok := s.X.(*ast.Ident); ok && id.Name == name {
				found = append(found, s.Pos())
			}
		}
		return true
	})
	return found
}

// TestLockCallsFound: the check above finds the call, under a renamed
// import too.
func TestLockCallsFound(t *testing.T) {
	for src, want := range map[string]int{
		"package p\nimport \"runtime\"\nfunc f() { go func() { runtime.LockOSThread() }() }\n": 1,
		"package p\nimport rt \"runtime\"\nfunc f() { rt.LockOSThread(); rt.Gosched() }\n":     1,
		"package p\nimport \"runtime\"\nfunc f() { runtime.Gosched() }\n":                      0,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(lockCalls(f)); got != want {
			t.Errorf("%q: found %d calls, want %d", src, got, want)
		}
	}
}
