#!/bin/sh
# The job of testdata/run, run from that directory as
#   jobtrace run --interval 100ms --out . -- sh ../job.sh
# (then only spans.otlp.jsonl and resource-usage.csv kept): nested phases
# (build, compile in it, link in compile), an event with attributes on
# compile, a failing `jobtrace exec` step and a ::group:: section.
set -e
jobtrace phase begin build
jobtrace phase begin compile
dd if=/dev/zero of=blob bs=1M count=20 conv=fsync status=none
jobtrace event cache-miss --attr key=deps
jobtrace phase begin link
i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done
jobtrace phase end link
jobtrace phase end compile
jobtrace phase end build
rm -f blob
jobtrace exec unit-tests -- sh -c 'sleep 0.2; exit 1' || true
echo "::group::upload"
sleep 0.15
echo "::endgroup::"
