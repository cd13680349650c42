// Package otlp builds the official OTLP trace client and metric exporter from
// jobtrace's settings.
//
// Every value the settings hold is passed to the client as an explicit
// option, so it wins over the OTEL_EXPORTER_OTLP_* variables the OTel
// clients also read on their own: jobtrace's config has already merged those
// variables with its file and flags, in its own order. The clients' own retry
// is turned off; the forwarder (package exporters/forward) retries from the
// spool instead, so a dead collector never holds an upload in a retry loop.
//
// Endpoints follow the OTLP exporter specification
// (https://opentelemetry.io/docs/specs/otel/protocol/exporter/):
// Endpoint is a base URL to which http/protobuf appends /v1/traces or
// /v1/metrics, TracesEndpoint and MetricsEndpoint are used as they are, an
// http:// scheme means plain text and https:// means TLS. A bare host:port is
// accepted too; it uses TLS unless Insecure is set.
package otlp
