package gosource

import (
	"go/ast"
	"go/token"
	"strings"
	"testing"
)

// The walk reads the module's files, this one's package among them, and
// none of the tests, testdata, or the modules of their own.
func TestFilesReadsTheModulesSource(t *testing.T) {
	var saw bool
	Files(t, "../..", func(rel string, fset *token.FileSet, f *ast.File) {
		switch {
		case rel == "internal/gosource/gosource.go":
			saw = f.Name.Name == "gosource" && fset.Position(f.Package).Filename != ""
		case strings.HasSuffix(rel, "_test.go"), strings.HasPrefix(rel, "e2e/"), strings.HasPrefix(rel, "bench/"), strings.Contains(rel, "testdata/"):
			t.Errorf("read %s", rel)
		}
	})
	if !saw {
		t.Error("internal/gosource/gosource.go was not read")
	}
}

// A root that is not the module's fails the test that walks it.
func TestFilesFailsOnTooFewFiles(t *testing.T) {
	ft := &fakeT{TB: t}
	func() {
		defer func() { recover() }()
		Files(ft, ".", func(string, *token.FileSet, *ast.File) {})
	}()
	if !ft.failed {
		t.Error("a walk of one package's directory did not fail")
	}
}

type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatal(args ...any) {
	f.failed = true
	panic("fatal")
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = true
	panic("fatal")
}
