// Package telemetry holds jobtrace's OpenTelemetry pipeline: a tracer
// provider whose every span is spooled to a local file, the forwarder that
// sends the spool to a collector, a meter provider with its OTLP and
// Prometheus readers, and the lock of the artifacts directory.
package telemetry
