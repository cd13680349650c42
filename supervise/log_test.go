package supervise

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkOwnLines checks that every line of out starts with "jobtrace:" and
// holds no control character but tab, and valid UTF-8 only.
func checkOwnLines(t *testing.T, out string) {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("output does not end a line: %q", out)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(l, "jobtrace: ") {
			t.Errorf("line without the prefix: %q", l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("invalid UTF-8: %q", l)
		}
		for _, c := range []byte(l) {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				t.Errorf("control character %#x in %q", c, l)
			}
		}
	}
}

func TestLoggerWritesOneCleanLinePerMessage(t *testing.T) {
	var b bytes.Buffer
	log := NewLogger(&b)
	hostile := "phase \x1b[2J\x1b]0;pwned\x07 name\r\nfake: line\rover \xff\xfe end\n"
	log.Warn("no report: " + errors.Join(errors.New("report.html: no space left on device"), errors.New("usage.svg: no space left on device")).Error())
	log.Warn(hostile)
	log.Printf("phase %s ended", hostile)
	out := b.String()
	checkOwnLines(t, out)
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("%d lines for 3 messages: %q", n, out)
	}
	if !strings.Contains(out, "report.html: no space left on device; usage.svg: no space left on device") {
		t.Errorf("joined error not kept on one line: %q", out)
	}
}

func TestLoggerBlockCleansEachLine(t *testing.T) {
	var b bytes.Buffer
	log := NewLogger(&b)
	log.Block([]byte("jobtrace:   a\x1b[31m\n" + "jobtrace:   b\r\n"))
	checkOwnLines(t, b.String())
	if strings.Count(b.String(), "\n") != 2 {
		t.Errorf("got %q", b.String())
	}
}

// Past MaxWarnings, warnings are counted, and the count is written.
func TestLoggerCountsWarningsPastTheLimit(t *testing.T) {
	var b bytes.Buffer
	log := NewLogger(&b)
	for range MaxWarnings + 11 {
		log.Warn("bad marker")
	}
	log.FlushWarnings()
	out := b.String()
	checkOwnLines(t, out)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if n := strings.Count(out, "jobtrace: warning: bad marker\n"); n != MaxWarnings {
		t.Errorf("%d warnings written in full, want MaxWarnings (%d)", n, MaxWarnings)
	}
	want := []string{
		"jobtrace: warning: further warnings are counted, not shown",
		"jobtrace: warning: 10 warnings suppressed so far",
		"jobtrace: warning: 11 warnings suppressed in total",
	}
	if len(lines) != MaxWarnings+len(want) || strings.Join(lines[MaxWarnings:], "\n") != strings.Join(want, "\n") {
		t.Errorf("after the warnings: %q, want %q", lines[min(MaxWarnings, len(lines)):], want)
	}
}

// A Logger made by NewWarnLogger hands its warnings, masked and one line,
// to its function, and writes its messages.
func TestWarnLoggerHandsWarnings(t *testing.T) {
	var b bytes.Buffer
	var got []string
	log := NewWarnLogger(&b, func(msg string) { got = append(got, msg) })
	log.Warn("no export to https://user:secret@collector.example/\nretrying")
	log.Printf("spans written")
	if len(got) != 1 || strings.Contains(got[0], "secret") || strings.Contains(got[0], "\n") {
		t.Errorf("warnings handed %q", got)
	}
	if b.String() != "jobtrace: spans written\n" {
		t.Errorf("messages written %q", b.String())
	}
}
