package config

import (
	"testing"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/markerdir"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/scan"
	"github.com/jobtrace/jobtrace/spans/socket"
)

// Each default of the configuration is the one of the package that keeps
// the bound, so that a program that leaves an option at zero gets what the
// command line gets. The socket's own default was 64 connections while
// the configuration's was 256.
func TestDefaultsAreThePackagesDefaults(t *testing.T) {
	d := Default()
	for _, c := range []struct {
		key       string
		got, want any
	}{
		{"limits.max_line_bytes", d.Limits.MaxLineBytes, scan.DefaultMaxLineBytes},
		{"limits.max_message_bytes", d.Limits.MaxMessageBytes, protocol.DefaultMaxMessageBytes},
		{"limits.max_marker_files", d.Limits.MaxMarkerFiles, markerdir.DefaultMaxFiles},
		{"limits.max_open_phases", d.Limits.MaxOpenPhases, spans.DefaultMaxOpenPhases},
		{"limits.max_socket_conns", d.Limits.MaxSocketConns, socket.DefaultMaxConns},
		{"sampling.interval", d.Sampling.Interval, hostmetrics.DefaultInterval},
		{"the shortest interval", MinInterval, hostmetrics.MinInterval},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, the package's default %v", c.key, c.got, c.want)
		}
	}
	// What docs/configuration.md promises.
	if d.Limits.MaxSocketConns != 256 {
		t.Errorf("limits.max_socket_conns: %d, want 256", d.Limits.MaxSocketConns)
	}
}
