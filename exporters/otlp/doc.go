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
// Nothing here resolves or reads a setting again. The trace client and
// the metric exporter are jobtrace's own, built from the Endpoint alone:
// they read no OTEL_* variable and no file (OpenTelemetry's OTLP exporters
// read the OTEL_EXPORTER_OTLP_* variables, and the certificate files those
// name, whatever options they are given). An OTLP/HTTP protobuf request goes to
// the endpoint's URL exactly, query included, and follows no redirect; an
// OTLP/gRPC one is a unary gRPC call to its host and port, made with
// net/http's HTTP/2 client (grpc.go). Requests are pdata's protobuf; of an
// answer only the partial success is read (response.go). Neither retries: the forwarder
// (package exporters/forward) retries from the spool, so a dead collector
// never holds an upload in a retry loop; metrics are not spooled.
package otlp
