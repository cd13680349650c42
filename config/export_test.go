package config

import (
	"github.com/jobtrace/jobtrace/exporters/otlp"

	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestExportRefused: every setting that the exporter would refuse, or that
// would fail every request, is refused by Load with one line naming where it
// came from, so that `jobtrace run`, `config` and `replay` refuse it alike
// (exit 2) instead of running without telemetry.
func TestExportRefused(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join("testdata", "tls"))
	if err != nil {
		t.Fatal(err)
	}
	cert, key := filepath.Join(abs, "client.pem"), filepath.Join(abs, "client-key.pem")
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.pem")
	if err := os.WriteFile(big, make([]byte, otlp.MaxPEMFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo, haveFIFO := makeFIFO(dir)

	const https = "https://collector:4318"
	type env = map[string]string
	tests := []struct {
		name string
		env  env
		want string
	}{
		{"grpc bare host", env{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "collector"},
			`OTEL_EXPORTER_OTLP_ENDPOINT: "collector" is neither a URL nor host:port`},
		{"grpc signal protocol with general endpoint", env{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/otlp"},
			`OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/otlp" has a path, which gRPC cannot use`},
		{"grpc query", env{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317?k=v"},
			`"http://c:4317?k=xxxxx" has a query, which gRPC cannot send`},
		{"port out of range", env{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:70000"}, "has no valid port"},
		{"host that cannot be dialled", env{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a!b$c:4318"}, `has "a!b$c" for a host`},
		{"bare host that cannot be dialled", env{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "a%zz:4317"}, `has "a%zz" for a host`},
		{"fragment", env{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/#frag"}, "has a fragment"},
		{"bad URL masked", env{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://u:s3cret@c/%zz"}, `"http://xxxxx@c/%zz" is not a URL: invalid URL escape "%zz"`},
		{"missing CA", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_CERTIFICATE": filepath.Join(dir, "absent.pem")},
			"OTEL_EXPORTER_OTLP_CERTIFICATE: " + filepath.Join(dir, "absent.pem") + ": no such file or directory"},
		{"garbage CA", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": garbage},
			"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: " + garbage + " holds no PEM certificate"},
		{"CA too big", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_CERTIFICATE": big}, "file too large"},
		{"CA is a directory", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_CERTIFICATE": dir}, "not a regular file (a directory)"},
		{"client cert without key", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": cert},
			"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: " + cert + " is given without a client key"},
		{"key without cert", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY": key},
			"OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY: " + key + " is given without a client certificate"},
		{"key pair mismatch", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": cert, "OTEL_EXPORTER_OTLP_CLIENT_KEY": garbage},
			"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: " + cert + " with key " + garbage},
		{"header with CR LF", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=s3cret%0D%0AX-Evil: 1"},
			`OTEL_EXPORTER_OTLP_HEADERS: the value of "x-api-key" has a control character`},
		{"header with NUL", env{"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=b%00c"}, `the value of "a" has a control character`},
		{"header name", env{"OTEL_EXPORTER_OTLP_HEADERS": "bad name=1"}, `key "bad name" is not an HTTP header name`},
		{"header owned by the exporter", env{"OTEL_EXPORTER_OTLP_HEADERS": "Content-Type=text/plain"}, `"Content-Type" is set by the exporter itself`},
		{"grpc header name", env{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_HEADERS": "x!y=1"},
			`OTEL_EXPORTER_OTLP_HEADERS: "x!y" is not a gRPC header name`},
		{"grpc reserved header", env{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_HEADERS": "grpc-timeout=1S"},
			`"grpc-timeout" is reserved by gRPC`},
		{"grpc header value", env{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_HEADERS": "x=%C3%A9"},
			`the value of "x" is not printable ASCII`},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name string
			env  env
			want string
		}{"CA is /dev/zero", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_CERTIFICATE": "/dev/zero"},
			"OTEL_EXPORTER_OTLP_CERTIFICATE: /dev/zero: not a regular file (a character device)"})
	}
	if haveFIFO {
		tests = append(tests, struct {
			name string
			env  env
			want string
		}{"CA is a FIFO", env{"OTEL_EXPORTER_OTLP_ENDPOINT": https, "OTEL_EXPORTER_OTLP_CERTIFICATE": fifo}, "not a regular file (a FIFO)"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, "", tt.env)
			if err == nil {
				t.Fatalf("accepted; want %q", tt.want)
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v\nwant one line with %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error prints a secret: %v", err)
			}
		})
	}
}

// What is not exported is not resolved: a bad CA does not matter to plain
// text, nor with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none.
func TestExportNotResolvedWhenUnused(t *testing.T) {
	for _, env := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_CERTIFICATE": "/dev/zero"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318", "OTEL_EXPORTER_OTLP_CERTIFICATE": "/dev/zero", "OTEL_SDK_DISABLED": "true"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://c:4318/v1/traces", "OTEL_EXPORTER_OTLP_CERTIFICATE": "/dev/zero", "OTEL_TRACES_EXPORTER": "none"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://c:4318/v1/traces", "OTEL_EXPORTER_OTLP_CERTIFICATE": "/dev/zero", "OTEL_TRACES_EXPORTER": " NONE "},
	} {
		c, err := load(t, "", env)
		if err != nil {
			t.Errorf("%v: %v", env, err)
			continue
		}
		if env["OTEL_SDK_DISABLED"] != "" || env["OTEL_TRACES_EXPORTER"] != "" {
			if e := c.Export(); e.Traces != nil || e.Metrics != nil {
				t.Errorf("%v: exported: %+v", env, e)
			}
		}
	}
}

// A shared CA and a client pair resolve into a TLS configuration for both
// signals.
func TestExportTLS(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join("testdata", "tls"))
	if err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t, "", map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":           "https://c:4318",
		"OTEL_EXPORTER_OTLP_CERTIFICATE":        filepath.Join(abs, "ca.pem"),
		"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": filepath.Join(abs, "client.pem"),
		"OTEL_EXPORTER_OTLP_CLIENT_KEY":         filepath.Join(abs, "client-key.pem"),
	})
	for _, e := range []*otlp.Endpoint{c.Export().Traces, c.Export().Metrics} {
		if e == nil || e.Insecure || e.TLS == nil || e.TLS.RootCAs == nil || len(e.TLS.Certificates) != 1 {
			t.Errorf("endpoint %+v", e)
		}
	}
}
