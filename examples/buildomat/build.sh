#!/bin/bash
#:
#: name = "build"
#: variety = "basic"
#: target = "helios-2.0"
#: rust_toolchain = false
#: output_rules = [
#:	"/work/jobtrace-out/*",
#: ]
#:

# .github/buildomat/jobs/build.sh: a Buildomat job wrapped with jobtrace.
# On illumos targets, resource figures come from kstat (docs/illumos.md).
set -o errexit
set -o pipefail

export OTEL_SERVICE_NAME=my-project
jobtrace run --out /work/jobtrace-out -- ./ci/build.sh
