package config

import (
	"github.com/jobtrace/jobtrace/exporters/otlp"

	"maps"
	"testing"
)

func TestParseKeyValues(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]string
	}{
		{"a=b,c=d", map[string]string{"a": "b", "c": "d"}},
		{" a = b , c=d ,", map[string]string{"a": "b", "c": "d"}},
		{"", map[string]string{}},
		{"k=hello%20world", map[string]string{"k": "hello world"}},
		{"k=a%2Cb", map[string]string{"k": "a,b"}},
		{"k=%3D%25", map[string]string{"k": "=%"}},
		{"k=a=b", map[string]string{"k": "a=b"}},
		{"k=a+b", map[string]string{"k": "a+b"}}, // + is not a space outside query strings
		{"k=", map[string]string{"k": ""}},
		{"k=%E2%9C%93", map[string]string{"k": "✓"}},
		{"Authorization=Basic%20dXNlcjpwYXNz", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}},
		{"k=1,k=2", map[string]string{"k": "2"}},
	}
	for _, tt := range tests {
		got, err := parseKeyValues(tt.in)
		if err != nil || !maps.Equal(got, tt.want) {
			t.Errorf("parseKeyValues(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"novalue", "=v", " =v", "k=%", "k=%2", "a=1,b"} {
		if got, err := parseKeyValues(in); err == nil {
			t.Errorf("parseKeyValues(%q) = %v, want an error", in, got)
		}
	}
}

func TestPercentDecodingThroughLoad(t *testing.T) {
	c := mustLoad(t, "", map[string]string{
		"OTEL_RESOURCE_ATTRIBUTES":          "service.namespace=ci%2Fbuilds,note=a%20b%2Cc",
		"OTEL_EXPORTER_OTLP_HEADERS":        "Authorization=Bearer%20abc,X-Tenant=t%3D1",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "X-Trace=%C3%A9",
	})
	wantAttrs := map[string]string{"service.namespace": "ci/builds", "note": "a b,c"}
	if !maps.Equal(c.ResourceAttributes, wantAttrs) {
		t.Errorf("resource attributes %v, want %v", c.ResourceAttributes, wantAttrs)
	}
	wantHeaders := map[string]string{"Authorization": "Bearer abc", "X-Tenant": "t=1"}
	if !maps.Equal(c.OTLP.Headers, wantHeaders) {
		t.Errorf("headers %v, want %v", c.OTLP.Headers, wantHeaders)
	}
	if got := resolved(c.OTLP).Traces.Headers; !maps.Equal(got, map[string]string{"X-Trace": "é"}) {
		t.Errorf("traces headers %v", got)
	}
	if got := resolved(c.OTLP).Metrics.Headers; !maps.Equal(got, wantHeaders) {
		t.Errorf("metrics headers %v, want the general ones", got)
	}
}

func TestMarkersList(t *testing.T) {
	tests := []struct {
		list                  string
		phase, github, gitlab bool
	}{
		{"phase,gitlab", true, false, true},
		{"github", false, true, false},
		{"phase,github,gitlab", true, true, true},
		{" Phase , GITLAB ,", true, false, true},
		{"none", false, false, false},
		{"gitlab,gitlab", false, false, true},
	}
	for _, tt := range tests {
		for _, via := range []string{"env", "flag"} {
			var c Config
			if via == "env" {
				c = mustLoad(t, "", map[string]string{"JOBTRACE_MARKERS": tt.list})
			} else {
				c = mustLoad(t, "", nil, "--markers", tt.list)
			}
			m := c.Markers
			if m.Phase != tt.phase || m.GitHub != tt.github || m.GitLab != tt.gitlab {
				t.Errorf("%s %q: phase %v github %v gitlab %v; want %v %v %v",
					via, tt.list, m.Phase, m.GitHub, m.GitLab, tt.phase, tt.github, tt.gitlab)
			}
			if !m.Socket || !m.MarkerDir {
				t.Errorf("%s %q turned off the socket or the marker dir", via, tt.list)
			}
		}
	}
}

func TestParseMillis(t *testing.T) {
	for in, want := range map[string]string{"0": "0s", "1": "1ms", "10000": "10s", " 250 ": "250ms"} {
		got, err := parseMillis(in)
		if err != nil || got.(interface{ String() string }).String() != want {
			t.Errorf("parseMillis(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"abc", "1.5", "-1", "10s", "99999999999999999999"} {
		if _, err := parseMillis(in); err == nil {
			t.Errorf("parseMillis(%q) gave no error", in)
		}
	}
}

// resolved resolves o as Load does, with both signals on.
func resolved(o otlp.Settings) otlp.Export {
	o.Endpoint = "http://c:4318"
	exp, err := otlp.Resolve(o, otlp.Signals{Traces: true, Metrics: true})
	if err != nil {
		panic(err)
	}
	return exp
}
