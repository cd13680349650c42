package summary

import "testing"

func TestFormat(t *testing.T) {
	cases := []struct{ got, want string }{
		{oneLine("a\r\nb\x1b[31m"), "a  b [31m"},
		{oneLine("bad \xff byte"), "bad \ufffd byte"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}
