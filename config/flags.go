package config

import (
	"flag"
	"reflect"
	"strings"

	"github.com/jobtrace/jobtrace/exporters/otlp"
)

// Flags holds jobtrace's configuration flags as registered by BindFlags.
type Flags struct {
	fs      *flag.FlagSet
	config  *string
	text    map[string]*string // flag name → value, for jobtraceSettings
	bools   map[string]*bool
	otlp    map[string]*string // endpoint, protocol
	insec   *bool
	headers *headerList
	markers *string
}

// headerList collects the values of the repeatable --header flag.
type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ",") }
func (h *headerList) Set(s string) error { *h = append(*h, s); return nil }

// BindFlags registers jobtrace's configuration flags (including --config) on
// fs and returns a handle for Load. Only the flags the user actually set
// override the lower layers. Values are checked by Load, so that a bad one
// is reported like any other configuration error.
func BindFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{
		fs:      fs,
		text:    make(map[string]*string),
		bools:   make(map[string]*bool),
		otlp:    make(map[string]*string),
		headers: new(headerList),
	}
	f.config = fs.String("config", "", "configuration `file` (default $JOBTRACE_CONFIG, else ./jobtrace.yaml if it exists; \"\" for none)")
	d := Default()
	for _, s := range jobtraceSettings {
		if d.field(s.key).Kind() == reflect.Bool {
			f.bools[s.flag] = fs.Bool(s.flag, false, s.usage)
		} else {
			f.text[s.flag] = fs.String(s.flag, "", s.usage)
		}
	}
	f.otlp["endpoint"] = fs.String("endpoint", "", "OTLP collector `URL` (or host:port for grpc), as OTEL_EXPORTER_OTLP_ENDPOINT")
	f.otlp["protocol"] = fs.String("protocol", "", "OTLP `protocol`: grpc or http/protobuf (default http/protobuf)")
	f.insec = fs.Bool("insecure", false, "allow OTLP over gRPC without TLS")
	fs.Var(f.headers, "header", "OTLP request header `key=value` (repeatable; the value is taken literally)")
	f.markers = fs.String("markers", "", "marker syntaxes to scan output for: a comma `list` of phase, github, gitlab, or none (default all)")
	return f
}

// set returns the names of the flags that were set on the command line.
func (f *Flags) set() map[string]bool {
	set := make(map[string]bool)
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

// configFile returns the --config value and whether it was given.
func (f *Flags) configFile() (string, bool) {
	if f == nil || !f.set()["config"] {
		return "", false
	}
	return *f.config, true
}

// apply applies the flags that were set on top of c.
func (f *Flags) apply(c *Config) error {
	set := f.set()
	for _, s := range jobtraceSettings {
		if !set[s.flag] {
			continue
		}
		where := "--" + s.flag
		if b, ok := f.bools[s.flag]; ok {
			c.setField(s.key, *b)
		} else if err := c.setFromText(s.key, *f.text[s.flag]); err != nil {
			return errorf("%s: %v", where, err)
		}
		c.setOrigin(s.key, "flag", where)
	}
	if set["endpoint"] {
		c.setOTLPGeneral("endpoint", *f.otlp["endpoint"], "flag", "--endpoint")
	}
	if set["protocol"] {
		p, err := otlp.ParseProtocol(*f.otlp["protocol"])
		if err != nil {
			return errorf("--protocol: %v", err)
		}
		c.setOTLPGeneral("protocol", p, "flag", "--protocol")
	}
	if set["insecure"] {
		c.setOTLPGeneral("insecure", *f.insec, "flag", "--insecure")
	}
	if set["header"] {
		m := make(map[string]string)
		for _, h := range *f.headers {
			k, v, ok := strings.Cut(h, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return errorf("--header: %q is not key=value", h)
			}
			m[k] = v
		}
		c.setOTLPGeneral("headers", m, "flag", "--header")
	}
	if set["markers"] {
		if err := c.setMarkers(*f.markers, "flag", "--markers"); err != nil {
			return errorf("--markers: %v", err)
		}
	}
	return nil
}

var _ flag.Value = (*headerList)(nil)
