package scan

import (
	"regexp"
	"strings"
	"testing"
)

func TestPrefilter(t *testing.T) {
	tests := []struct {
		re   string
		lits string // joined by |, "" for none
		fold bool
	}{
		{`^FAIL\s`, "FAIL", false},
		{`^(?i)fatal`, "fatal", true},
		{`^x|^yy`, "", false},
		{`warning: `, "warning: ", false},
		{`(error|warning): `, "error|warning", false},
		{`^npm WARN deprecated`, "npm WARN deprecated", false},
		{`--- FAIL: \S+`, "--- FAIL: ", false},
		{`(?i)error`, "error", true},
		{`(?i)fatal|(?i)panic`, "fatal|panic", true},
		{`(?i)task`, "", false}, // 's' and 'k' fold outside ASCII
		{`x`, "", false},        // too short to help
		{`\d+ tests? failed`, " failed", false},
		{`(ab)+cd`, "ab", false}, // "ab" and "cd" score the same; the first wins
		{`a*`, "", false},
		{`.`, "", false},
		{`foo|.`, "", false},
		{`(?i:foo)|bar`, "", false}, // mixed folding
		{`a|b|c|d|e|f|g|h|ii`, "", false},
	}
	for _, tt := range tests {
		p := newPrefilter(regexp.MustCompile(tt.re))
		var got []string
		for _, l := range p.lits {
			got = append(got, string(l))
		}
		if strings.Join(got, "|") != tt.lits || p.fold != tt.fold || p.prefix != strings.HasPrefix(tt.re, "^") && tt.lits != "" {
			t.Errorf("%s: got %q fold=%v, want %q fold=%v", tt.re, got, p.fold, tt.lits, tt.fold)
		}
	}
}

// TestPrefilterAgreesWithRegexp checks that the prefilter never hides a
// match.
func TestPrefilterAgreesWithRegexp(t *testing.T) {
	res := []string{`^FAIL\s`, `^(?i)fatal`, `(?m)^ok`, `(error|warning): `, `(?i)error`, `(?i)fatal|(?i)panic`, `\d+ tests? failed`, `(ab)+cd`, `(?i)task`, `wa(rn|nt)ed`}
	lines := []string{"", "ERROR: x", "Error", "eRrOr!", "warning: y", "error:", "3 tests failed", "1 test failed",
		"FAIL x", " FAIL x", "FATAL: y", "xfatal", "a\nok", "ok",
		"ababcd", "abcd", "acd", "TASK", "taſk", "Kelvin", "warned", "wanted", "waned", "PANIC", "Fatal"}
	for _, r := range res {
		re := regexp.MustCompile(r)
		p := newPrefilter(re)
		for _, l := range lines {
			if re.MatchString(l) && !p.mayMatch([]byte(l), asciiLower(nil, []byte(l))) {
				t.Errorf("%s: prefilter rejects %q, which matches", r, l)
			}
		}
	}
}
