package kstat

import "testing"

func TestParseSelector(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Selector
		str  string
	}{
		{"", SelectAll(), "*:*:*"},
		{"unix", Selector{"unix", -1, ""}, "unix:*:*"},
		{"unix:0", Selector{"unix", 0, ""}, "unix:0:*"},
		{"unix:0:system_misc", Selector{"unix", 0, "system_misc"}, "unix:0:system_misc"},
		{"cpu::sys", Selector{"cpu", -1, "sys"}, "cpu:*:sys"},
		{"cpu:*:sys", Selector{"cpu", -1, "sys"}, "cpu:*:sys"},
		{"*:*:*", SelectAll(), "*:*:*"},
		{":0:", Selector{"", 0, ""}, "*:0:*"},
		{"mod:1:a:b", Selector{"mod", 1, "a:b"}, "mod:1:a:b"},
		{"sderr:0:sd0,err", Selector{"sderr", 0, "sd0,err"}, "sderr:0:sd0,err"},
	} {
		got, err := ParseSelector(c.in)
		if err != nil || got != c.want || got.String() != c.str {
			t.Errorf("ParseSelector(%q) = %+v (%s), %v; want %+v (%s)", c.in, got, got, err, c.want, c.str)
		}
	}
	for _, bad := range []string{"cpu:x", "cpu:-1:sys", "cpu:1.5"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("ParseSelector(%q) accepted", bad)
		}
	}
}

func TestSelectorMatch(t *testing.T) {
	k := KStat{Module: "cpu", Instance: 1, Name: "sys"}
	for _, c := range []struct {
		sel  Selector
		want bool
	}{
		{SelectAll(), true},
		{Selector{"cpu", -1, ""}, true},
		{Selector{"cpu", 1, "sys"}, true},
		{Selector{"", 1, ""}, true},
		{Selector{"cpu", 0, "sys"}, false},
		{Selector{"cpu", 1, "vm"}, false},
		{Selector{"unix", -1, ""}, false},
	} {
		if got := c.sel.Match(k); got != c.want {
			t.Errorf("%s matches %s: %v, want %v", c.sel, k, got, c.want)
		}
	}
}
