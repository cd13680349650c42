package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/markerdir"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/scan"
	"github.com/jobtrace/jobtrace/spans/socket"
)

// ErrConfig is wrapped by every error of this package.
var ErrConfig = errors.New("config")

// Marker syntaxes that can be named in JOBTRACE_MARKERS and --markers.
const (
	MarkerPhase  = "phase"
	MarkerGitHub = "github"
	MarkerGitLab = "gitlab"
)

// Config is jobtrace's effective configuration. The yaml tags are the keys of
// jobtrace.yaml; docs/configuration.md documents each of them.
type Config struct {
	// ServiceName is service.name. Empty means that the caller picks one:
	// from the CI system if it can tell, else "jobtrace".
	ServiceName string `yaml:"service_name"`
	// Out is the directory for local artifacts.
	Out string `yaml:"out"`
	// Log is the file for jobtrace's own messages; empty means stderr.
	Log string `yaml:"log"`
	// Name is the job's name; empty means that the caller derives one.
	Name string `yaml:"name"`
	// ExportTimeout is the most that a dead or slow collector may delay the
	// end of a job.
	ExportTimeout time.Duration `yaml:"export_timeout"`
	// GracePeriod is the time between forwarding SIGTERM or SIGINT to the
	// job's process group and sending it SIGKILL.
	GracePeriod time.Duration `yaml:"grace_period"`
	// RecordArgs records the job's full command line; otherwise only argv[0]
	// is recorded, since arguments often carry secrets.
	RecordArgs bool `yaml:"record_args"`
	// HostType is the machine or instance type, such as "c5.xlarge".
	HostType string `yaml:"host_type"`
	// TraceIDFromCI derives the trace id from the CI run the way the
	// Collector's GitHub receiver does, so both land in the same trace.
	TraceIDFromCI bool `yaml:"trace_id_from_ci"`
	// SDKDisabled turns OpenTelemetry export off; local artifacts are still
	// written.
	SDKDisabled bool `yaml:"sdk_disabled"`
	// TracesExporter and MetricsExporter are otlp.ExporterOTLP or
	// otlp.ExporterNone, which turns that signal's export off.
	TracesExporter  string `yaml:"traces_exporter"`
	MetricsExporter string `yaml:"metrics_exporter"`
	// ResourceAttributes are added to the resource.
	ResourceAttributes map[string]string `yaml:"resource_attributes"`

	// Summary is how the end-of-job summary is written: off, text (on
	// stderr, and as Markdown to $GITHUB_STEP_SUMMARY when it is set) or
	// markdown (on stderr too).
	Summary string `yaml:"summary"`

	// PrometheusListen is the host:port where `jobtrace run` serves the
	// metrics for Prometheus to scrape at /metrics; empty means not served.
	// An address that cannot be listened on is a warning, not an error:
	// the job runs all the same.
	PrometheusListen string `yaml:"prometheus_listen"`

	// OTLP is the OTLP export, resolved and checked by package
	// exporters/otlp (see Export).
	OTLP     otlp.Settings `yaml:"otlp"`
	Markers  Markers       `yaml:"markers"`
	Limits   Limits        `yaml:"limits"`
	Sampling Sampling      `yaml:"sampling"`

	// origins says where each key's value came from; see Source.
	origins map[string]origin
	// export is the resolved OTLP export; see Export.
	export otlp.Export
}

// Markers selects the sources of phases and events.
type Markers struct {
	// Phase scans output for BEGIN_PHASE / END_PHASE lines.
	Phase bool `yaml:"phase"`
	// GitHub scans output for ::group:: / ::endgroup:: lines.
	GitHub bool `yaml:"github"`
	// GitLab scans output for section_start: / section_end: lines.
	GitLab bool `yaml:"gitlab"`
	// Socket serves JOBTRACE_SOCKET.
	Socket bool `yaml:"socket"`
	// MarkerDir reads JOBTRACE_MARKER_DIR.
	MarkerDir bool `yaml:"marker_dir"`
	// Patterns turn matching output lines into events and counters.
	Patterns []Pattern `yaml:"patterns"`
}

// Pattern turns each output line that matches Regex into an event, and adds
// one to Counter if it is set.
type Pattern struct {
	Regex string `yaml:"regex"`
	// Event is the event's name; Load sets it to Regex when it is empty.
	Event   string `yaml:"event"`
	Counter string `yaml:"counter,omitempty"`
}

// Limits bound what jobtrace holds for untrusted input.
type Limits struct {
	// MaxLineBytes: longer output lines pass through but are not scanned.
	MaxLineBytes int `yaml:"max_line_bytes"`
	// MaxMessageBytes bounds one socket or marker-dir message.
	MaxMessageBytes int `yaml:"max_message_bytes"`
	// MaxMarkerFiles bounds the files read from the marker dir.
	MaxMarkerFiles int `yaml:"max_marker_files"`
	// MaxOpenPhases bounds the phases open at once.
	MaxOpenPhases int `yaml:"max_open_phases"`
	// MaxSocketConns bounds the socket's concurrent connections.
	MaxSocketConns int `yaml:"max_socket_conns"`
}

// Summary formats.
const (
	SummaryOff      = "off"
	SummaryText     = "text"
	SummaryMarkdown = "markdown"
)

// Cgroup modes.
const (
	CgroupAuto = "auto"
	CgroupOff  = "off"
)

// MinInterval is the shortest sampling interval accepted.
const MinInterval = hostmetrics.MinInterval

// Sampling configures resource sampling.
type Sampling struct {
	// Interval is the time between two samples; samples are also taken at
	// every phase boundary. 0 turns resource sampling off.
	Interval time.Duration `yaml:"interval"`
	// Cgroup is auto (make a cgroup v2 for the job where permitted, else
	// read the one jobtrace is in) or off.
	Cgroup string `yaml:"cgroup"`
	// ProcRoot and SysRoot are where the host's /proc and /sys are
	// mounted, such as /host/proc inside a container.
	ProcRoot string `yaml:"proc_root"`
	SysRoot  string `yaml:"sys_root"`
}

// Default returns the first layer of the configuration.
func Default() Config {
	return Config{
		Out:             "jobtrace-out",
		ExportTimeout:   3 * time.Second,
		GracePeriod:     10 * time.Second,
		TracesExporter:  otlp.ExporterOTLP,
		MetricsExporter: otlp.ExporterOTLP,
		OTLP:            otlp.DefaultSettings(),
		Summary:         SummaryText,
		Sampling:        Sampling{Interval: hostmetrics.DefaultInterval, Cgroup: CgroupAuto, ProcRoot: hostmetrics.DefaultProcRoot, SysRoot: hostmetrics.DefaultSysRoot},
		Markers:         Markers{Phase: true, GitHub: true, GitLab: true, Socket: true, MarkerDir: true},
		// Each bound is the default of the package that keeps it.
		Limits: Limits{
			MaxLineBytes:    scan.DefaultMaxLineBytes,
			MaxMessageBytes: protocol.DefaultMaxMessageBytes,
			MaxMarkerFiles:  markerdir.DefaultMaxFiles,
			MaxOpenPhases:   spans.DefaultMaxOpenPhases,
			MaxSocketConns:  socket.DefaultMaxConns,
		},
	}
}

// Source says where the value of key (a dotted YAML key such as "out" or
// "otlp.endpoint") came from: "default", "file", "env" or "flag". It returns
// "" for a key that Config does not have.
func (c Config) Source(key string) string {
	if o, ok := c.origins[key]; ok {
		return o.kind
	}
	if _, ok := yamlKeySet()[listIndex().ReplaceAllString(key, "")]; ok {
		return "default"
	}
	return ""
}

// origin is where one value came from: kind is "file", "env" or "flag";
// where is "path:line", the variable or the flag, for messages.
type origin struct {
	kind, where string
}

// Validate checks the configuration as a whole and returns the first
// problem, naming its key.
func (c Config) Validate() error {
	if err := c.validate(); err != nil {
		return err
	}
	return nil
}

// fieldError is a bad value of one key; Load puts the value's origin in
// front of it.
type fieldError struct {
	key, msg string
	// at, if set, is a more precise key to look the origin up by, such as
	// the entry of a map.
	at string
}

func (e *fieldError) Error() string { return e.key + ": " + e.msg }
func (e *fieldError) Unwrap() error { return ErrConfig }

func bad(key, format string, args ...any) *fieldError {
	return &fieldError{key: key, msg: fmt.Sprintf(format, args...)}
}

// counterName is the OpenTelemetry instrument name syntax.
var counterName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_./-]{0,254}$`) })

func (c Config) validate() *fieldError {
	if c.Out == "" {
		return bad("out", "must not be empty")
	}
	if c.ExportTimeout <= 0 {
		return bad("export_timeout", "must be positive, not %v", c.ExportTimeout)
	}
	if c.GracePeriod < 0 {
		return bad("grace_period", "must not be negative, not %v", c.GracePeriod)
	}
	for _, k := range sortedKeys(c.ResourceAttributes) {
		if strings.TrimSpace(k) == "" {
			fe := bad("resource_attributes", "has an empty key")
			fe.at = "resource_attributes[" + k + "]"
			return fe
		}
	}
	for _, e := range []struct{ key, v string }{{"traces_exporter", c.TracesExporter}, {"metrics_exporter", c.MetricsExporter}} {
		if why := otlp.CheckExporter(e.v); why != "" {
			return bad(e.key, "%q %s", e.v, why)
		}
	}
	if err := c.OTLP.Check(); err != nil {
		return otlpError(err)
	}
	switch c.Summary {
	case SummaryOff, SummaryText, SummaryMarkdown:
	default:
		return bad("summary", "%q is not off, text or markdown", c.Summary)
	}
	switch c.Sampling.Cgroup {
	case CgroupAuto, CgroupOff:
	default:
		return bad("sampling.cgroup", "%q is not auto or off", c.Sampling.Cgroup)
	}
	if iv := c.Sampling.Interval; iv != 0 && iv < MinInterval {
		return bad("sampling.interval", "must be 0 (off) or at least %v, not %v", MinInterval, iv)
	}
	if c.Sampling.ProcRoot == "" {
		return bad("sampling.proc_root", "must not be empty")
	}
	for i, p := range c.Markers.Patterns {
		key := fmt.Sprintf("markers.patterns[%d]", i)
		if p.Regex == "" {
			return bad(key+".regex", "is missing")
		}
		if _, err := regexp.Compile(p.Regex); err != nil {
			return bad(key+".regex", "%q does not compile: %s", p.Regex, regexpReason(err))
		}
		if p.Counter != "" && !counterName().MatchString(p.Counter) {
			return bad(key+".counter", "%q is not a metric name (a letter, then letters, digits, _ . / -)", p.Counter)
		}
	}
	limits := []struct {
		key string
		v   int
	}{
		{"limits.max_line_bytes", c.Limits.MaxLineBytes},
		{"limits.max_message_bytes", c.Limits.MaxMessageBytes},
		{"limits.max_marker_files", c.Limits.MaxMarkerFiles},
		{"limits.max_open_phases", c.Limits.MaxOpenPhases},
		{"limits.max_socket_conns", c.Limits.MaxSocketConns},
	}
	for _, l := range limits {
		if l.v <= 0 {
			return bad(l.key, "must be a positive integer, not %d", l.v)
		}
	}
	return nil
}

// regexpReason is the part of a regexp error after its "error parsing
// regexp: " prefix.
func regexpReason(err error) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, "error parsing regexp: "); ok {
		return after
	}
	return msg
}

// controlChars finds a setting (a string of v, at key) holding a control
// character other than tab: no path, address, endpoint or pattern has one,
// and a file cannot say it back as itself (free text is cleaned before, see
// cleanText).
func controlChars(v reflect.Value, key string) *fieldError {
	join := func(k string) string {
		if key == "" {
			return k
		}
		return key + "." + k
	}
	hasControl := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return r != '\t' && unicode.IsControl(r) })
	}
	switch v.Kind() {
	case reflect.String:
		if hasControl(v.String()) {
			return bad(key, "holds a control character (a line break, an escape)")
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			sub := key
			if name != "" && name != "-" {
				sub = join(name)
			}
			if fe := controlChars(v.Field(i), sub); fe != nil {
				return fe
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			if k.Kind() == reflect.String && hasControl(k.String()) {
				return bad(key, "has a key holding a control character (a line break, an escape)")
			}
			if fe := controlChars(iter.Value(), key); fe != nil {
				fe.at = key + "[" + k.String() + "]"
				return fe
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if fe := controlChars(v.Index(i), fmt.Sprintf("%s[%d]", key, i)); fe != nil {
				return fe
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return controlChars(v.Elem(), key)
		}
	}
	return nil
}
