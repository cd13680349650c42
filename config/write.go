package config

import (
	"fmt"
	"io"
	"maps"
	"regexp"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/jobtrace/jobtrace/internal/redact"
)

// Masked replaces secret values in WriteYAML's output.
const Masked = "********"

// secretKey matches the names of keys whose values are likely secrets.
// Masking too much is harmless in a printout; too little is not.
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)pass|pwd|secret|token|auth|api[-_.]?key|access[-_.]?key|private[-_.]?key|credential|cookie|session|signature|bearer`)
})

// WriteYAML prints the configuration as YAML that Load accepts, for
// `jobtrace config`. Secrets are masked: every header value, the value of
// any key that looks secret, and the user info and query values of
// endpoint URLs. A value that is not the default carries a
// comment saying where it came from.
func (c Config) WriteYAML(w io.Writer) error {
	m := c.masked()
	var doc yaml.Node
	if err := doc.Encode(m); err != nil {
		return errorf("encoding the configuration: %v", err)
	}
	c.annotate(&doc, "")
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return errorf("writing the configuration: %v", err)
	}
	if err := enc.Close(); err != nil {
		return errorf("writing the configuration: %v", err)
	}
	return nil
}

// masked returns a copy of c with its secrets masked.
func (c Config) masked() Config {
	m := c
	m.ResourceAttributes = maskMap(c.ResourceAttributes, false)
	m.OTLP.Headers = maskMap(c.OTLP.Headers, true)
	m.OTLP.Traces.Headers = maskMap(c.OTLP.Traces.Headers, true)
	m.OTLP.Metrics.Headers = maskMap(c.OTLP.Metrics.Headers, true)
	m.OTLP.Endpoint = maskURL(c.OTLP.Endpoint)
	m.OTLP.TracesEndpoint = maskURL(c.OTLP.TracesEndpoint)
	m.OTLP.MetricsEndpoint = maskURL(c.OTLP.MetricsEndpoint)
	m.Markers.Patterns = append([]Pattern(nil), c.Markers.Patterns...)
	return m
}

func maskMap(in map[string]string, all bool) map[string]string {
	if in == nil {
		return nil
	}
	out := maps.Clone(in)
	for k := range out {
		if all || secretKey().MatchString(k) {
			out[k] = Masked
		}
	}
	return out
}

// maskURL masks the user info and the query values of an endpoint URL,
// which may hold a password, a token or a key.
func maskURL(s string) string { return redact.URL(s) }

// annotate puts the origin of each value that did not come from the
// defaults in a line comment next to its key.
func (c Config) annotate(n *yaml.Node, key string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, sub := range n.Content {
			c.annotate(sub, key)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			sub := kn.Value
			if key != "" {
				sub = key + "." + kn.Value
			}
			if _, ok := yamlKeySet()[listIndex().ReplaceAllString(sub, "")]; !ok {
				sub = key + "[" + kn.Value + "]" // an entry of a map
			}
			if o, ok := c.origins[sub]; ok && vn.Kind == yaml.ScalarNode {
				vn.LineComment = o.where
			} else if ok {
				kn.LineComment = o.where
			}
			c.annotate(vn, sub)
		}
	case yaml.SequenceNode:
		for i, sub := range n.Content {
			c.annotate(sub, fmt.Sprintf("%s[%d]", key, i))
		}
	}
}
