package resource

import (
	"path/filepath"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/agent/cienv"
	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
)

// FuzzNew builds the resource from any OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES and host type, parsed as jobtrace parses them:
// never a panic; every key and string is clean (valid UTF-8, no control
// characters: one bad byte would make every span unexportable); the user's
// attributes are there; service.name is set, to the service name when one
// is given. Seeds: below and in testdata/fuzz/FuzzNew.
func FuzzNew(f *testing.F) {
	f.Add("", "a=%ff%fe,b=x", "")
	f.Add("svc\x1b[2J", "service.name=other,deployment.environment.name=ci,url=http://u:p@h/?k=v", "c5.xlarge")
	f.Add("", "service.name=%E2%80%AEevil,%00=1,k=%0d%0a", "\xff")
	f.Fuzz(func(t *testing.T, service, attrs, hostType string) {
		defer fuzzcheck.NoHang(service, attrs, hostType)()
		env := map[string]string{"OTEL_SERVICE_NAME": service, "OTEL_RESOURCE_ATTRIBUTES": attrs}
		c, err := config.Load(func(k string) string { return env[k] }, nil)
		if err != nil {
			return
		}
		opts := Options{
			ServiceName: c.ServiceName, HostType: hostType, Attributes: c.ResourceAttributes,
			CI: cienv.Info{}, SysRoot: filepath.Join("testdata", "linux-metal"),
		}
		res := build(opts, fakeSystem(linuxFiles, "linux", "amd64"))
		got := map[attribute.Key]attribute.Value{}
		for _, kv := range res.Attributes() {
			if cleantext.String(string(kv.Key)) != string(kv.Key) {
				t.Fatalf("key %q is not clean", kv.Key)
			}
			switch kv.Value.Type() {
			case attribute.STRING:
				if s := kv.Value.AsString(); cleantext.String(s) != s {
					t.Fatalf("%s = %q is not clean", kv.Key, s)
				}
			case attribute.STRINGSLICE:
				for _, s := range kv.Value.AsStringSlice() {
					if cleantext.String(s) != s {
						t.Fatalf("%s holds %q, not clean", kv.Key, s)
					}
				}
			}
			got[kv.Key] = kv.Value
		}
		for k := range c.ResourceAttributes {
			if _, ok := got[attribute.Key(cleantext.String(k))]; !ok && k != "" {
				t.Fatalf("attribute %q is missing: %v", k, res.Attributes())
			}
		}
		name, ok := got[semconv.ServiceNameKey]
		if !ok || name.AsString() == "" {
			t.Fatalf("no service.name: %v", res.Attributes())
		}
		if c.ServiceName != "" && name.AsString() != cleantext.String(c.ServiceName) {
			t.Fatalf("service.name %q, want %q", name.AsString(), cleantext.String(c.ServiceName))
		}
	})
}
