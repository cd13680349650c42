package resource

import (
	"os"
	"runtime"
	"sort"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/agent/cienv"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/redact"
)

// DefaultServiceName is service.name when neither the configuration nor the
// CI system gives one.
const DefaultServiceName = "jobtrace"

// Options are the inputs of New. The zero value is usable: it describes the
// host jobtrace runs on, reading files under /.
type Options struct {
	// ServiceName is the configured service name (flag, JOBTRACE_* or
	// OTEL_SERVICE_NAME). Empty means: service.name from Attributes, else the
	// CI project, else DefaultServiceName.
	ServiceName string
	// Version is jobtrace's own version, exported as service.version.
	Version string
	// HostType is the configured host.type. Empty means: the CI system's
	// machine type, else the DMI product name (Linux).
	HostType string
	// Attributes are the user's resource attributes, OTEL_RESOURCE_ATTRIBUTES
	// already parsed. They override everything New detects, except
	// service.name when ServiceName is set.
	Attributes map[string]string
	// CI is the detected CI system; its attributes are added as they are.
	CI cienv.Info
	// SysRoot is the directory the host's files are read under: "/" in
	// production, a testdata tree in tests. Empty means "/".
	SysRoot string
}

// New returns the resource for jobtrace's telemetry. It never fails: what
// cannot be read is left out. Precedence, lowest first: detected host and OS
// attributes and the telemetry SDK, CI attributes, service.version,
// Attributes, then service.name as described on Options.
func New(opts Options) *sdkresource.Resource {
	return build(opts, system{
		files:    platform,
		goos:     runtime.GOOS,
		goarch:   runtime.GOARCH,
		hostname: os.Hostname,
		release:  kernelRelease,
	})
}

// system is what New takes from the running system; tests substitute it.
type system struct {
	files        platformFiles
	goos, goarch string
	hostname     func() (string, error)
	// release, when not nil, is the running kernel's release (uname(2)),
	// what files.kernelRelease holds, for a system read under "/".
	release func() string
}

func build(opts Options, sys system) *sdkresource.Resource {
	root := opts.SysRoot
	if root == "" {
		root = "/"
	}
	host := readHost(root, sys.files, sys.release)

	kv := make([]attribute.KeyValue, 0, 24+len(opts.CI.Attrs)+len(opts.Attributes))
	kv = append(kv,
		semconv.TelemetrySDKName("opentelemetry"),
		semconv.TelemetrySDKLanguageGo,
		semconv.TelemetrySDKVersion(sdk.Version()),
	)
	if name, err := sys.hostname(); err == nil && name != "" {
		kv = append(kv, semconv.HostName(name))
	}
	kv = append(kv, hostArch(sys.goarch), osType(sys.goos))
	kv = append(kv, host.attrs()...)

	hostType := opts.HostType
	if hostType == "" {
		hostType = opts.CI.HostType
	}
	if hostType == "" {
		hostType = host.dmiHostType
	}
	if hostType != "" {
		kv = append(kv, semconv.HostType(hostType))
	}

	kv = append(kv, opts.CI.Attrs...)
	if opts.Version != "" {
		kv = append(kv, semconv.ServiceVersion(opts.Version))
	}

	keys := make([]string, 0, len(opts.Attributes))
	for k := range opts.Attributes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "" {
			// A URL given as an attribute keeps no credentials.
			kv = append(kv, attribute.String(k, redact.String(opts.Attributes[k])))
		}
	}

	switch {
	case opts.ServiceName != "":
		kv = append(kv, semconv.ServiceName(opts.ServiceName))
	case opts.Attributes[string(semconv.ServiceNameKey)] != "":
		// Already in kv from Attributes.
	case opts.CI.Project != "":
		kv = append(kv, semconv.ServiceName(opts.CI.Project))
	default:
		kv = append(kv, semconv.ServiceName(DefaultServiceName))
	}

	// Every key and value comes from the user, the CI system or the host's
	// files: one invalid byte would make every span unexportable, a control
	// character would reach terminals and reports (cleantext).
	cleantext.Attrs(kv)
	// attribute.NewSet, under NewWithAttributes, keeps the last value given
	// for a key, which is what makes the order above the precedence.
	return sdkresource.NewWithAttributes(semconv.SchemaURL, kv...)
}

// hostArch maps GOARCH to the host.arch values semconv defines; other
// architectures keep their Go name.
func hostArch(goarch string) attribute.KeyValue {
	switch goarch {
	case "amd64":
		return semconv.HostArchAMD64
	case "arm64":
		return semconv.HostArchARM64
	case "arm":
		return semconv.HostArchARM32
	case "386":
		return semconv.HostArchX86
	case "ppc64", "ppc64le":
		return semconv.HostArchPPC64
	case "ppc":
		return semconv.HostArchPPC32
	case "s390x":
		return semconv.HostArchS390x
	}
	return semconv.HostArchKey.String(goarch)
}

// osType maps GOOS to the os.type values semconv defines. illumos is
// reported as solaris, the family semconv names; os.name tells the
// distribution apart.
func osType(goos string) attribute.KeyValue {
	switch goos {
	case "linux":
		return semconv.OSTypeLinux
	case "darwin", "ios":
		return semconv.OSTypeDarwin
	case "windows":
		return semconv.OSTypeWindows
	case "freebsd":
		return semconv.OSTypeFreeBSD
	case "netbsd":
		return semconv.OSTypeNetBSD
	case "openbsd":
		return semconv.OSTypeOpenBSD
	case "dragonfly":
		return semconv.OSTypeDragonflyBSD
	case "illumos", "solaris":
		return semconv.OSTypeSolaris
	case "aix":
		return semconv.OSTypeAIX
	case "zos":
		return semconv.OSTypeZOS
	}
	return semconv.OSTypeKey.String(goos)
}
