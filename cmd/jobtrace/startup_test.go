//go:build unix

package main

import (
	"debug/buildinfo"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/internal/gosource"
)

// notLinked are modules the Linux and illumos binaries must not link:
// the Prometheus client and what comes with it (the Prometheus endpoint is
// written by exporters/promtext), and gopsutil (only the other systems
// read through it). Their package inits alone cost a start more than a
// millisecond.
var notLinked = []string{
	"github.com/prometheus/",
	"go.opentelemetry.io/otel/exporters/prometheus",
	"github.com/shirou/gopsutil/",
}

// TestLinksNoPrometheusClientNorGopsutil: neither go list -deps of the
// command for linux and illumos nor the build information of the binary
// built for these tests names a module of notLinked.
func TestLinksNoPrometheusClientNorGopsutil(t *testing.T) {
	check := func(what string, paths []string) {
		t.Helper()
		for _, p := range paths {
			for _, bad := range notLinked {
				if strings.HasPrefix(p, bad) {
					t.Errorf("%s: %s", what, p)
				}
			}
		}
	}
	if runtime.GOOS == "linux" || runtime.GOOS == "illumos" {
		info, err := buildinfo.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		var mods []string
		for _, m := range info.Deps {
			mods = append(mods, m.Path)
		}
		check("the binary links", mods)
	}
	for _, goos := range []string{"linux", "illumos"} {
		cmd := exec.Command("go", "list", "-deps", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", installEnv)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list -deps: %v", goos, err)
		}
		pkgs := strings.Fields(string(out))
		if len(pkgs) < 100 {
			t.Fatalf("GOOS=%s go list -deps listed %d packages", goos, len(pkgs))
		}
		check("GOOS="+goos+" go list -deps", pkgs)
	}
}

// initWork are the calls that compile or parse at the moment they are
// made, by the import path of their package: made in a package-level
// variable's initializer or in init(), every start of jobtrace pays for
// them, whatever the command needs.
var initWork = map[string][]string{
	"regexp":        {"Compile", "MustCompile", "CompilePOSIX", "MustCompilePOSIX"},
	"text/template": {"Must", "New"},
	"html/template": {"Must", "New"},
}

// TestNoWorkAtPackageInit: no package of jobtrace compiles a regular
// expression or parses a template when the program starts (a package-level
// variable's initializer, or init()); they are made when first used
// (sync.OnceValue). A function literal in an initializer runs later, so
// it may.
func TestNoWorkAtPackageInit(t *testing.T) {
	gosource.Files(t, filepath.Join("..", ".."), func(_ string, fset *token.FileSet, f *ast.File) {
		for _, where := range initCalls(f) {
			t.Errorf("%s: %s at package init", fset.Position(where.pos), where.call)
		}
	})
}

type initCall struct {
	pos  token.Pos
	call string
}

// initCalls are the calls of initWork in f's package-level variables'
// initializers and in its init functions, outside function literals.
func initCalls(f *ast.File) []initCall {
	pkgs := map[string]string{} // local name → import path, for initWork's paths
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := initWork[path]; !ok {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		pkgs[name] = path
	}
	if len(pkgs) == 0 {
		return nil
	}
	var found []initCall
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called, not at init
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				for _, fn := range initWork[pkgs[id.Name]] {
					if n.Sel.Name == fn {
						found = append(found, initCall{n.Pos(), pkgs[id.Name] + "." + fn})
					}
				}
			}
		}
		return true
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				ast.Inspect(d, visit)
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				ast.Inspect(d.Body, visit)
			}
		}
	}
	return found
}

// TestInitCallsFound: the check above finds what it looks for, under a
// renamed import too, and leaves function literals alone.
func TestInitCallsFound(t *testing.T) {
	src := `package p
import (
	"regexp"
	tpl "html/template"
	"sync"
)
var a = regexp.MustCompile("x")
var b, c = 1, tpl.Must(tpl.New("t").Parse(""))
var d = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("y") })
func init() { _ = regexp.MustCompile("z") }
func f() { _ = regexp.MustCompile("w") }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range initCalls(f) {
		got = append(got, c.call)
	}
	want := "regexp.MustCompile html/template.Must html/template.New regexp.MustCompile"
	if strings.Join(got, " ") != want {
		t.Errorf("found %q, want %q", got, want)
	}
}

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
