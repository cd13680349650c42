package cgrouptree

import "testing"

func TestParsePopulated(t *testing.T) {
	for _, c := range []struct {
		in        string
		pop, isOK bool
	}{
		{"populated 1\nfrozen 0\n", true, true},
		{"populated 0\nfrozen 0\n", false, true},
		{"frozen 0\npopulated 0", false, true},
		{"frozen 1\n", false, false},
		{"", false, false},
		{"populated\n", true, true},
		{"  populated\t0  \r\n", false, true},
	} {
		pop, ok := ParsePopulated([]byte(c.in))
		if pop != c.pop || ok != c.isOK {
			t.Errorf("ParsePopulated(%q) = %v, %v; want %v, %v", c.in, pop, ok, c.pop, c.isOK)
		}
	}
}
