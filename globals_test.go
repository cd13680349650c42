package jobtrace_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoExportedVariables checks the source tree: no package exports a
// variable but a sentinel error (var ErrX = errors.New(...), or one of
// package errors' own, errors.ErrUnsupported). A table, a
// list of keys or a default exported as a variable can be changed by any
// importer, for every other one; it is exported as a function or a
// constant instead.
func TestNoExportedVariables(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case path == "e2e", path == "bench", path != "." && strings.HasPrefix(name, "."), name == "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				for i, name := range v.Names {
					if !name.IsExported() || (i < len(v.Values) && isSentinel(v.Values[i])) {
						continue
					}
					t.Errorf("%s: exported variable %s: export a function or a constant", fset.Position(name.Pos()), name.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files: the walk did not reach the source tree", checked)
	}
}

// isSentinel reports whether e is a call of errors.New or one of package
// errors' sentinels.
func isSentinel(e ast.Expr) bool {
	if call, ok := e.(*ast.CallExpr); ok {
		e = call.Fun
		if sel, ok := e.(*ast.SelectorExpr); !ok || sel.Sel.Name != "New" {
			return false
		}
	} else if sel, ok := e.(*ast.SelectorExpr); !ok || !strings.HasPrefix(sel.Sel.Name, "Err") {
		return false
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "errors"
}
