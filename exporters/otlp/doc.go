// Package otlp holds jobtrace's OTLP export: the one resolver of its
// settings, and the trace client and metric exporter built from what it
// resolved.
//
// Resolve turns Settings (the OTEL_EXPORTER_OTLP_* variables and the otlp
// section of jobtrace.yaml, starting from DefaultSettings, where every
// default is written) into an Endpoint per exported signal: URL, protocol,
// TLS configuration with its files already read, headers, timeout,
// compression, and for metrics the temporality and histogram aggregation.
// jobtrace's configuration is validated by it, so every command accepts and
// refuses the same settings.
//
// Nothing here resolves or reads a setting again. The trace client is
// jobtrace's own, built from the Endpoint alone: an OTLP/HTTP protobuf
// request goes to the endpoint's URL exactly, query included, and follows
// no redirect; an OTLP/gRPC one goes to its host and port. The metric
// exporter is OpenTelemetry's, which also reads the OTEL_EXPORTER_OTLP_*
// variables on its own when it is built: it is built with those variables
// hidden (see withoutOTLPEnv) and with every setting given as an option, so
// that what Resolve decided is all it sees. Neither retries: the forwarder
// (package exporters/forward) retries from the spool, so a dead collector
// never holds an upload in a retry loop.
package otlp
