// Package otlp builds the official OTLP trace client and metric exporter
// from a config.Endpoint: the settings of one signal, resolved and checked
// by package config (endpoint URL, protocol, TLS configuration with its
// files already read, headers, timeout, compression).
//
// Nothing here resolves or reads a setting again. The OpenTelemetry clients
// also read the OTEL_EXPORTER_OTLP_* variables on their own when they are
// built; they are built with those variables hidden (see withoutOTLPEnv), so
// that what config decided is all they see. An http/protobuf request goes to
// the endpoint's URL exactly, query included, and follows no redirect. The
// clients' own retry is turned off; the forwarder (package exporters/forward)
// retries from the spool instead, so a dead collector never holds an upload
// in a retry loop.
package otlp
