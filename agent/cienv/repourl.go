package cienv

import (
	"net/url"
	"path"
	"strings"
)

// canonicalRepoURL turns a clone URL into the browsable form that
// vcs.repository.url.full asks for, and returns the repository name (its last
// path element) too:
//
//	git@github.com:org/repo.git           → https://github.com/org/repo
//	ssh://git@host:7999/org/repo.git      → https://host/org/repo
//	https://user:token@host/org/repo.git  → https://host/org/repo
//	http://gitlab.internal/group/repo     → http://gitlab.internal/group/repo
//
// User information, query and fragment are always dropped: clone URLs are
// where CI systems and users put credentials. A value that does not parse as
// a URL gives "", never the raw text.
func canonicalRepoURL(raw string) (full, name string) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", ""
	}
	scheme, host, p := "https", "", ""
	if !strings.Contains(raw, "://") {
		// scp-like syntax: [user@]host:path
		hostPart, pathPart, ok := strings.Cut(raw, ":")
		if !ok || strings.Contains(hostPart, "/") {
			return "", ""
		}
		if i := strings.LastIndexByte(hostPart, '@'); i >= 0 {
			hostPart = hostPart[i+1:]
		}
		host, p = hostPart, pathPart
	} else {
		u, err := url.Parse(raw)
		if err != nil {
			return "", ""
		}
		switch u.Scheme {
		case "http", "https":
			scheme, host = u.Scheme, u.Host
		case "ssh", "git", "git+ssh", "ssh+git":
			// The port of an SSH or git daemon is not the web server's.
			host = u.Hostname()
		default:
			return "", ""
		}
		p = u.Path
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	p = strings.Trim(p, "/")
	if host == "" || p == "" {
		return "", ""
	}
	return scheme + "://" + host + "/" + p, path.Base(p)
}
