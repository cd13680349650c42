package otlp

import (
	"errors"
	"testing"
)

func TestResolve(t *testing.T) {
	const tr, mt = tracesPath, metricsPath
	for _, tc := range []struct {
		name     string
		s        Settings
		specific string
		path     string
		want     target
		err      error
	}{
		{"http base", Settings{Endpoint: "http://col:4318"}, "", tr,
			target{hostport: "col:4318", url: "http://col:4318/v1/traces", insecure: true}, nil},
		{"http base slash", Settings{Endpoint: "http://col:4318/"}, "", mt,
			target{hostport: "col:4318", url: "http://col:4318/v1/metrics", insecure: true}, nil},
		{"http base with path", Settings{Endpoint: "https://gw.example.com/otlp/"}, "", tr,
			target{hostport: "gw.example.com", url: "https://gw.example.com/otlp/v1/traces"}, nil},
		{"https beats insecure", Settings{Endpoint: "https://col:4318", Insecure: true}, "", tr,
			target{hostport: "col:4318", url: "https://col:4318/v1/traces"}, nil},
		{"signal endpoint as is", Settings{Endpoint: "http://ignored:1"}, "http://col:4318/custom/traces", tr,
			target{hostport: "col:4318", url: "http://col:4318/custom/traces", insecure: true}, nil},
		{"signal endpoint without path", Settings{}, "http://col:4318", tr,
			target{hostport: "col:4318", url: "http://col:4318/", insecure: true}, nil},
		{"http bare host:port tls", Settings{Endpoint: "col:4318"}, "", tr,
			target{hostport: "col:4318", url: "https://col:4318/v1/traces"}, nil},
		{"http bare host:port insecure", Settings{Endpoint: "col:4318", Insecure: true}, "", mt,
			target{hostport: "col:4318", url: "http://col:4318/v1/metrics", insecure: true}, nil},
		{"protocol name explicit", Settings{Endpoint: "http://col:4318", Protocol: "http/protobuf"}, "", tr,
			target{hostport: "col:4318", url: "http://col:4318/v1/traces", insecure: true}, nil},
		{"grpc http url", Settings{Endpoint: "http://col:4317", Protocol: "grpc"}, "", tr,
			target{grpc: true, hostport: "col:4317", insecure: true}, nil},
		{"grpc https url", Settings{Endpoint: "https://col:4317", Protocol: "grpc", Insecure: true}, "", tr,
			target{grpc: true, hostport: "col:4317"}, nil},
		{"grpc bare", Settings{Endpoint: "127.0.0.1:4317", Protocol: "grpc"}, "", tr,
			target{grpc: true, hostport: "127.0.0.1:4317"}, nil},
		{"grpc bare insecure", Settings{Endpoint: "localhost:4317", Protocol: "grpc", Insecure: true}, "", tr,
			target{grpc: true, hostport: "localhost:4317", insecure: true}, nil},
		{"grpc ipv6", Settings{Protocol: "grpc"}, "http://[::1]:4317", tr,
			target{grpc: true, hostport: "[::1]:4317", insecure: true}, nil},
		{"grpc signal beats base", Settings{Endpoint: "http://a:1", Protocol: "grpc"}, "b:2", tr,
			target{grpc: true, hostport: "b:2"}, nil},
		{"none", Settings{}, "", tr, target{}, ErrNoEndpoint},
		{"blank", Settings{Endpoint: "  "}, "", tr, target{}, ErrNoEndpoint},
		{"bad scheme", Settings{Endpoint: "ftp://col:21"}, "", tr, target{}, ErrSettings},
		{"no host", Settings{Endpoint: "http://"}, "", tr, target{}, ErrSettings},
		{"no port", Settings{Endpoint: "collector"}, "", tr, target{}, ErrSettings},
		{"bare with path", Settings{Endpoint: "col:4318/v1/traces"}, "", tr, target{}, ErrSettings},
		{"bad protocol", Settings{Endpoint: "http://col:4318", Protocol: "http/json"}, "", tr, target{}, ErrSettings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.s.resolve(tc.specific, tc.path)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		s                   Settings
		any, traces, metric bool
	}{
		{Settings{}, false, false, false},
		{Settings{Protocol: "grpc", Headers: map[string]string{"a": "b"}}, false, false, false},
		{Settings{Endpoint: "http://c:4318"}, true, true, true},
		{Settings{TracesEndpoint: "http://c:4318/v1/traces"}, true, true, false},
		{Settings{MetricsEndpoint: "http://c:4318/v1/metrics"}, true, false, true},
	} {
		if tc.s.Enabled() != tc.any || tc.s.TracesEnabled() != tc.traces || tc.s.MetricsEnabled() != tc.metric {
			t.Errorf("%+v: Enabled %v Traces %v Metrics %v", tc.s, tc.s.Enabled(), tc.s.TracesEnabled(), tc.s.MetricsEnabled())
		}
	}
}

func TestCompression(t *testing.T) {
	for in, want := range map[string]bool{"": false, "none": false, "gzip": true, "GZIP": true} {
		if got, err := (Settings{Compression: in}).gzip(); err != nil || got != want {
			t.Errorf("%q: %v, %v", in, got, err)
		}
	}
	if _, err := (Settings{Compression: "zstd"}).gzip(); !errors.Is(err, ErrSettings) {
		t.Errorf("zstd: %v", err)
	}
}
