package spans

import (
	"context"
	"sort"
	"strings"

	"go.opentelemetry.io/contrib/propagators/envcar"
	"go.opentelemetry.io/otel/propagation"
)

// propagator is the propagator jobtrace uses for environment carriers: W3C
// trace context and W3C baggage.
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// EnvKeys returns the environment variables that carry context to and
// from a job.
func EnvKeys() []string { return []string{"TRACEPARENT", "TRACESTATE", "BAGGAGE"} }

// envGetter adapts a getenv function to a propagation.TextMapCarrier, so
// tests can fake the environment. Keys are normalized as the specification
// for environment carriers says: upper case.
type envGetter func(string) string

func (g envGetter) Get(key string) string { return g(strings.ToUpper(key)) }
func (envGetter) Set(string, string)      {}
func (g envGetter) Keys() []string        { return EnvKeys() }

// ExtractEnv returns ctx carrying the span context and baggage found in
// TRACEPARENT, TRACESTATE and BAGGAGE as read by getenv. Invalid values are
// ignored, as the W3C specification requires.
func ExtractEnv(ctx context.Context, getenv func(string) string) context.Context {
	return propagator.Extract(ctx, envGetter(getenv))
}

// InjectEnv returns the context of ctx as environment variables
// ("TRACEPARENT=...", ...), for a child process.
func InjectEnv(ctx context.Context) map[string]string {
	out := map[string]string{}
	c := envcar.Carrier{SetEnvFunc: func(k, v string) { out[k] = v }}
	propagator.Inject(ctx, &c)
	return out
}

// MergeEnv returns base with every variable of set replaced or added, and
// every variable named in unset removed. Order of base is kept; added
// variables come last, sorted.
func MergeEnv(base []string, set map[string]string, unset ...string) []string {
	drop := map[string]bool{}
	for _, k := range unset {
		drop[k] = true
	}
	for k := range set {
		drop[k] = true
	}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+set[k])
	}
	return out
}
