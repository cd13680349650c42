// Package config holds jobtrace's whole command-line configuration in one
// [Config] and loads it from five layers, each overriding the one before:
//
//	defaults < jobtrace.yaml < OTEL_* environment < JOBTRACE_* environment < flags
//
// [Default] is the first layer. The file is the one named by --config, else by
// $JOBTRACE_CONFIG, else ./jobtrace.yaml in the current working directory if it
// exists, else there is none. The OTEL_* variables are the standard ones of the
// OpenTelemetry SDK (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
// OTEL_SDK_DISABLED, OTEL_EXPORTER_OTLP_*); the JOBTRACE_* variables and the
// flags are jobtrace's own. [Load] applies all of them in that order and then
// [Config.Validate]s the result.
//
// Every error wraps [ErrConfig] and is one line that says where the bad value
// came from: "jobtrace.yaml:12: unknown key \"foo\" in markers",
// "OTEL_EXPORTER_OTLP_TIMEOUT: \"abc\" is not a number of milliseconds" or
// "--export-timeout: ...". The CLI prints it and exits with status 2.
//
// A program that embeds jobtrace (package jobtrace at the module's root)
// starts from Default, or from LoadEnv, which applies the OTEL_* variables
// only, sets the rest itself, and calls Resolve, which checks and resolves
// the result as Load does.
//
// Lower packages do not take a Config; the CLI hands them the few values they
// need.
//
// docs/configuration.md lists every key with its variable, flag and default; a
// test keeps it in step with the yaml tags of Config.
package config
