// Package redact masks credentials in the text jobtrace prints or writes:
// the user info and the query values of URLs, and the values
// that were registered as secrets (header values, the parts of the collector
// URL that may carry a key).
//
// It is the one place that decides what is masked. Every line jobtrace
// prints goes through String (the agent's logger and the command line's
// error line call it), so an error that wraps the collector's URL, such as
// Go's *url.Error or the OTLP exporters' "failed to send to URL", cannot
// print a password or an API key.
package redact

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Mask replaces a secret. It is what net/url's Redacted uses, and it needs
// no escaping inside a URL.
const Mask = "xxxxx"

// MinSecretBytes is the length below which a registered value is not
// searched for in free text: replacing every "1" or "on" in a message would
// make it unreadable, and a value that short is no credential. Such values
// are still masked where their place is known (in URLs, in `jobtrace config`).
const MinSecretBytes = 6

var (
	mu      sync.RWMutex
	secrets []string // longest first, so that a secret containing another is masked whole
	known   = map[string]bool{}
)

// Add registers values to mask wherever they appear in String's input, in
// their plain form and in the escaped forms a URL would give them. Values
// shorter than MinSecretBytes are ignored. Registration lasts for the
// process: masking too much is harmless, too little is not.
func Add(values ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, v := range values {
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v), (&url.URL{Path: v}).EscapedPath()} {
			if len(form) < MinSecretBytes || known[form] {
				continue
			}
			known[form] = true
			secrets = append(secrets, form)
		}
	}
	sort.SliceStable(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
}

// scheme starts a URL inside free text; compiled once, when first used.
var scheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://`) })

// String returns s with every URL's credentials masked (see URL) and every
// registered secret replaced by Mask.
func String(s string) string {
	if strings.Contains(s, "://") {
		var b strings.Builder
		last := 0
		for _, loc := range scheme().FindAllStringIndex(s, -1) {
			if loc[0] < last {
				continue
			}
			end := loc[1] + urlEnd(s[loc[1]:])
			b.WriteString(s[last:loc[0]])
			b.WriteString(URL(s[loc[0]:end]))
			last = end
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	mu.RLock()
	defer mu.RUnlock()
	for _, sec := range secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Mask)
		}
	}
	return s
}

// urlEnd is the length of the URL text at the start of s: up to white
// space, a quote or an angle bracket, which cannot appear in a URL
// unescaped and which messages put around one, and without the punctuation
// that prose puts after one ("to URL; 4 pending", "(URL)").
func urlEnd(s string) int {
	n := len(s)
	if i := strings.IndexAny(s, " \t\r\n\"'<>`"); i >= 0 {
		n = i
	}
	return len(strings.TrimRight(s[:n], ".,;:!?)]}"))
}

// URL masks the user info of the URL u and the values of its query, which
// is where URLs carry passwords, tokens and API keys:
// http://user:pw@host/p?api_key=k&x becomes http://xxxxx@host/p?api_key=xxxxx&xxxxx.
// It works on the text, so a URL that does not parse is masked too. Text
// without "://" is returned as it is (a bare host:port has no secrets).
func URL(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return u
	}
	head, rest := u[:i+3], u[i+3:]
	authEnd := strings.IndexAny(rest, "/?#")
	if authEnd < 0 {
		authEnd = len(rest)
	}
	auth, tail := rest[:authEnd], rest[authEnd:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = Mask + auth[at:]
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(auth)
	q := strings.IndexAny(tail, "?#")
	if q < 0 {
		b.WriteString(tail)
		return b.String()
	}
	b.WriteString(tail[:q])
	tail = tail[q:]
	if tail[0] == '?' {
		query, frag, hasFrag := strings.Cut(tail[1:], "#")
		b.WriteByte('?')
		b.WriteString(maskValues(query))
		tail = ""
		if hasFrag {
			tail = "#" + frag
		}
	}
	// A fragment is never sent to a server; it stays (a Buildkite job URL
	// names the job there).
	b.WriteString(tail)
	return b.String()
}

// maskValues masks the values of a key=value&key=value list, and whole
// items that have no key.
func maskValues(s string) string {
	if s == "" {
		return s
	}
	items := strings.Split(s, "&")
	for i, it := range items {
		if it == "" {
			continue
		}
		if k, _, ok := strings.Cut(it, "="); ok {
			items[i] = k + "=" + Mask
		} else {
			items[i] = Mask
		}
	}
	return strings.Join(items, "&")
}

// Error returns err's message, masked by String; "" for nil.
func Error(err error) string {
	if err == nil {
		return ""
	}
	return String(err.Error())
}
