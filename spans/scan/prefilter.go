package scan

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Go's regexp engine is linear-time but slow for unanchored patterns that
// do not start with a literal: `(error|warning): ` costs microseconds per
// line, which would make the scanner the slowest part of the output path.
// Most lines match none of the user's patterns, so each pattern gets a
// prefilter: a set of literal strings at least one of which every match
// must contain. A line that contains none of them cannot match and skips
// the regexp; bytes.Contains is vectorised and costs nanoseconds.

// prefilter is the literal set of one pattern. An empty set means "no
// prefilter": always run the regexp.
type prefilter struct {
	lits   [][]byte
	fold   bool // the literals are lower case; compare with the ASCII-lowered line
	prefix bool // one literal that must start the line (the pattern begins with ^literal)
}

// minPrefilterLen is the shortest literal worth filtering on; shorter ones
// occur in too many lines to save anything.
const minPrefilterLen = 2

// maxPrefilterLits bounds the set: past this many alternatives the scans
// cost more than the regexp.
const maxPrefilterLits = 8

func newPrefilter(re *regexp.Regexp) prefilter {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return prefilter{}
	}
	set, ok := required(parsed.Simplify())
	if !ok || len(set.lits) == 0 || len(set.lits) > maxPrefilterLits {
		return prefilter{}
	}
	for _, l := range set.lits {
		if len(l) < minPrefilterLen {
			return prefilter{}
		}
	}
	return set
}

// required returns literals one of which any match of re contains.
func required(re *syntax.Regexp) (prefilter, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase != 0 {
			if !foldableASCII(s) {
				return prefilter{}, false
			}
			return prefilter{lits: [][]byte{[]byte(strings.ToLower(s))}, fold: true}, true
		}
		return prefilter{lits: [][]byte{[]byte(s)}}, true
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		if len(re.Sub) > 1 && re.Sub[0].Op == syntax.OpBeginText {
			if p, ok := required(re.Sub[1]); ok && re.Sub[1].Op == syntax.OpLiteral {
				p.prefix = true
				return p, true
			}
		}
		best, found := prefilter{}, false
		for _, sub := range re.Sub {
			p, ok := required(sub)
			if ok && (!found || p.score() > best.score()) {
				best, found = p, true
			}
		}
		return best, found
	case syntax.OpAlternate:
		var out prefilter
		for i, sub := range re.Sub {
			p, ok := required(sub)
			if !ok || (i > 0 && p.fold != out.fold) {
				return prefilter{}, false
			}
			out.fold = p.fold
			out.prefix = false
			out.lits = append(out.lits, p.lits...)
		}
		return out, true
	}
	return prefilter{}, false
}

// score ranks literal sets: fewer and longer literals filter better.
func (p prefilter) score() int {
	if len(p.lits) == 0 {
		return 0
	}
	shortest := len(p.lits[0])
	for _, l := range p.lits[1:] {
		shortest = min(shortest, len(l))
	}
	return shortest*16 - len(p.lits)
}

// foldableASCII reports whether s is ASCII without 'k' and 's', the two
// ASCII letters whose case folding reaches outside ASCII (U+212A KELVIN
// SIGN, U+017F LATIN SMALL LETTER LONG S). For such a literal, lowering the
// line's ASCII letters finds every case-insensitive occurrence.
func foldableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80, c == 'k', c == 'K', c == 's', c == 'S':
			return false
		}
	}
	return true
}

// mayMatch reports whether line (or lower, its ASCII-lowered form) holds
// one of the literals.
func (p prefilter) mayMatch(line, lower []byte) bool {
	if len(p.lits) == 0 {
		return true
	}
	if p.fold {
		line = lower
	}
	if p.prefix {
		return bytes.HasPrefix(line, p.lits[0])
	}
	for _, l := range p.lits {
		if bytes.Contains(line, l) {
			return true
		}
	}
	return false
}

// asciiLower appends b with ASCII letters lowered to dst.
func asciiLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
