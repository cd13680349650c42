package rundiff

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jobtrace/jobtrace/runmodel"
)

// hostile are names a job may give its phases: Markdown and HTML
// metacharacters, control characters and invalid UTF-8. The model cleans
// what it reads from a spool (cleantext); the renderers must hold even
// with names that were not.
var hostile = []string{
	"a|b|c",
	"<script>alert(1)</script>",
	"line\nbreak\r\n| x | y |",
	"\x1b[31mred\x1b[0m",
	"bad\xff\xfeutf8",
	"**bold** _em_ `code` [link](http://x) ![img](y) &amp; #h ~~s~~ $m$",
	"tab\there\x00nul",
}

func hostileDiff() (*Diff, Labels) {
	var bp, cp []ph
	for i, n := range hostile {
		bp = append(bp, ph{n, -1, float64(i) * 10, 5, 1, 0, 0})
		cp = append(cp, ph{n, -1, float64(i) * 10, 9, 1, 0, 0})
	}
	bp = append(bp, ph{"gone|<b>", -1, 90, 1, 1, 0, 0})
	base, cur := mkRun(100, bp...), mkRun(100, cp...)
	cur.Job.Name = "job|<i>\n"
	return Compare([]*runmodel.Run{base}, cur), Labels{Base: []string{"dir|`x`\n<b>"}, Run: "new\x1b]0;t\a"}
}

// A hostile name breaks neither the Markdown table nor the text's lines,
// and injects no Markdown, HTML or terminal escape.
func TestHostileNames(t *testing.T) {
	d, l := hostileDiff()

	var md bytes.Buffer
	if err := WriteMarkdown(&md, d, l); err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, line := range strings.Split(strings.TrimSpace(md.String()), "\n") {
		if strings.HasPrefix(line, "|") {
			table = append(table, line)
		}
	}
	if len(table) != 2+1+len(hostile)+1 {
		t.Errorf("Markdown table has %d lines, want heads, alignment, job and %d phases:\n%s", len(table), len(hostile)+1, md.String())
	}
	cols := pipes(table[0])
	for _, line := range table {
		if n := pipes(line); n != cols {
			t.Errorf("%d unescaped |, want %d: %q", n, cols, line)
		}
	}
	for _, bad := range []string{"<script", "<b>", "<i>", "**bold**", "](http", "`code`", "&amp;"} {
		if strings.Count(md.String(), bad) != strings.Count(md.String(), "\\"+bad) {
			t.Errorf("Markdown holds %q unescaped:\n%s", bad, md.String())
		}
	}
	for _, bad := range []string{"\x1b", "\r", "\x00", "\a", "\xff"} {
		if strings.Contains(md.String(), bad) {
			t.Errorf("Markdown holds %q:\n%s", bad, md.String())
		}
	}

	var txt bytes.Buffer
	if err := WriteText(&txt, d, l); err != nil {
		t.Fatal(err)
	}
	s := txt.String()
	if !utf8.ValidString(s) {
		t.Errorf("text is not valid UTF-8: %q", s)
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' || r == 0x7f {
			t.Errorf("text holds control character %U:\n%q", r, s)
			break
		}
	}
	// Lines: the title, the job, a blank, the heads, the job, the phases.
	if n := strings.Count(s, "\n"); n != 5+len(hostile)+1 {
		t.Errorf("text has %d lines, want %d:\n%s", n, 5+len(hostile)+1, s)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, d, l); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Phases []struct{ Name string }
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Phases) != len(hostile)+1 {
		t.Fatalf("JSON: %v, %d phases", err, len(back.Phases))
	}
	if back.Phases[0].Name != hostile[0] {
		t.Errorf("JSON name %q, want %q", back.Phases[0].Name, hostile[0])
	}
}

// pipes counts the | of a Markdown table line that are not escaped.
func pipes(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

// Past MaxListed the tables list the changed phases first and count the
// rest.
func TestListedBound(t *testing.T) {
	var bp, cp []ph
	for i := range MaxListed + 20 {
		bp = append(bp, ph{"p", -1, float64(i), 1, -1, 0, 0})
		dur := 1.0
		if i%10 == 0 {
			dur = 3 // changed: 12 of them
		}
		cp = append(cp, ph{"p", -1, float64(i), dur, -1, 0, 0})
	}
	d := Compare([]*runmodel.Run{mkRun(200, bp...)}, mkRun(200, cp...))
	rows, left := listed(d.Phases, MaxListed)
	if len(rows) != MaxListed || left != 20 {
		t.Fatalf("%d listed, %d left, want %d and 20", len(rows), left, MaxListed)
	}
	slower := 0
	for i := range rows {
		if rows[i].Status == StatusSlower {
			slower++
		}
		if i > 0 && rows[i].N <= rows[i-1].N {
			t.Errorf("rows out of order at %d", i)
		}
	}
	if slower != 12 {
		t.Errorf("%d slower phases listed, want all 12", slower)
	}
	var txt bytes.Buffer
	WriteText(&txt, d, Labels{Base: []string{"a"}, Run: "b"})
	if !strings.Contains(txt.String(), "20 more phases not listed") {
		t.Errorf("the text does not count the phases left out:\n%s", txt.String())
	}
}

// Whatever the names, the Markdown table keeps its columns and the text
// its lines; a long name is cut.
func FuzzRenderNames(f *testing.F) {
	for _, n := range hostile {
		f.Add(n, "child "+n)
	}
	f.Add(strings.Repeat("|<x>", 500), "")
	f.Fuzz(func(t *testing.T, a, b string) {
		base := mkRun(100, ph{a, -1, 0, 5, 1, 0, 0}, ph{b, 0, 0, 1, 1, 0, 0}, ph{b, -1, 10, 1, 1, 0, 0})
		cur := mkRun(100, ph{a, -1, 0, 9, 1, 0, 0}, ph{b, 0, 0, 1, 1, 0, 0})
		cur.Job.Name = b
		d := Compare([]*runmodel.Run{base}, cur)
		var md, txt bytes.Buffer
		if err := WriteMarkdown(&md, d, Labels{Base: []string{a}, Run: b}); err != nil {
			t.Fatal(err)
		}
		var table []string
		for _, line := range strings.Split(md.String(), "\n") {
			if strings.HasPrefix(line, "| ") {
				table = append(table, line)
			}
			if utf8.RuneCountInString(line) > 2*(maxMarkdownName+maxMarkdownReason)+200 {
				t.Errorf("a line of %d runes", utf8.RuneCountInString(line))
			}
		}
		if len(table) != 2+1+len(d.Phases) {
			t.Fatalf("%d table lines for %d phases:\n%s", len(table), len(d.Phases), md.String())
		}
		for _, line := range table {
			if pipes(line) != pipes(table[0]) {
				t.Errorf("%d unescaped |, want %d: %q", pipes(line), pipes(table[0]), line)
			}
		}
		if err := WriteText(&txt, d, Labels{Base: []string{a}, Run: b}); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(txt.String(), "\n"); n != 5+len(d.Phases) {
			t.Errorf("%d text lines for %d phases:\n%s", n, len(d.Phases), txt.String())
		}
		for _, r := range txt.String() {
			if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("text holds %U", r)
			}
		}
	})
}
