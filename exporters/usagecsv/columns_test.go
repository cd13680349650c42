package usagecsv

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docColumns reads the column table of docs/csv.md: the table under the
// "## Columns" heading, whose header is column | unit | meaning | source.
func docColumns(t *testing.T) [][4]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "csv.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Columns\n")
	if !ok {
		t.Fatal("docs/csv.md has no \"## Columns\" section")
	}
	var rows [][4]string
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if !inTable {
			if strings.Join(cells, "|") != "column|unit|meaning|source" {
				t.Fatalf("docs/csv.md: column table header is %q", line)
			}
			inTable = true
			continue
		}
		if strings.Trim(line, "|-: ") == "" {
			continue // the delimiter row
		}
		if len(cells) != 4 {
			t.Fatalf("docs/csv.md: row %q has %d cells, want 4", line, len(cells))
		}
		var r [4]string
		for i, c := range cells {
			r[i] = strings.ReplaceAll(c, "`", "") // code spans are markup only
		}
		rows = append(rows, r)
	}
	return rows
}

// TestDocsListColumns keeps docs/csv.md in step with columns: the same
// columns in the same order, with the same unit, meaning and source.
func TestDocsListColumns(t *testing.T) {
	rows := docColumns(t)
	for i := range max(len(rows), len(columns)) {
		switch {
		case i >= len(rows):
			t.Errorf("docs/csv.md does not list column %d, %s", i+1, columns[i].Name)
			continue
		case i >= len(columns):
			t.Errorf("docs/csv.md lists column %d, %s, which the code does not write", i+1, rows[i][0])
			continue
		}
		c, d := columns[i], rows[i]
		if d[0] != c.Name {
			t.Errorf("docs/csv.md column %d is %s, the code's is %s", i+1, d[0], c.Name)
			continue
		}
		if d[1] != c.Unit {
			t.Errorf("docs/csv.md: %s has unit %q, the code %q", c.Name, d[1], c.Unit)
		}
		if d[2] != c.Help {
			t.Errorf("docs/csv.md: %s means\n\t%q\nin the docs, and in the code\n\t%q", c.Name, d[2], c.Help)
		}
		if d[3] != c.Source {
			t.Errorf("docs/csv.md: %s has source %q, the code %q", c.Name, d[3], c.Source)
		}
	}
}

// TestColumnNames checks the naming rules docs/csv.md states: unique
// snake_case names ending in the unit, and deltas described as such.
func TestColumnNames(t *testing.T) {
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	suffix := map[string]string{"s": "_s", "bytes": "_bytes", "%": "_pct", "count": "_count"}
	unsuffixed := map[string]bool{"time_utc": true, "reason": true, "phase": true, "host_load1": true, "phase_depth": true, "phase_span_id": true}
	seen := map[string]bool{}
	for _, c := range columns {
		if seen[c.Name] {
			t.Errorf("column %s appears twice", c.Name)
		}
		seen[c.Name] = true
		if !snake.MatchString(c.Name) {
			t.Errorf("column %s is not snake_case", c.Name)
		}
		if want, ok := suffix[c.Unit]; ok && !strings.HasSuffix(c.Name, want) {
			t.Errorf("column %s has unit %s but does not end in %s", c.Name, c.Unit, want)
		}
		if _, ok := suffix[c.Unit]; !ok && !unsuffixed[c.Name] {
			t.Errorf("column %s has unit %q, which has no suffix", c.Name, c.Unit)
		}
		if c.Delta && !strings.Contains(c.Help, "since the previous row") || c.Help == "" || c.Source == "" {
			t.Errorf("column %s: Delta %v, help %q, source %q: a delta says \"since the previous row\"",
				c.Name, c.Delta, c.Help, c.Source)
		}
		if strings.Contains(c.Help+c.Source, "|") {
			t.Errorf("column %s: a | in its help or source would break the docs table", c.Name)
		}
		if c.cell == nil {
			t.Errorf("column %s has no cell function", c.Name)
		}
	}
}
