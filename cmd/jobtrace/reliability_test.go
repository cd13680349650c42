package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every test docs/reliability.md names must exist: a row whose test was
// renamed or removed would promise what nothing checks any more.
func TestReliabilityDocNamesRealTests(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "reliability.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]*)").FindAllStringSubmatch(string(doc), -1)
	if len(named) < 20 {
		t.Fatalf("docs/reliability.md names %d tests; is it still the table of faults?", len(named))
	}
	defined := map[string]bool{}
	// TestOpenRefuses* names a family.
	var prefixes []string
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]*)\(`)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".cache" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			defined[m[1]] = true
			prefixes = append(prefixes, m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range named {
		name := m[1]
		if defined[name] {
			continue
		}
		family := false
		if strings.HasPrefix(string(doc[strings.Index(string(doc), name)+len(name):]), "*") {
			for _, p := range prefixes {
				family = family || strings.HasPrefix(p, name)
			}
		}
		if !family {
			t.Errorf("docs/reliability.md names %s, which no test defines", name)
		}
	}
}
