#!/bin/sh
# The demo CI job of the e2e tests, run as `jobtrace run --name demo -- sh demo-job.sh`.
# It uses every marker source, nests phases, runs steps with `jobtrace exec`,
# has a failing step and runs a child program (childspan) that joins the trace
# from TRACEPARENT. jobtrace and childspan are found on PATH.
#
# Expected trace (children in any order):
#
#   demo                       error: the job exits 3
#     jobtrace startup         jobtrace's own work
#     jobtrace shutdown
#     build                    BEGIN_PHASE / END_PHASE
#       Compile                ::group:: / ::endgroup::
#       link                   section_start / section_end, titled "Linking"
#       vet                    jobtrace exec inside an output-marker phase
#     test                     jobtrace phase begin / end --result failure: error
#       unit                   jobtrace exec
#         unit-child           childspan, joins from the TRACEPARENT exec sets
#       integration            jobtrace exec of a command that exits 1: error
#       (event flaky-test on "test")
#     package                  marker dir
#       sign                   marker dir, nested
#     report                   childspan, joins from the TRACEPARENT run sets
#
# Output lines reach jobtrace through a pipe and marker-dir files are read as
# they grow, so a marker from one source and a message on the socket right
# after it could be seen in either order. The pauses where the job switches
# from one source to another keep the nesting what the script says.
set -u

pause() { sleep 0.5; }
marker() { printf '%s\n' "$1" >> "$JOBTRACE_MARKER_DIR/$$.jsonl"; }

echo "BEGIN_PHASE build"
echo "::group::Compile"
echo "compiling"
echo "::endgroup::"
printf 'section_start:%s:link[collapsed=true]\r\033[0KLinking\n' "$(date +%s)"
echo "linking"
printf 'section_end:%s:link\r\033[0K\n' "$(date +%s)"
pause
jobtrace exec vet -- sh -c 'echo vetting'
echo "END_PHASE build"
pause

jobtrace phase begin test
jobtrace exec unit -- childspan unit-child
jobtrace exec integration -- sh -c 'echo "integration: 1 test failed"; exit 1' ||
	echo "integration failed as expected"
jobtrace event flaky-test --attr test=TestFlaky
jobtrace phase end test --result failure
pause

marker '{"v":1,"type":"begin","name":"package"}'
marker '{"v":1,"type":"begin","name":"sign"}'
echo "signing"
marker '{"v":1,"type":"end","name":"sign"}'
marker '{"v":1,"type":"end","name":"package"}'
pause

childspan report
exit 3
