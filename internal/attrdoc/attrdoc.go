// Package attrdoc checks, for the tests of the packages that set span
// attributes, that docs/attributes.md documents each of their keys: a row
// of its tables whose first cell is the key.
package attrdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
)

// Check fails tb for each of keys that docs/attributes.md has no row for.
// The file is found from the test's directory up to the module's root.
func Check(tb testing.TB, keys []attribute.Key) {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
	data, err := os.ReadFile(filepath.Join(dir, "docs", "attributes.md"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, k := range keys {
		if !strings.Contains(string(data), "| `"+string(k)+"` |") {
			tb.Errorf("docs/attributes.md has no row for %s", k)
		}
	}
}
