package usagemetrics

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

const docsPath = "../../docs/metrics.md"

// docRows returns the cells of the rows of the table under "## The metrics"
// in docs/metrics.md, backquotes removed.
func docRows(t *testing.T) [][]string {
	t.Helper()
	data, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## The metrics\n")
	if !ok {
		t.Fatalf("%s has no \"## The metrics\" section", docsPath)
	}
	var rows [][]string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue // header, separator, prose
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(cells[i]), "`", "")
		}
		if len(cells) != 5 {
			t.Fatalf("%s: row %q has %d cells, want 5", docsPath, line, len(cells))
		}
		rows = append(rows, cells)
	}
	return rows
}

// TestDocsListTable checks that docs/metrics.md lists exactly table's
// metrics, in order, with the same kind, unit, attributes and description.
func TestDocsListTable(t *testing.T) {
	rows := docRows(t)
	for i := range max(len(rows), len(table)) {
		switch {
		case i >= len(rows):
			t.Errorf("docs/metrics.md does not list %s", table[i].Name)
			continue
		case i >= len(table):
			t.Errorf("docs/metrics.md lists %s, which the code does not record", rows[i][0])
			continue
		}
		m, d := table[i], rows[i]
		if d[0] != m.Name {
			t.Errorf("docs/metrics.md row %d is %s, table's is %s", i+1, d[0], m.Name)
			continue
		}
		if d[1] != m.Kind.String() {
			t.Errorf("docs/metrics.md: %s is a %s, in table a %s", m.Name, d[1], m.Kind)
		}
		if d[2] != m.Unit {
			t.Errorf("docs/metrics.md: %s has unit %q, table %q", m.Name, d[2], m.Unit)
		}
		var keys []string
		for _, k := range m.Attributes {
			keys = append(keys, string(k))
		}
		want := strings.Join(keys, ", ")
		if want == "" {
			want = "–"
		}
		if d[3] != want {
			t.Errorf("docs/metrics.md: %s has attributes %q, table %q", m.Name, d[3], want)
		}
		if d[4] != m.Description {
			t.Errorf("docs/metrics.md: %s is described as\n\t%q\nand in table as\n\t%q", m.Name, d[4], m.Description)
		}
	}
}

// TestDocsBounds checks the limits the docs state.
func TestDocsBounds(t *testing.T) {
	data, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(data)), " ")
	for _, s := range []string{
		fmt.Sprintf("after %d distinct names", MaxPhaseNames),
		fmt.Sprintf("under the name `%s`", OtherPhase),
		fmt.Sprintf("At most %d disks, and %d network interfaces", MaxDevices, MaxDevices),
	} {
		if !strings.Contains(doc, s) {
			t.Errorf("docs/metrics.md does not say %q", s)
		}
	}
	for _, m := range table {
		if strings.Contains(m.Description, "|") {
			t.Errorf("%s: a | in the description would break the docs table", m.Name)
		}
	}
}
