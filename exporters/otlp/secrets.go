package otlp

import (
	"net/url"
	"strings"

	"github.com/jobtrace/jobtrace/internal/redact"
)

// registerSecrets tells package redact what to mask in every message: the
// values of all headers (and the credential after an auth scheme such as
// "Bearer"), and the user info and query values of the endpoints.
func registerSecrets(o Settings) {
	var vals []string
	for _, h := range []map[string]string{o.Headers, o.Traces.Headers, o.Metrics.Headers} {
		for _, v := range h {
			vals = append(vals, v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				vals = append(vals, strings.TrimSpace(cred))
			}
		}
	}
	for _, raw := range []string{o.Endpoint, o.TracesEndpoint, o.MetricsEndpoint} {
		vals = append(vals, urlSecrets(raw)...)
	}
	redact.Add(vals...)
}

// urlSecrets returns the parts of an endpoint URL that may be credentials:
// the user name, the password and the query values.
func urlSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || !strings.Contains(raw, "://") {
		return nil
	}
	var out []string
	if u.User != nil {
		out = append(out, u.User.Username(), u.User.String())
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw)
		}
	}
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	return out
}
