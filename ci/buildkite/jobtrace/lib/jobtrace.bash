#!/bin/bash
# Sourced by the plugin's hooks: where the job's jobtrace binary and out
# directory are, from the plugin's configuration. Sets jobtrace_dir (this
# job's directory of the plugin), jobtrace_bin and jobtrace_out, and puts the
# binary's directory on PATH.
# shellcheck disable=SC2034 # the hooks use them

jobtrace_dir="${TMPDIR:-/tmp}/jobtrace-${BUILDKITE_JOB_ID:-job}"
jobtrace_bin="${BUILDKITE_PLUGIN_JOBTRACE_BINARY:-jobtrace}"
if [[ -n "${BUILDKITE_PLUGIN_JOBTRACE_VERSION:-}" ]]; then
  jobtrace_bin="$jobtrace_dir/bin/jobtrace"
fi
if [[ "$jobtrace_bin" == */* && ":$PATH:" != *":${jobtrace_bin%/*}:"* ]]; then
  export PATH="${jobtrace_bin%/*}:$PATH"
fi
jobtrace_out="${BUILDKITE_PLUGIN_JOBTRACE_OUT:-$jobtrace_dir/jobtrace-out}"
