package otlp

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// endpoint is a parsed endpoint.
type endpoint struct {
	u      *url.URL      // without user info
	user   *url.Userinfo // from the URL, or nil
	scheme bool          // the URL had a scheme, which decides TLS
}

// parseEndpoint checks raw for protocol and returns it parsed, or why it
// cannot be used. http/protobuf needs an http:// or https:// URL; gRPC
// takes such a URL without a path or query (gRPC sends to host:port only),
// or a bare host:port.
func parseEndpoint(raw, protocol string) (endpoint, string) {
	if !strings.Contains(raw, "://") {
		if protocol == ProtocolHTTPProtobuf {
			return endpoint{}, "is not an http:// or https:// URL, as http/protobuf needs"
		}
		host, port, err := net.SplitHostPort(raw)
		if err != nil || host == "" || strings.ContainsAny(raw, " /?#@") {
			return endpoint{}, "is neither a URL nor host:port"
		}
		if why := checkPort(port); why != "" {
			return endpoint{}, why
		}
		if !isHost(host) {
			return endpoint{}, fmt.Sprintf("has %q for a host, neither a name nor an IP address", host)
		}
		return endpoint{u: &url.URL{Host: raw}}, ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return endpoint{}, "is not a URL" + urlReason(err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return endpoint{}, fmt.Sprintf("has scheme %q, not http or https", u.Scheme)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return endpoint{}, "has no host"
	}
	if !isHost(u.Hostname()) {
		return endpoint{}, fmt.Sprintf("has %q for a host, neither a name nor an IP address", u.Hostname())
	}
	if why := checkPort(u.Port()); u.Port() != "" && why != "" {
		return endpoint{}, why
	}
	if u.Fragment != "" {
		return endpoint{}, "has a fragment (#...), which is never sent"
	}
	if protocol == ProtocolGRPC {
		if u.RawQuery != "" || u.ForceQuery {
			return endpoint{}, "has a query, which gRPC cannot send (it sends to host:port only)"
		}
		if u.Path != "" && u.Path != "/" {
			return endpoint{}, "has a path, which gRPC cannot use (it sends to host:port only)"
		}
		if u.Port() == "" {
			// gRPC needs the port, which an http(s) URL implies.
			port := "443"
			if u.Scheme == "http" {
				port = "80"
			}
			u.Host = net.JoinHostPort(u.Hostname(), port)
		}
		u.Path, u.RawPath = "", ""
	}
	p := endpoint{u: u, user: u.User, scheme: true}
	u.User = nil
	return p, ""
}

// isHost reports whether h is an IP address or a host name (letters,
// digits, "-", "_" and "."; international names too, which HTTP converts),
// which is what can be dialled: anything else would fail every request.
func isHost(h string) bool {
	if ip, _, _ := strings.Cut(h, "%"); net.ParseIP(ip) != nil {
		return true
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' ||
			r >= 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

func checkPort(port string) string {
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "has no valid port (1 to 65535)"
	}
	return ""
}

// urlReason is what url.Parse found wrong, without the URL it quotes.
func urlReason(err error) string {
	var ue *url.Error
	if e, ok := err.(*url.Error); ok {
		ue = e
	}
	if ue == nil {
		return ""
	}
	return ": " + ue.Err.Error()
}
