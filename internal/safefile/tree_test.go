package safefile

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/internal/gosource"
)

// writers are the calls that create, truncate, append to or replace a file
// by name. Outside this package they would follow a symbolic link.
var writers = map[string]map[string]bool{
	"os":     {"Create": true, "OpenFile": true, "WriteFile": true, "CreateTemp": true, "Rename": true},
	"ioutil": {"WriteFile": true, "TempFile": true},
	// The system calls themselves: allowed when they cannot write, or do
	// not follow a link (O_NOFOLLOW in the flags).
	"syscall": {"Open": true, "Openat": true, "Creat": true},
	"unix":    {"Open": true, "Openat": true, "Creat": true},
}

// flagArg is the position of the flags in the calls that take them.
var flagArg = map[string]int{"OpenFile": 1, "Open": 1, "Openat": 2}

// allowed are the files that may call them, and why.
var allowed = map[string]string{
	// Control files of cgroup v2 under /sys/fs/cgroup, made by the kernel
	// in a file system only root writes to: no link can be planted there.
	"hostmetrics/cgroup/group_linux.go": "cgroupfs control files",
	// /dev/tty, the kernel's name for the controlling terminal, opened to
	// read the keys typed on it and to show the job's echo and prompts.
	"supervise/keyboard_unix.go": "the controlling terminal",
	// A workload program for tests, and a developer tool writing fixtures.
	"internal/workload/main.go":         "test workload",
	"kstat/internal/mkfixtures/main.go": "fixture generator",
}

// TestNoWriterBypassesSafefile checks the source tree: no package but this
// one opens a file for writing or replaces one by name.
func TestNoWriterBypassesSafefile(t *testing.T) {
	gosource.Files(t, filepath.Join("..", ".."), func(rel string, fset *token.FileSet, f *ast.File) {
		if strings.HasPrefix(rel, "internal/safefile/") {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || !writers[pkg.Name][sel.Sel.Name] {
				return true
			}
			if i, ok := flagArg[sel.Sel.Name]; ok {
				write, nofollow, known := flags(f, sel, i)
				if known && (!write || (pkg.Name != "os" && nofollow)) {
					return true
				}
			}
			if _, ok := allowed[rel]; !ok {
				t.Errorf("%s: %s.%s: write files through package safefile", fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name)
			}
			return true
		})
	})
}

// writeFlags are the open flags that make an open a writer.
var writeFlags = map[string]bool{"O_WRONLY": true, "O_RDWR": true, "O_CREATE": true, "O_CREAT": true, "O_APPEND": true, "O_TRUNC": true}

// flags looks at argument i of the call whose function is fn: whether it
// names a write flag, and O_NOFOLLOW. known is false when the flags are a
// variable or fn is passed as a value rather than called.
func flags(f *ast.File, fn *ast.SelectorExpr, i int) (write, nofollow, known bool) {
	var call *ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && c.Fun == fn {
			call = c
		}
		return call == nil
	})
	if call == nil || len(call.Args) <= i {
		return false, false, false
	}
	if _, isIdent := call.Args[i].(*ast.Ident); isIdent {
		return false, false, false
	}
	ast.Inspect(call.Args[i], func(n ast.Node) bool {
		name := ""
		switch x := n.(type) {
		case *ast.Ident:
			name = x.Name
		case *ast.SelectorExpr:
			name = x.Sel.Name
		}
		write = write || writeFlags[name]
		nofollow = nofollow || name == "O_NOFOLLOW"
		return true
	})
	return write, nofollow, true
}
