#!/bin/sh
# agentcpu.sh: jobtrace's own CPU and memory while it samples, once a second,
# a job of a shell and N sleeping children.
#
#   bench/agentcpu.sh                  # N=1000, 60 s, --cgroup off then auto
#   N=1000 STEADY=120 MODES=auto bench/agentcpu.sh
#   INTERVAL=10ms STEADY=870 MODES=off bench/agentcpu.sh   # a day's samples
#
# For each --cgroup mode it runs
#   jobtrace run --interval INTERVAL --cgroup MODE --out DIR -- sh -c '<N sleeps>; wait'
# with no collector, waits until the N sleepers are there, lets SETTLE
# seconds pass, then reads jobtrace's utime+stime (/proc/<pid>/stat, its own
# and its threads', not its children's) at the start and end of STEADY
# seconds. The share of one core is their difference over the elapsed time.
# When /proc/<pid>/task/*/schedstat exists and no thread came or went in the
# window, the same is given from the threads' run time in nanoseconds, which
# is finer than the clock ticks of stat. Resident memory is read every
# RSS_EVERY seconds of the window. The script then kills the sleepers (by
# pid, from the shell's children file), follows jobtrace until it exits, and
# reports its VmHWM and its last VmRSS, and how many samples
# resource-usage.csv holds and how many of them walked the tree
# (job_processes_count filled in).
#
# JOBTRACE names a built binary; without it the script builds one from the
# checkout it is in. Linux only.
set -eu

N=${N:-1000}
STEADY=${STEADY:-60}
SETTLE=${SETTLE:-10}
MODES=${MODES:-off auto}
INTERVAL=${INTERVAL:-1s}
RSS_EVERY=${RSS_EVERY:-60}

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/agentcpu.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -z "${JOBTRACE:-}" ]; then
	JOBTRACE=$work/jobtrace
	(cd "$here/.." && CGO_ENABLED=0 go build -o "$JOBTRACE" ./cmd/jobtrace)
fi
hz=$(getconf CLK_TCK)

# cpu_ticks PID: utime+stime of PID from /proc/PID/stat (fields 14 and 15,
# counted after the command name, which may hold spaces).
cpu_ticks() {
	sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# run_ns PID: the summed run time, in ns, of PID's live threads.
run_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# children PID: the children of every thread of PID.
children() {
	cat /proc/"$1"/task/*/children 2>/dev/null || true
}

status_kib() { # status_kib PID FIELD
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || true
}

now_ns() { date +%s%N; }

tids() { ls "/proc/$1/task" 2>/dev/null | sort -n | tr '\n' ' '; }

# The sleepers outlive the window; they are killed at its end.
life=$((STEADY + SETTLE + 600))

echo "N=$N INTERVAL=$INTERVAL STEADY=${STEADY}s SETTLE=${SETTLE}s $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"
for mode in $MODES; do
	out=$work/out-$mode
	env -u OTEL_EXPORTER_OTLP_ENDPOINT -u OTEL_EXPORTER_OTLP_TRACES_ENDPOINT \
		-u OTEL_EXPORTER_OTLP_METRICS_ENDPOINT \
		"$JOBTRACE" run --interval "$INTERVAL" --cgroup "$mode" --summary off --out "$out" -- \
		sh -c "i=0; while [ \$i -lt $N ]; do sleep $life & i=\$((i+1)); done; wait" \
		>"$work/log-$mode" 2>&1 &
	jt=$!

	# The job's shell, not jobtrace's guard, which is a child of jobtrace
	# too and may come first in the children files.
	sh=""
	while [ -z "$sh" ]; do
		sleep 0.1
		for c in $(children "$jt"); do
			[ "$(cat "/proc/$c/comm" 2>/dev/null)" = sh ] && sh=$c
		done
	done
	t0=$(now_ns)
	while [ "$(children "$sh" | wc -w)" -lt "$N" ]; do
		sleep 0.5
	done
	ramp=$((($(now_ns) - t0) / 1000000))
	sleep "$SETTLE"

	c0=$(cpu_ticks "$jt")
	r0=$(run_ns "$jt")
	tids0=$(tids "$jt")
	w0=$(now_ns)
	rss0=$(status_kib "$jt" VmRSS)
	trace=""
	left=$STEADY
	while [ "$left" -gt 0 ]; do
		step=$((left < RSS_EVERY ? left : RSS_EVERY))
		sleep "$step"
		left=$((left - step))
		trace="$trace $(status_kib "$jt" VmRSS | awk '{ printf "%.1f", $1 / 1024 }')"
	done
	c1=$(cpu_ticks "$jt")
	r1=$(run_ns "$jt")
	tids1=$(tids "$jt")
	w1=$(now_ns)
	[ "$tids0" = "$tids1" ] || r0=$r1 # threads came or went: their run time is lost
	rss1=$(status_kib "$jt" VmRSS)
	hwm=$(status_kib "$jt" VmHWM) rss=$rss1
	left=$(children "$sh" | wc -w)

	kill $(children "$sh") 2>/dev/null || true
	while [ -d "/proc/$jt" ]; do
		h=$(status_kib "$jt" VmHWM)
		r=$(status_kib "$jt" VmRSS)
		[ -n "$h" ] && hwm=$h
		[ -n "$r" ] && rss=$r
		sleep 0.05
	done
	wait "$jt" || echo "jobtrace --cgroup $mode exited with $?"

	csv=$out/resource-usage.csv
	samples=$(awk -F, 'NR > 1' "$csv" | wc -l)
	walks=$(awk -F, -v n="$N" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "job_processes_count") col = i; next }
		col && $col != "" && $col + 0 > n { w++ }
		END { print w + 0 }' "$csv")
	note=$(grep -o '"resource sampling: [^"]*cgroup[^"]*"' "$out"/spans.otlp.jsonl 2>/dev/null | head -1 || true)

	awk -v mode="$mode" -v c="$((c1 - c0))" -v hz="$hz" -v r="$((r1 - r0))" \
		-v w="$((w1 - w0))" -v ramp="$ramp" -v left="$left" -v n="$N" \
		-v rss0="$rss0" -v rss1="$rss1" -v hwm="$hwm" -v rss="$rss" \
		-v samples="$samples" -v walks="$walks" -v note="$note" -v trace="$trace" \
		-v every="$RSS_EVERY" 'BEGIN {
		s = w / 1e9
		printf "--cgroup %s: tree of %d sleepers up in %.1f s, %d still up at the end\n", mode, n, ramp / 1000, left
		printf "  CPU over %.1f s: %d ticks = %.2f %% of one core", s, c, 100 * c / hz / s
		if (r > 0) printf "; threads run time %.3f s = %.2f %%", r / 1e9, 100 * r / w
		printf "\n  RSS %.1f MiB at the start, %.1f MiB at the end of the window; last seen %.1f MiB, VmHWM %.1f MiB\n", rss0 / 1024, rss1 / 1024, rss / 1024, hwm / 1024
		printf "  RSS every %d s (MiB):%s\n", every, trace
		printf "  %d samples in resource-usage.csv, %d with the tree walked (more than %d processes)\n", samples, walks, n
		if (note != "") printf "  %s\n", note
	}'
done
