package resource

import (
	"bufio"
	"bytes"
	"strings"
)

// parseOSRelease parses an os-release(5) file
// (https://www.freedesktop.org/software/systemd/man/os-release.html):
// KEY=value lines, values optionally in single or double quotes, with
// backslash escapes inside double quotes; '#' starts a comment line.
// Malformed lines are skipped.
func parseOSRelease(data []byte) map[string]string {
	m := make(map[string]string, 16)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			continue
		}
		v, ok = unquoteOSRelease(v)
		if !ok {
			continue
		}
		m[k] = v
	}
	return m
}

func unquoteOSRelease(v string) (string, bool) {
	if v == "" {
		return "", true
	}
	q := v[0]
	if q != '"' && q != '\'' {
		return v, true
	}
	if len(v) < 2 || v[len(v)-1] != q {
		return "", false
	}
	v = v[1 : len(v)-1]
	if q == '\'' || !strings.Contains(v, `\`) {
		return v, true
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String(), true
}

// parsePlistStrings pulls the <key>K</key><string>V</string> pairs out of an
// XML property list such as macOS's
// /System/Library/CoreServices/SystemVersion.plist. Values of other types
// are skipped; entities are not decoded (version strings contain none).
func parsePlistStrings(data []byte) map[string]string {
	m := make(map[string]string, 8)
	s := string(data)
	for {
		_, rest, ok := strings.Cut(s, "<key>")
		if !ok {
			return m
		}
		key, rest, ok := strings.Cut(rest, "</key>")
		if !ok {
			return m
		}
		rest = strings.TrimLeft(rest, " \t\r\n")
		s = rest
		after, ok := strings.CutPrefix(rest, "<string>")
		if !ok {
			continue
		}
		val, rest, ok := strings.Cut(after, "</string>")
		if !ok {
			return m
		}
		m[strings.TrimSpace(key)] = strings.TrimSpace(val)
		s = rest
	}
}
