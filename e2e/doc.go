// Package e2e holds jobtrace's end-to-end tests: they build a real Jaeger v2,
// a real OpenTelemetry Collector and the jobtrace binary, start the servers on
// free loopback ports, run jobs under `jobtrace run` and read the traces back
// from Jaeger's HTTP query API, and the metrics from the files a collector
// writes them to. See README.md for how to run them.
package e2e
