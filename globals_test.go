package jobtrace_test

import (
	"go/ast"
	"go/token"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/internal/gosource"
)

// TestNoExportedVariables checks the source tree: no package exports a
// variable but a sentinel error (var ErrX = errors.New(...), or one of
// package errors' own, errors.ErrUnsupported). A table, a
// list of keys or a default exported as a variable can be changed by any
// importer, for every other one; it is exported as a function or a
// constant instead.
func TestNoExportedVariables(t *testing.T) {
	gosource.Files(t, ".", func(_ string, fset *token.FileSet, f *ast.File) {
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
	})
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
