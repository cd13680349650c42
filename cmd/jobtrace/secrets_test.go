//go:build unix

package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/jobtrace/jobtrace/internal/otlptest"
)

// Secrets planted in the collector URL (user info, query), in the headers
// and in the environment.
const (
	secretUser   = "USERNAME7"
	secretPass   = "PASSWORD1"
	secretQuery  = "APIKEY123"
	secretHeader = "HDRSECRET"
	secretEnv    = "ENVSECRET"
)

var secrets = []string{secretUser, secretPass, secretQuery, secretHeader, secretEnv,
	base64.StdEncoding.EncodeToString([]byte(secretUser + ":" + secretPass))}

// echoHTTP is a hostile collector: it refuses every request with 401 and
// echoes what it got, URL and headers, in its answer, which the exporters
// put in their errors.
func echoHTTP(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "who are you? %s %s auth=%q", r.Method, r.URL, r.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

type echoTraces struct {
	coltracepb.UnimplementedTraceServiceServer
}

func (echoTraces) Export(ctx context.Context, _ *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	return nil, echoStatus(ctx)
}

// echoStatus is an Unauthenticated status that quotes the credentials the
// request carried.
func echoStatus(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	return status.Errorf(codes.Unauthenticated, "bad credentials: authorization=%q x-api-key=%q", md.Get("authorization"), md.Get("x-api-key"))
}

type echoMetrics struct {
	colmetricpb.UnimplementedMetricsServiceServer
}

func (echoMetrics) Export(ctx context.Context, _ *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	return nil, echoStatus(ctx)
}

// echoGRPC is the same collector over gRPC: an Unauthenticated status whose
// message holds the request's metadata.
func echoGRPC(t *testing.T) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, echoTraces{})
	colmetricpb.RegisterMetricsServiceServer(srv, echoMetrics{})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// checkNoSecrets greps text and every file under the directories for the
// planted secrets.
func checkNoSecrets(t *testing.T, what, text string, dirs ...string) {
	t.Helper()
	look := func(where, s string) {
		for _, sec := range secrets {
			if strings.Contains(s, sec) {
				i := strings.Index(s, sec)
				t.Errorf("%s: %s holds the secret %s: ...%s...", what, where, sec, s[max(0, i-80):min(len(s), i+40)])
			}
		}
	}
	look("the output", text)
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err == nil {
				look(path, string(data))
			}
			return nil
		})
	}
}

// No credential given to jobtrace (collector URL, headers) or found in its
// environment is printed or written, whatever the collector does: refuse
// the connection, or answer with an error that echoes the request.
func TestSecretsAreNeverPrintedOrWritten(t *testing.T) {
	httpEcho, grpcEcho, refused := echoHTTP(t), echoGRPC(t), otlptest.Refused(t)
	cred := secretUser + ":" + secretPass + "@"
	for _, tc := range []struct {
		name, proto, endpoint string
	}{
		{"refused http", "http/protobuf", "http://" + cred + refused + "/base?api_key=" + secretQuery},
		{"echoing http", "http/protobuf", "http://" + cred + httpEcho + "/base?api_key=" + secretQuery},
		{"echoing http, signal endpoint", "http/protobuf", "http://" + cred + httpEcho + "/v1/traces?api_key=" + secretQuery},
		{"refused grpc", "grpc", "http://" + cred + refused},
		{"echoing grpc", "grpc", "http://" + cred + grpcEcho},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpointVar := "OTEL_EXPORTER_OTLP_ENDPOINT"
			if strings.Contains(tc.name, "signal endpoint") {
				endpointVar = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
			}
			summary := filepath.Join(t.TempDir(), "step-summary.md")
			env := []string{
				endpointVar + "=" + tc.endpoint,
				"OTEL_EXPORTER_OTLP_PROTOCOL=" + tc.proto,
				"OTEL_EXPORTER_OTLP_HEADERS=x-api-key=Bearer%20" + secretHeader,
				"OTEL_EXPORTER_OTLP_TIMEOUT=2000",
				"JOBTRACE_EXPORT_TIMEOUT=2s",
				"MY_TOKEN=" + secretEnv,
				"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary,
				"GITHUB_SERVER_URL=https://" + cred + "github.example.com?token=" + secretQuery,
				"GITHUB_REPOSITORY=acme/widgets", "GITHUB_RUN_ID=7", "GITHUB_RUN_ATTEMPT=1",
			}
			r := jt(t, env, "run", "--name", "job", "--", "sh", "-c", "jobtrace phase begin p; jobtrace phase end p")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "pending") {
				t.Errorf("the export did not fail as planned, or no endpoint is named: %s", r.stderr)
			}
			checkNoSecrets(t, "run", r.stderr+r.stdout, r.out, filepath.Dir(summary))

			rr := jt(t, env, "replay", r.out)
			if rr.code != 1 {
				t.Errorf("replay: exit %d: %s", rr.code, rr.stderr)
			}
			checkNoSecrets(t, "replay", rr.stderr+rr.stdout, r.out)

			logDir := t.TempDir()
			rl := jt(t, env, "run", "--log", filepath.Join(logDir, "jobtrace.log"), "--", "true")
			if data, err := os.ReadFile(filepath.Join(logDir, "jobtrace.log")); err != nil || !strings.Contains(string(data), "pending") {
				t.Errorf("--log: %v %q", err, data)
			}
			checkNoSecrets(t, "run --log", rl.stderr+rl.stdout, logDir)

			re := jt(t, env, "exec", "step", "--", "true")
			checkNoSecrets(t, "exec outside a run", re.stderr+re.stdout)

			rc := jt(t, env, "config")
			checkNoSecrets(t, "config", rc.stderr+rc.stdout)
			t.Logf("run:\n%s\nreplay:\n%s", r.stderr, rr.stderr)
		})
	}
}
