package cleantext

import (
	"strings"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"compile", "compile"},
		{"tab\there", "tab\there"},
		{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
		{"a\xff\xfeb", "a\uFFFD\uFFFDb"},
		{"\x1b[31mred\x1b[0m", "\uFFFD[31mred\uFFFD[0m"},
		{"line\r\nnext", "line\uFFFD\uFFFDnext"},
		{"nul\x00bel\x07del\x7f", "nul\uFFFDbel\uFFFDdel\uFFFD"},
		{"c1\u0085\u009b", "c1\uFFFD\uFFFD"},
		{"sep\u2028\u2029", "sep\uFFFD\uFFFD"},
		{"bidi\u202egnp.exe\u2066x\u2069", "bidi\uFFFDgnp.exe\uFFFDx\uFFFD"},
		{"cut\xe2\x9c", "cut\uFFFD\uFFFD"},
		{"\uFFFD kept", "\uFFFD kept"},
	} {
		got := String(c.in)
		if got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("String(%q) is not valid UTF-8", c.in)
		}
		if String(got) != got {
			t.Errorf("String is not idempotent on %q", c.in)
		}
	}
}

func TestStringDoesNotAllocateForCleanText(t *testing.T) {
	for _, s := range []string{"build/compile step 3", "déjà vu ✓"} {
		if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
			t.Errorf("String(%q): %v allocations", s, n)
		}
	}
}

func TestStringGrowsAtMostThreefold(t *testing.T) {
	s := strings.Repeat("\xff\x1b", 100)
	if got := String(s); len(got) > 3*len(s) {
		t.Errorf("%d bytes became %d", len(s), len(got))
	}
}

func TestKeyValue(t *testing.T) {
	kv := KeyValue(attribute.String("k\x1b", "v\xff"))
	if kv.Key != "k\uFFFD" || kv.Value.AsString() != "v\uFFFD" {
		t.Errorf("got %v", kv)
	}
	kv = KeyValue(attribute.StringSlice("args", []string{"ok", "\r\n"}))
	if got := kv.Value.AsStringSlice(); got[0] != "ok" || got[1] != "\uFFFD\uFFFD" {
		t.Errorf("got %q", got)
	}
	kv = KeyValue(attribute.Int("n", 3))
	if kv.Value.AsInt64() != 3 {
		t.Errorf("got %v", kv)
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a", "\xff", "\x1b[0m", "\u2028", "日本\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		if !utf8.ValidString(got) {
			t.Fatalf("String(%q) = %q: invalid UTF-8", s, got)
		}
		for _, r := range got {
			if unsafe(r) {
				t.Fatalf("String(%q) = %q keeps %U", s, got, r)
			}
		}
		if len(got) > 3*len(s) {
			t.Fatalf("String(%q) grew from %d to %d bytes", s, len(s), len(got))
		}
	})
}

func BenchmarkStringASCII(b *testing.B) {
	s := "compile/unit-tests step 42"
	for b.Loop() {
		_ = String(s)
	}
}

func BenchmarkStringUTF8(b *testing.B) {
	s := "Übersetzung ✓ 日本語のフェーズ"
	for b.Loop() {
		_ = String(s)
	}
}

func BenchmarkStringDirty(b *testing.B) {
	s := "a\x1b[31mred\r\n\xff phase"
	for b.Loop() {
		_ = String(s)
	}
}

// The two cuts of a text too long, by bytes and by characters: the result
// fits the bound, "…" included, and no character is split.
func TestCut(t *testing.T) {
	type cut struct {
		in   string
		n    int
		want string
	}
	for _, c := range []cut{
		{"compile", 7, "compile"},
		{"compile", 6, "com…"},
		{"déjà vu", 6, "dé…"}, // é is 2 bytes, "…" 3
		{"déjà vu", 5, "d…"},  // é is not split
		{"ab✓cd", 5, "ab…"},   // ✓ is 3 bytes: not split
		{"compile", 2, "co"},  // no room for "…"
		{"compile", 0, ""},
		{"compile", -1, ""},
	} {
		got := Cut(c.in, c.n)
		if got != c.want || (len(got) > c.n && c.n >= 0) || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	for _, c := range []cut{
		{"abcdef", 6, "abcdef"},
		{"abcdef", 4, "abc…"},
		{"äbc", 3, "äbc"},
		{"äbçdé", 4, "äbç…"},
		{"日本語テキスト", 3, "日本…"},
		{"abc", 1, "…"},
		{"abc", 0, "…"},
	} {
		if got := CutRunes(c.in, c.n); got != c.want {
			t.Errorf("CutRunes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
