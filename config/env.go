package config

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/exporters/otlp"
)

// otlpSettings are the settings that OTEL_EXPORTER_OTLP_<NAME> and its
// OTEL_EXPORTER_OTLP_{TRACES,METRICS}_<NAME> forms carry, besides the
// endpoints. key is the YAML key, both in otlp and in otlp.traces and
// otlp.metrics.
var otlpSettings = []struct {
	env, key string
	parse    func(string) (any, error)
}{
	{"PROTOCOL", "protocol", func(s string) (any, error) { return otlp.ParseProtocol(s) }},
	{"HEADERS", "headers", func(s string) (any, error) { return parseKeyValues(s) }},
	{"INSECURE", "insecure", func(s string) (any, error) { return parseOTELBool(s) }},
	{"CERTIFICATE", "certificate", parseString},
	{"CLIENT_KEY", "client_key", parseString},
	{"CLIENT_CERTIFICATE", "client_certificate", parseString},
	{"TIMEOUT", "timeout", parseMillis},
	{"COMPRESSION", "compression", func(s string) (any, error) { return otlp.ParseCompression(s) }},
}

// applyOTELEnv applies the standard OpenTelemetry variables on top of c.
//
// A general OTEL_EXPORTER_OTLP_* variable also clears what the file said for
// the same setting of one signal, so that each layer beats the ones below it
// as a whole; within the environment the signal-specific variable wins, as
// the specification says.
func applyOTELEnv(getenv func(string) string, c *Config) error {
	set := func(name, key string, v any) {
		c.setField(key, v)
		c.setOrigin(key, "env", name)
	}
	if v := getenv("OTEL_SERVICE_NAME"); v != "" {
		set("OTEL_SERVICE_NAME", "service_name", v)
	}
	if v := getenv("OTEL_RESOURCE_ATTRIBUTES"); v != "" {
		m, err := parseKeyValues(v)
		if err != nil {
			return errorf("OTEL_RESOURCE_ATTRIBUTES: %v", err)
		}
		set("OTEL_RESOURCE_ATTRIBUTES", "resource_attributes", m)
	}
	if v := getenv("OTEL_SDK_DISABLED"); v != "" {
		b, err := parseOTELBool(v)
		if err != nil {
			return errorf("OTEL_SDK_DISABLED: %v", err)
		}
		set("OTEL_SDK_DISABLED", "sdk_disabled", b)
	}

	// OTLP is jobtrace's only exporter; "none" turns a signal off (a trace
	// backend such as Jaeger takes no metrics).
	for _, e := range []struct{ env, key string }{
		{"OTEL_TRACES_EXPORTER", "traces_exporter"}, {"OTEL_METRICS_EXPORTER", "metrics_exporter"},
	} {
		if raw := getenv(e.env); raw != "" {
			v, err := otlp.ParseExporter(raw)
			if err != nil {
				return errorf("%s: %v", e.env, err)
			}
			set(e.env, e.key, v)
		}
	}

	const prefix = "OTEL_EXPORTER_OTLP_"
	if v := getenv(prefix + "ENDPOINT"); v != "" {
		c.setOTLPGeneral("endpoint", v, "env", prefix+"ENDPOINT")
	}
	for _, m := range []struct {
		env, key string
		parse    func(string) (string, error)
	}{
		{"METRICS_TEMPORALITY_PREFERENCE", "metrics_temporality_preference", otlp.ParseTemporality},
		{"METRICS_DEFAULT_HISTOGRAM_AGGREGATION", "metrics_default_histogram_aggregation", otlp.ParseHistogram},
	} {
		if raw := getenv(prefix + m.env); raw != "" {
			v, err := m.parse(raw)
			if err != nil {
				return errorf("%s: %v", prefix+m.env, err)
			}
			set(prefix+m.env, "otlp."+m.key, v)
		}
	}
	for _, s := range otlpSettings {
		name := prefix + s.env
		if raw := getenv(name); raw != "" {
			v, err := s.parse(raw)
			if err != nil {
				return errorf("%s: %v", name, err)
			}
			c.setOTLPGeneral(s.key, v, "env", name)
		}
	}
	for _, sig := range []string{"TRACES", "METRICS"} {
		lower := strings.ToLower(sig)
		name := prefix + sig + "_ENDPOINT"
		if v := getenv(name); v != "" {
			set(name, "otlp."+lower+"_endpoint", v)
		}
		for _, s := range otlpSettings {
			name := prefix + sig + "_" + s.env
			if raw := getenv(name); raw != "" {
				v, err := s.parse(raw)
				if err != nil {
					return errorf("%s: %v", name, err)
				}
				set(name, "otlp."+lower+"."+s.key, v)
			}
		}
	}
	return nil
}

// jobtraceSettings are jobtrace's own single-valued settings: their YAML key,
// JOBTRACE_* variable and flag. Their values parse by the Go type of the
// field.
var jobtraceSettings = []struct {
	key, env, flag, usage string
}{
	{"out", "JOBTRACE_OUT", "out", "`dir`ectory for local artifacts (default jobtrace-out)"},
	{"log", "JOBTRACE_LOG", "log", "`file` for jobtrace's own messages (default stderr)"},
	{"name", "JOBTRACE_NAME", "name", "the job's `name` (default: derived from the CI system or the command)"},
	{"export_timeout", "JOBTRACE_EXPORT_TIMEOUT", "export-timeout", "the most a slow or dead collector may delay the end of the job (`duration`, default 3s)"},
	{"grace_period", "JOBTRACE_GRACE_PERIOD", "grace-period", "time from a forwarded SIGTERM/SIGINT to SIGKILL of the job (`duration`, default 10s)"},
	{"record_args", "JOBTRACE_RECORD_ARGS", "record-args", "record the job's full command line, not only argv[0]"},
	{"host_type", "JOBTRACE_HOST_TYPE", "host-type", "machine or instance `type`, such as c5.xlarge"},
	{"trace_id_from_ci", "JOBTRACE_TRACE_ID_FROM_CI", "trace-id-from-ci", "derive the trace id from the CI run, as the Collector's GitHub receiver does"},
	{"summary", "JOBTRACE_SUMMARY", "summary", "end-of-job summary: off, text or markdown (`format`, default text)"},
	{"prometheus_listen", "JOBTRACE_PROMETHEUS_LISTEN", "prometheus-listen", "serve the metrics for Prometheus at http://`addr`/metrics while the job runs (host:port; default: not served)"},
	{"sampling.interval", "JOBTRACE_INTERVAL", "interval", "time between resource samples; 0 turns sampling off (`duration`, default 1s)"},
	{"sampling.cgroup", "JOBTRACE_CGROUP", "cgroup", "auto: run the job in a cgroup v2 of its own where permitted; off (`mode`, default auto)"},
	{"sampling.proc_root", "JOBTRACE_PROC_ROOT", "proc-root", "where the host's /proc is mounted (`dir`, default /proc)"},
	{"sampling.sys_root", "JOBTRACE_SYS_ROOT", "sys-root", "where the host's /sys is mounted (`dir`, default /sys)"},
}

// applyJobtraceEnv applies the JOBTRACE_* variables on top of c.
func applyJobtraceEnv(getenv func(string) string, c *Config) error {
	for _, s := range jobtraceSettings {
		raw := getenv(s.env)
		if raw == "" {
			continue
		}
		if err := c.setFromText(s.key, raw); err != nil {
			return errorf("%s: %v", s.env, err)
		}
		c.setOrigin(s.key, "env", s.env)
	}
	if raw := getenv("JOBTRACE_MARKERS"); raw != "" {
		if err := c.setMarkers(raw, "env", "JOBTRACE_MARKERS"); err != nil {
			return errorf("JOBTRACE_MARKERS: %v", err)
		}
	}
	return nil
}

// setMarkers enables exactly the marker syntaxes in the comma-separated
// list; "none" disables them all.
func (c *Config) setMarkers(list, kind, where string) error {
	var on = map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch name {
		case "":
		case MarkerPhase, MarkerGitHub, MarkerGitLab, "none":
			on[name] = true
		default:
			return fmt.Errorf("%q is not a marker syntax (phase, github, gitlab or none)", name)
		}
	}
	if on["none"] && len(on) > 1 {
		return fmt.Errorf("%q names syntaxes and none", list)
	}
	c.Markers.Phase, c.Markers.GitHub, c.Markers.GitLab = on[MarkerPhase], on[MarkerGitHub], on[MarkerGitLab]
	for _, k := range []string{"markers.phase", "markers.github", "markers.gitlab"} {
		c.setOrigin(k, kind, where)
	}
	return nil
}

// setOTLPGeneral sets the general OTLP setting key. It drops the
// signal-specific values of the lower layers, so that the general setting
// of a higher layer wins for every signal.
func (c *Config) setOTLPGeneral(key string, v any, kind, where string) {
	c.setField("otlp."+key, v)
	c.setOrigin("otlp."+key, kind, where)
	var specific []string
	if key == "endpoint" {
		specific = []string{"otlp.traces_endpoint", "otlp.metrics_endpoint"}
	} else {
		specific = []string{"otlp.traces." + key, "otlp.metrics." + key}
	}
	for _, k := range specific {
		if f := c.field(k); !f.IsZero() {
			f.SetZero()
			c.setOrigin(k, kind, where)
		}
	}
}

// field returns the settable field of c at the dotted YAML key.
func (c *Config) field(key string) reflect.Value {
	v := reflect.ValueOf(c).Elem()
	for _, part := range strings.Split(key, ".") {
		f, ok := fieldByKey(v, part)
		if !ok {
			panic("config: no key " + key)
		}
		v = f
	}
	return v
}

// setField sets the field at key to v. A map is merged into the map that is
// there, key by key; a pointer field gets a pointer to v.
func (c *Config) setField(key string, v any) {
	f := c.field(key)
	switch f.Kind() {
	case reflect.Map:
		m := make(map[string]string)
		for it := f.MapRange(); it.Next(); {
			m[it.Key().String()] = it.Value().String()
		}
		for k, x := range v.(map[string]string) {
			m[k] = x
		}
		f.Set(reflect.ValueOf(m))
	case reflect.Pointer:
		p := reflect.New(f.Type().Elem())
		p.Elem().Set(reflect.ValueOf(v))
		f.Set(p)
	default:
		f.Set(reflect.ValueOf(v).Convert(f.Type()))
	}
}

// setFromText sets the string, bool or duration field at key from text.
func (c *Config) setFromText(key, text string) error {
	f := c.field(key)
	switch {
	case f.Type() == durationType:
		d, err := time.ParseDuration(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("%q is not a duration (like 3s or 500ms)", text)
		}
		f.SetInt(int64(d))
	case f.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("%q is not true or false", text)
		}
		f.SetBool(b)
	case f.Kind() == reflect.String:
		f.SetString(text)
	default:
		panic("config: setFromText on " + key)
	}
	return nil
}

func parseString(s string) (any, error) { return s, nil }

// parseMillis parses an OTEL_EXPORTER_OTLP_*TIMEOUT, which the
// specification gives as an integer number of milliseconds.
func parseMillis(s string) (any, error) {
	ms, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || ms < 0 || ms > int64(time.Duration(1<<63-1)/time.Millisecond) {
		return nil, fmt.Errorf("%q is not a number of milliseconds", s)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// parseOTELBool parses a boolean OTEL_* variable. The specification makes
// only "true" (in any case) true and everything else false with a warning;
// jobtrace refuses anything but true and false, so that a typo such as
// OTEL_SDK_DISABLED=1 does not silently mean the opposite of what it says.
func parseOTELBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false", s)
}

// parseKeyValues parses the key=value,key2=value2 lists of
// OTEL_RESOURCE_ATTRIBUTES and OTEL_EXPORTER_OTLP_HEADERS. Keys and values
// are trimmed of spaces, and values are percent-decoded, as the W3C Baggage
// format they borrow says; empty items are skipped.
func parseKeyValues(s string) (map[string]string, error) {
	m := make(map[string]string)
	for _, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value", item)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("the value of %q has a bad percent-escape", k)
		}
		m[k] = dv
	}
	return m, nil
}
