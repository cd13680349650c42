package resource

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/agent/cienv"
)

func fakeSystem(files platformFiles, goos, goarch string) system {
	return system{
		files:    files,
		goos:     goos,
		goarch:   goarch,
		hostname: func() (string, error) { return "ci-runner-7", nil },
	}
}

// attrMap flattens a resource to key → emitted value.
func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

func sdkAttrs(extra map[string]string) map[string]string {
	m := map[string]string{
		"telemetry.sdk.name":     "opentelemetry",
		"telemetry.sdk.language": "go",
		"telemetry.sdk.version":  sdk.Version(),
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestBuildFixtures(t *testing.T) {
	cases := []struct {
		name   string
		root   string
		files  platformFiles
		goos   string
		goarch string
		want   map[string]string
	}{
		{
			name: "linux bare metal", root: "linux-metal", files: linuxFiles, goos: "linux", goarch: "amd64",
			want: sdkAttrs(map[string]string{
				"service.name":   "jobtrace",
				"host.name":      "ci-runner-7",
				"host.arch":      "amd64",
				"host.type":      "PowerEdge R650",
				"host.id":        "4c4c4544004b4e1080345ac04f4e3933",
				"os.type":        "linux",
				"os.name":        "Debian GNU/Linux",
				"os.version":     "12",
				"os.description": "Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-18-amd64)",
			}),
		},
		{
			name: "linux on EC2, fallback files", root: "linux-ec2", files: linuxFiles, goos: "linux", goarch: "arm64",
			want: sdkAttrs(map[string]string{
				"service.name":   "jobtrace",
				"host.name":      "ci-runner-7",
				"host.arch":      "arm64",
				"host.type":      "c7g.2xlarge",
				"host.id":        "ec2a1b2c3d4e5f60718293a4b5c6d7e8",
				"cloud.provider": "aws",
				"os.type":        "linux",
				"os.name":        "Amazon Linux",
				"os.version":     "2023",
				"os.description": "Amazon Linux 2023.4.20240513 (Linux 6.1.90-99.173.amzn2023.aarch64)",
			}),
		},
		{
			name: "linux container: the image's machine-id is not the host's", root: "linux-container", files: linuxFiles, goos: "linux", goarch: "amd64",
			want: sdkAttrs(map[string]string{
				"service.name":   "jobtrace",
				"host.name":      "ci-runner-7",
				"host.arch":      "amd64",
				"os.type":        "linux",
				"os.name":        "Alpine Linux",
				"os.version":     "3.20.1",
				"os.description": "Alpine Linux v3.20 (Linux 6.18.44)",
			}),
		},
		{
			name: "darwin", root: "darwin", files: darwinFiles, goos: "darwin", goarch: "arm64",
			want: sdkAttrs(map[string]string{
				"service.name":   "jobtrace",
				"host.name":      "ci-runner-7",
				"host.arch":      "arm64",
				"os.type":        "darwin",
				"os.name":        "macOS",
				"os.version":     "14.5",
				"os.build_id":    "23F79",
				"os.description": "macOS 14.5 (23F79)",
			}),
		},
		{
			name: "freebsd", root: "freebsd", files: freebsdFiles, goos: "freebsd", goarch: "amd64",
			want: sdkAttrs(map[string]string{
				"service.name":   "jobtrace",
				"host.name":      "ci-runner-7",
				"host.arch":      "amd64",
				"host.id":        "3d5a8c1e-6f0b-11ef-8a2b-0cc47a123456",
				"os.type":        "freebsd",
				"os.name":        "FreeBSD",
				"os.version":     "14.1",
				"os.description": "FreeBSD 14.1-RELEASE",
			}),
		},
		{
			name: "illumos", root: "illumos", files: otherFiles, goos: "illumos", goarch: "amd64",
			want: sdkAttrs(map[string]string{
				"service.name":   "jobtrace",
				"host.name":      "ci-runner-7",
				"host.arch":      "amd64",
				"os.type":        "solaris",
				"os.name":        "OmniOS",
				"os.version":     "r151050h",
				"os.build_id":    "151050.8.2024.07.12",
				"os.description": "OmniOS Community Edition v11 r151050h",
			}),
		},
		{
			name: "nothing readable", root: "does-not-exist", files: linuxFiles, goos: "windows", goarch: "386",
			want: sdkAttrs(map[string]string{
				"service.name": "jobtrace",
				"host.name":    "ci-runner-7",
				"host.arch":    "x86",
				"os.type":      "windows",
			}),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := build(Options{SysRoot: filepath.Join("testdata", c.root)}, fakeSystem(c.files, c.goos, c.goarch))
			if got := attrMap(r.Attributes()); !reflect.DeepEqual(got, c.want) {
				t.Errorf("attributes\n got %v\nwant %v", got, c.want)
			}
			if r.SchemaURL() != semconv.SchemaURL {
				t.Errorf("schema URL %q, want %q", r.SchemaURL(), semconv.SchemaURL)
			}
		})
	}
}

func TestPrecedence(t *testing.T) {
	ci := cienv.Info{
		System:   cienv.Taskcluster,
		Project:  "widgets",
		HostType: "m5.large",
		Attrs: []attribute.KeyValue{
			semconv.CICDPipelineRunID("group-1"),
			semconv.VCSRepositoryName("widgets"),
		},
	}
	sys := fakeSystem(linuxFiles, "linux", "amd64")
	root := filepath.Join("testdata", "linux-metal")
	cases := []struct {
		name string
		opts Options
		want map[string]string // only the keys checked
	}{
		{
			name: "defaults",
			opts: Options{SysRoot: root},
			want: map[string]string{"service.name": "jobtrace", "host.type": "PowerEdge R650", "service.version": ""},
		},
		{
			name: "CI project and machine type",
			opts: Options{SysRoot: root, CI: ci, Version: "0.3.0"},
			want: map[string]string{
				"service.name": "widgets", "host.type": "m5.large", "service.version": "0.3.0",
				"cicd.pipeline.run.id": "group-1", "vcs.repository.name": "widgets",
			},
		},
		{
			name: "OTEL_RESOURCE_ATTRIBUTES beat detection and CI",
			opts: Options{SysRoot: root, CI: ci, Version: "0.3.0", Attributes: map[string]string{
				"service.name":                "from-env",
				"service.version":             "user-set",
				"host.id":                     "override",
				"cicd.pipeline.run.id":        "group-2",
				"deployment.environment.name": "ci",
				"":                            "dropped",
			}},
			want: map[string]string{
				"service.name": "from-env", "service.version": "user-set", "host.id": "override",
				"cicd.pipeline.run.id": "group-2", "deployment.environment.name": "ci",
			},
		},
		{
			name: "configured service name and host type win over everything",
			opts: Options{SysRoot: root, CI: ci, ServiceName: "configured", HostType: "big-box",
				Attributes: map[string]string{"service.name": "from-env"}},
			want: map[string]string{"service.name": "configured", "host.type": "big-box"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := attrMap(build(c.opts, sys).Attributes())
			if _, ok := got[""]; ok {
				t.Error("an attribute with an empty key was kept")
			}
			for k, want := range c.want {
				if got[k] != want {
					t.Errorf("%s = %q, want %q", k, got[k], want)
				}
			}
		})
	}
}

func TestHostnameErrorLeavesHostNameOut(t *testing.T) {
	sys := fakeSystem(linuxFiles, "linux", "amd64")
	sys.hostname = func() (string, error) { return "", errors.New("no uts") }
	if _, ok := attrMap(build(Options{SysRoot: "testdata/none"}, sys).Attributes())["host.name"]; ok {
		t.Error("host.name set although the hostname could not be read")
	}
}

func TestNewOnThisMachine(t *testing.T) {
	m := attrMap(New(Options{Version: "dev"}).Attributes())
	for _, k := range []string{"service.name", "service.version", "telemetry.sdk.version", "host.arch", "os.type"} {
		if m[k] == "" {
			t.Errorf("%s missing from %v", k, m)
		}
	}
}

func TestParseOSRelease(t *testing.T) {
	in := `# comment
NAME="Quoted \"Name\""
VERSION_ID=1.2
ID='single $quoted'
BAD LINE
NOEQUALS
BROKEN="unterminated
EMPTY=
 SPACED=" x "
`
	want := map[string]string{
		"NAME":       `Quoted "Name"`,
		"VERSION_ID": "1.2",
		"ID":         "single $quoted",
		"EMPTY":      "",
		"SPACED":     " x ",
	}
	if got := parseOSRelease([]byte(in)); !reflect.DeepEqual(got, want) {
		t.Errorf("parseOSRelease = %q, want %q", got, want)
	}
}

func TestParsePlistStrings(t *testing.T) {
	in := `<dict><key>A</key><string>1</string><key>N</key><integer>3</integer>
	<key>B</key>
	<string> 2 </string><key>C</key><string>unterminated`
	want := map[string]string{"A": "1", "B": "2"}
	if got := parsePlistStrings([]byte(in)); !reflect.DeepEqual(got, want) {
		t.Errorf("parsePlistStrings = %q, want %q", got, want)
	}
}

func TestParseMachineID(t *testing.T) {
	for in, want := range map[string]string{
		"4c4c4544004b4e1080345ac04f4e3933\n":     "4c4c4544004b4e1080345ac04f4e3933",
		"3d5a8c1e-6f0b-11ef-8a2b-0cc47a123456\n": "3d5a8c1e-6f0b-11ef-8a2b-0cc47a123456",
		"uninitialized\n":                        "",
		"00000000000000000000000000000000":       "",
		"":                                       "",
		"abc":                                    "",
		"4c4c4544 004b4e1080345ac04f4e3933":      "",
	} {
		if got := parseMachineID([]byte(in)); got != want {
			t.Errorf("parseMachineID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFromDMI(t *testing.T) {
	cases := []struct{ vendor, product, hostType, cloud string }{
		{"Amazon EC2", "m6i.large", "m6i.large", "aws"},
		{"Google", "Google Compute Engine", "", "gcp"},
		{"Alibaba Cloud", "Alibaba Cloud ECS", "", "alibaba_cloud"},
		{"Hetzner", "vServer", "vServer", "hetzner"},
		{"QEMU", "Standard PC (Q35 + ICH9, 2009)", "Standard PC (Q35 + ICH9, 2009)", ""},
		{"System manufacturer", "System Product Name", "", ""},
		{"Xen", "HVM domU", "", ""},
		{"", "", "", ""},
	}
	for _, c := range cases {
		ht, cloud := fromDMI(c.vendor, c.product)
		if ht != c.hostType || cloud != c.cloud {
			t.Errorf("fromDMI(%q, %q) = %q, %q; want %q, %q", c.vendor, c.product, ht, cloud, c.hostType, c.cloud)
		}
	}
}

func TestArchAndOSType(t *testing.T) {
	for goarch, want := range map[string]string{
		"amd64": "amd64", "arm64": "arm64", "arm": "arm32", "386": "x86",
		"ppc64le": "ppc64", "ppc64": "ppc64", "s390x": "s390x", "riscv64": "riscv64",
	} {
		if got := hostArch(goarch).Value.AsString(); got != want {
			t.Errorf("hostArch(%s) = %s, want %s", goarch, got, want)
		}
	}
	for goos, want := range map[string]string{
		"linux": "linux", "darwin": "darwin", "windows": "windows", "freebsd": "freebsd",
		"illumos": "solaris", "solaris": "solaris", "dragonfly": "dragonflybsd", "plan9": "plan9",
	} {
		if got := osType(goos).Value.AsString(); got != want {
			t.Errorf("osType(%s) = %s, want %s", goos, got, want)
		}
	}
}

// TestDocsListEveryAttribute checks that every key New emits by itself, over
// all fixtures, is in docs/resource.md, and that the CI keys are pointed to.
func TestDocsListEveryAttribute(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "resource.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := string(b)
	seen := map[string]bool{}
	for _, c := range []struct {
		root  string
		files platformFiles
	}{
		{"linux-metal", linuxFiles}, {"linux-ec2", linuxFiles}, {"linux-container", linuxFiles},
		{"darwin", darwinFiles}, {"freebsd", freebsdFiles}, {"illumos", otherFiles},
	} {
		r := build(Options{SysRoot: filepath.Join("testdata", c.root), Version: "1"}, fakeSystem(c.files, "linux", "amd64"))
		for k := range attrMap(r.Attributes()) {
			seen[k] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) < 15 {
		t.Fatalf("fixtures emit only %v", keys)
	}
	for _, k := range keys {
		if !strings.Contains(docs, "`"+k+"`") {
			t.Errorf("%s is emitted but docs/resource.md does not list it", k)
		}
	}
	for _, s := range []string{"ci.md", "OTEL_RESOURCE_ATTRIBUTES", "`cicd.*`", "`vcs.*`"} {
		if !strings.Contains(docs, s) {
			t.Errorf("docs/resource.md does not mention %s", s)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	ci := cienv.Info{Project: "widgets", Attrs: []attribute.KeyValue{semconv.CICDPipelineRunID("1")}}
	for _, root := range []string{"/", filepath.Join("testdata", "linux-metal")} {
		b.Run(strings.ReplaceAll(root, "/", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				New(Options{SysRoot: root, Version: "dev", CI: ci, Attributes: map[string]string{"team": "infra"}})
			}
		})
	}
}

// Text from the user (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME), the CI
// system and the host comes out valid UTF-8 without control characters.
func TestResourceTextIsCleaned(t *testing.T) {
	sys := fakeSystem(linuxFiles, "linux", "amd64")
	sys.hostname = func() (string, error) { return "host\x1b[2J", nil }
	r := build(Options{
		SysRoot:     "testdata/none",
		ServiceName: "svc\xff",
		Attributes:  map[string]string{"a": "\xff\xfe", "k\r\n": "v"},
		CI:          cienv.Info{Attrs: []attribute.KeyValue{attribute.String("vcs.ref.head.name", "main\x00")}},
	}, sys)
	m := attrMap(r.Attributes())
	for k, want := range map[string]string{
		"service.name": "svc\uFFFD", "a": "\uFFFD\uFFFD", "k\uFFFD\uFFFD": "v",
		"host.name": "host\uFFFD[2J", "vcs.ref.head.name": "main\uFFFD",
	} {
		if m[k] != want {
			t.Errorf("%s = %q, want %q", k, m[k], want)
		}
	}
}

// readFile reads a file whole up to maxFileSize, an empty one as empty
// (not absent), a missing one as nil.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), maxFileSize/16+100)
	for name, data := range map[string][]byte{"small": []byte("ID=debian\n"), "empty": {}, "big": big, "page": big[:4096]} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := data[:min(len(data), maxFileSize)]
		if got := readFile(dir, name); got == nil || !bytes.Equal(got, want) {
			t.Errorf("%s: read %d bytes, want %d", name, len(got), len(want))
		}
	}
	if got := readFile(dir, "missing"); got != nil {
		t.Errorf("missing: %q", got)
	}
}
