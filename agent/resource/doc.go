// Package resource builds the OpenTelemetry resource that describes
// jobtrace's telemetry: the service (jobtrace or the project it builds), the
// host, the operating system and the CI run.
//
// New reads a handful of small files under a root directory (/ in
// production, a fixture tree in tests): /etc/os-release, the kernel release,
// the DMI product name and vendor, and /etc/machine-id. It does no network
// I/O, runs no commands and does not read OTEL_RESOURCE_ATTRIBUTES itself; the
// config package parses that and passes it in, so configuration precedence is
// decided in one place. Everything it reads and what each attribute means is
// listed in docs/resource.md.
package resource
