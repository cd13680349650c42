#!/bin/sh
# The job of the collector-outage test. Halfway through it asks the test to
# stop the collector ($E2E_SYNC/stop-collector) and waits until the test says
# it is down ($E2E_SYNC/collector-stopped); the rest of its phases end while no
# collector is there. Just before it exits with 7 it writes the time, so the
# test can measure how long jobtrace takes after the job is done. The sleeps
# after BEGIN_PHASE let jobtrace read that line before the socket messages.
set -u

echo "BEGIN_PHASE before-outage"
sleep 0.3
jobtrace phase begin warmup
sleep 0.2
jobtrace phase end warmup
echo "END_PHASE before-outage"
sleep 0.5

touch "$E2E_SYNC/stop-collector"
i=0
while [ ! -e "$E2E_SYNC/collector-stopped" ]; do
	i=$((i + 1))
	if [ "$i" -gt 600 ]; then
		echo "outage-job: the test never stopped the collector" >&2
		exit 99
	fi
	sleep 0.05
done

echo "BEGIN_PHASE during-outage"
sleep 0.3
jobtrace phase begin step
jobtrace event retry --attr attempt=2
jobtrace phase end step
echo "END_PHASE during-outage"
date +%s.%N > "$E2E_SYNC/job-exit"
exit 7
