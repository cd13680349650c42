// Package otlp holds jobtrace's OTLP export: the one resolver of its
// settings, and the official OTLP trace client and metric exporter built
// from what it resolved.
//
// Resolve turns Settings (the OTEL_EXPORTER_OTLP_* variables and the otlp
// section of jobtrace.yaml, starting from DefaultSettings, where every
// default is written) into an Endpoint per exported signal: URL, protocol,
// TLS configuration with its files already read, headers, timeout,
// compression, and for metrics the temporality and histogram aggregation.
// jobtrace's configuration is validated by it, so every command accepts and
// refuses the same settings.
//
// Nothing here resolves or reads a setting again. The OpenTelemetry clients
// also read the OTEL_EXPORTER_OTLP_* variables on their own when they are
// built; they are built with those variables hidden (see withoutOTLPEnv)
// and with every setting given as an option, so that what Resolve decided
// is all they see. An http/protobuf request goes to the endpoint's URL
// exactly, query included, and follows no redirect. The clients' own retry
// is turned off; the forwarder (package exporters/forward) retries from the
// spool instead, so a dead collector never holds an upload in a retry loop.
package otlp
