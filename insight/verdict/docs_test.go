package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every attribute is documented in docs/attributes.md, and every kind and
// threshold in docs/insight.md.
func TestDocumented(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	attrs := read("attributes.md")
	for _, k := range AttributeKeys {
		if !strings.Contains(attrs, "| `"+string(k)+"` |") {
			t.Errorf("docs/attributes.md has no row for %s", k)
		}
	}
	insight := read("insight.md")
	for _, k := range Kinds {
		if !strings.Contains(insight, "`"+string(k)+"`") {
			t.Errorf("docs/insight.md does not name %s", k)
		}
	}
}
