#!/bin/sh
# The job of the metrics tests, run as
# `jobtrace run --name metrics --interval 200ms -- sh metrics-job.sh`.
# Two phases: cpu-busy marked on stdout, write-fsync with `jobtrace phase`,
# whose begin returns only once jobtrace has sampled, so that all of dd's
# writes (which reach the page cache within a millisecond) fall inside the
# phase:
#
#   cpu-busy      a shell spins for half a second: CPU time, several samples
#                 at 200 ms, so the periodic metrics have points in a phase;
#   write-fsync   8 MiB written to $E2E_WORK/data.bin and fsync'ed before dd
#                 exits, so the bytes reach the disk within the phase.
#
# `timeout` ends the spinning shell with SIGTERM (status 124): that is the
# plan, not a failure.
set -eu

echo "BEGIN_PHASE cpu-busy"
timeout 0.5 sh -c 'while :; do :; done' || true
echo "END_PHASE cpu-busy"

jobtrace phase begin write-fsync
dd if=/dev/zero of="$E2E_WORK/data.bin" bs=1M count=8 conv=fsync 2>/dev/null
jobtrace phase end write-fsync
