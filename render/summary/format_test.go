package summary

import "testing"

func TestFormat(t *testing.T) {
	cases := []struct{ got, want string }{
		{oneLine("a\r\nb\x1b[31m"), "a\ufffd\ufffdb\ufffd[31m"},
		{oneLine("bad \xff byte"), "bad \ufffd byte"},
		{oneLine("a\tb"), "a b"},
		// bidirectional overrides and line separators, which reorder or
		// break a terminal's line, as cleantext.String has them
		{oneLine("abc\u202edef\u2028g"), "abc\ufffddef\ufffdg"},
		{oneLine("plain ascii, é and 中"), "plain ascii, é and 中"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}
