package main

import (
	"context"
	"errors"
	"path/filepath"

	sdkresource "go.opentelemetry.io/otel/sdk/resource"

	"github.com/jobtrace/jobtrace/agent/cienv"
	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/telemetry"
)

func isConfigError(err error) bool { return errors.Is(err, config.ErrConfig) }

// settings is what every command needs from the configuration.
type settings struct {
	cfg    config.Config
	ci     cienv.Info
	getenv func(string) string // the environment they were read from
}

func (c *cli) loadSettings(fl *config.Flags) (settings, error) {
	return loadSettingsFrom(c.getenv, fl)
}

// loadLocalSettings loads the settings of a command that exports nothing
// itself (a step inside a run, whose phase goes to the run over its
// socket): the export is not resolved, so its certificate files are not
// read for nothing.
func (c *cli) loadLocalSettings(fl *config.Flags) (settings, error) {
	return loadSettingsFrom(func(k string) string {
		if k == "OTEL_SDK_DISABLED" {
			return "true"
		}
		return c.getenv(k)
	}, fl)
}

func loadSettingsFrom(getenv func(string) string, fl *config.Flags) (settings, error) {
	cfg, err := config.Load(getenv, fl)
	if err != nil {
		return settings{}, err
	}
	return settings{cfg: cfg, ci: cienv.Detect(getenv), getenv: getenv}, nil
}

// exportSettings returns where telemetry goes: nowhere (local artifacts
// only) unless an endpoint is configured and the SDK is not disabled. The
// settings were resolved and checked by config.Load.
func (s settings) exportSettings() telemetry.ExportSettings { return session.ConfigExport(s.cfg) }

func (s settings) resource() *sdkresource.Resource {
	return session.ConfigResource(s.cfg, s.ci, jobtraceVersion())
}

// parent is the context the job's span joins: TRACEPARENT if set, else (when
// asked for) the trace the CI system's own telemetry builds for this run.
func (s settings) parent() context.Context {
	return session.Parent(context.Background(), s.cfg, s.ci, s.getenv)
}

// taskName is the job's name: configured, else the CI system's, else the
// command's base name.
func (s settings) taskName(args []string) string {
	switch {
	case s.cfg.Name != "":
		return s.cfg.Name
	case s.ci.TaskName != "":
		return s.ci.TaskName
	case len(args) > 0:
		return filepath.Base(args[0])
	}
	return "job"
}
