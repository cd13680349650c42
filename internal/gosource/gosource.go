// Package gosource hands the module's own Go source, parsed, to the tests
// that check a rule across the whole tree (no file written but through
// safefile, no work at package init, no exported variable).
package gosource

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// MinFiles is the fewest files a walk of the tree reads: fewer means root
// is not the module's root.
const MinFiles = 100

// Files parses every Go file of the module at root but the tests, and
// calls fn with its path relative to root (slash-separated), the file set
// and its syntax tree. It leaves out the modules of their own (e2e,
// bench), testdata and hidden directories. A file that does not parse, or
// fewer than MinFiles read, fails t.
func Files(t testing.TB, root string, fn func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	read := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (rel == "e2e" || rel == "bench" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		read++
		fn(rel, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if read < MinFiles {
		t.Fatalf("read %d Go files under %s, fewer than %d: is it the module's root?", read, root, MinFiles)
	}
}
