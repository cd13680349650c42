#!/bin/sh
# A small CI job that marks its phases in every way jobtrace understands.
# Run it with:  go run ./cmd/jobtrace run -- ./examples/demo.sh
set -e

now() { date +%s.%N 2>/dev/null || date +%s; }
# ms: milliseconds since the epoch (whole seconds where date has no %N).
ms() {
	n=$(date +%s%N)
	case $n in *N) echo $(($(date +%s) * 1000)) ;; *) echo $((n / 1000000)) ;; esac
}

# 1. Marker lines in the job's output.
echo "BEGIN_PHASE checkout"
sleep 0.2
echo "checked out $(uname -n)"
echo "END_PHASE checkout"

# GitHub Actions groups.
echo "::group::Build"

# 2. The socket: 'jobtrace phase|event' inside 'jobtrace run'.
jobtrace phase begin compile --attr lang=c
# Some CPU work, for 1.5 s: long enough for a verdict, and the same in
# every run, so that two runs compare (jobtrace diff) as the same.
end=$(($(ms) + 1500))
while [ "$(ms)" -lt "$end" ]; do
	i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done
done
jobtrace event cache-miss --attr key=deps
jobtrace phase end compile

# 3. The marker dir: any process appends JSON lines to a file of its own.
echo "{\"v\":1,\"type\":\"begin\",\"name\":\"link\",\"ts\":$(now)}" >> "$JOBTRACE_MARKER_DIR/$$.jsonl"
sleep 0.1
echo "{\"v\":1,\"type\":\"end\",\"name\":\"link\",\"ts\":$(now)}" >> "$JOBTRACE_MARKER_DIR/$$.jsonl"
sleep 0.3 # the marker dir is read every 200 ms
echo "::endgroup::"

# Some IO, in a phase begun through the socket: 'jobtrace phase begin'
# returns once jobtrace has sampled, so all of the phase's work is in it.
jobtrace phase begin package
out=$(mktemp)
dd if=/dev/zero of="$out" bs=1M count=16 conv=fsync 2>/dev/null; rm -f "$out"
jobtrace phase end package

# GitLab CI sections carry their own timestamps.
printf '\033[0Ksection_start:%s:tests\r\033[0KRunning the tests\n' "$(date +%s)"
# One step as a child phase; the step sees TRACEPARENT of its own span.
jobtrace exec unit-tests -- sh -c 'sleep 0.2; echo "unit tests passed (TRACEPARENT=$TRACEPARENT)"'
# A step that fails, but does not fail the job.
jobtrace exec flaky-check -- sh -c 'echo "flaky check failed" >&2; exit 3' || true
printf '\033[0Ksection_end:%s:tests\r\033[0K\n' "$(date +%s)"
echo "done"
