#!/bin/sh
# run.sh: reproduce the figures of docs/performance.md on this machine, side
# by side with otel-cli, and print them as one table with their ratios.
#
#   bench/run.sh                    # every section (about 20 minutes)
#   bench/run.sh start markers      # only these sections
#   RUNS=50 bench/run.sh start      # fewer hyperfine runs
#
# Sections (docs/performance.md's headings):
#   start     `jobtrace run -- true` against `otel-cli exec -- true`, `true`
#             and `jobtrace version`, out dirs on the disk and on /dev/shm,
#             and what making a file costs on each (Wrapping a job)
#   markers   `jobtrace phase begin` + `end` inside a run against two
#             `otel-cli span` calls, and `jobtrace event`, beside the floor
#             of an empty Go program; in hyperfine's blocks and taking
#             turns; and the round trip of each message alone
#             (bench/roundtrip) (Markers)
#   render    the artifacts rendered at the end of a 10-phase run (go test -bench)
#   sample    one sample against the floors, gopsutil and psutil, with and
#             without the job's own cgroup (Resource sampling; bench module;
#             CHILDREN=1000 adds gopsutil's recursive Children() at N=1000)
#   parts     the in-process benchmarks: socket, protocol, scan, spool
#   collector a live, a refused and a silent collector (otelcol of e2e/otelcol,
#             or the one OTELCOL names)
#   guard     the guard against the same tree built without it (bench/interleave)
#   output    1 GiB of output passed through (Output passthrough)
#   flood     a flood of 1M marker lines, and the floods of docs/performance.md#floods
#   agent     the agent's CPU and memory at 1 Hz on a 1,000-process tree
#             (bench/agentcpu.sh; DAY=1 adds the day's number of samples)
#
# Both jobtrace and otel-cli (github.com/equinix-labs/otel-cli v0.4.5, from
# the Go module cache: `go mod download`, then built in its module
# directory) are built with CGO_ENABLED=0, as README's install command
# builds jobtrace, and measured as copies (below). Wall times are
# hyperfine's medians; on a shared machine only the ratios of commands
# measured in the same hyperfine run are comparable, and the load average
# is printed with each row.
# Every run of jobtrace writes to a fresh --out directory (hyperfine
# --prepare), on the disk of TMPDIR and, for comparison, on /dev/shm.
# Needs Linux, Go, hyperfine (apt-get install hyperfine), python3 for the
# silent collector and psutil (apt-get install python3-psutil; skipped
# without it), and root or a delegated cgroup for the cgroup cases.
set -eu

RUNS=${RUNS:-200}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/jobtrace-bench.XXXXXX")
table=$work/table
shm=/dev/shm/jobtrace-bench-$$
trap 'rm -rf "$work" "$shm"; [ -z "${bgpids:-}" ] || kill $bgpids 2>/dev/null || true' EXIT
mkdir -p "$shm"

sections=${*:-start markers render sample parts collector guard output flood agent}

load() { cut -d' ' -f1 /proc/loadavg; }
# fstype names the file system of a directory: the type findmnt gives
# (stat -f names ext4 by the magic number it shares with ext2 and ext3).
fstype() {
	t=$(findmnt -n -o FSTYPE -T "$1" 2>/dev/null | tail -n 1) # the last: the mount on top
	echo "${t:-$(stat -f -c %T "$1")}"
}
say() { printf '\n=== %s (load average %s)\n' "$*" "$(load)"; }

command -v hyperfine >/dev/null || { echo "run.sh: hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }

# row FIGURE JOBTRACE PEER RATIO BUDGET: one line of the final table.
row() { printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$(load)" >>"$table"; }

# hf NAME [hyperfine arguments]: hyperfine -N, its results kept in NAME.csv.
hf() {
	name=$1
	shift
	hyperfine -N --style basic --export-csv "$work/$name.csv" "$@"
}

# med NAME N: the median of the N-th command (from 1) of NAME.csv, in ms.
# Fields are counted from the end of the line (command,mean,stddev,median,
# user,system,min,max): a command's name may hold commas, in quotes.
med() { awk -F, -v n="$2" 'NR == n + 1 { printf "%.1f", $(NF - 4) * 1000 }' "$work/$1.csv"; }
# cpu NAME N: its mean user + system CPU, in ms.
cpu() { awk -F, -v n="$2" 'NR == n + 1 { printf "%.1f", ($(NF - 3) + $(NF - 2)) * 1000 }' "$work/$1.csv"; }
# ratio A B: A / B to two places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "–" }'; }
# gobench FILE NAME: ns/op of the benchmark NAME in FILE (median of its
# -count runs), in the unit given by UNIT (default ns).
gobench() {
	awk -v n="$2" -v u="${3:-ns/op}" '$1 ~ "^" n "(-[0-9]+)?$" { for (i = 2; i < NF; i++) if ($(i + 1) == u) print $i }' "$1" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "–" }'
}
gomed() { # gomed FILE NAME [UNIT]: median ns/op (or UNIT, in ns) as ms
	v=$(gobench "$1" "$2" "${3:-ns/op}")
	[ "$v" = "–" ] && { echo "–"; return; }
	awk -v v="$v" 'BEGIN { printf "%.3f", v / 1e6 }'
}

# createcost DIR: microseconds to create one empty file in a new directory
# in DIR, over 200 files. jobtrace run makes its out dir and six files in it
# at every run, otel-cli none; on ext4 without a journal, making a file scans
# past every inode of its block group deleted in the last minute, so this
# cost depends on what the machine deleted there just before.
createcost() {
	cd_=$1/create.$$
	mkdir "$cd_"
	t0=$(date +%s%N)
	i=0
	while [ "$i" -lt 200 ]; do
		: >"$cd_/f$i"
		i=$((i + 1))
	done
	t1=$(date +%s%N)
	rm -rf "$cd_"
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) / 200 / 1000 }'
}

g() { # g FILE BIN FIELD: FIELD (median, cpu, left) of BIN's line of bench/interleave
	awk -v b="$2" -v f="$3" 'index($0, b ": ") == 1 {
		sub(/^[^ ]* /, "")
		if (f == "median") { sub(/.*wall mean [^,]*, median /, ""); sub(/ ms.*/, "") }
		if (f == "cpu") { sub(/.*it left, mean /, ""); sub(/ ms.*/, "") }
		if (f == "left") sub(/.*behind: /, "")
		print }' "$1"
}

echo "jobtrace benchmarks: $(nproc) CPUs, $(uname -sr), $(go version | cut -d' ' -f3-), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "out dirs: $work ($(fstype "$work")) and $shm ($(fstype "$shm"))"

# The binaries: jobtrace as README builds it, otel-cli v0.4.5 likewise. Both
# are measured as copies: the Go linker writes its output through a memory
# mapping, and a file still cached as the linker wrote it starts about 1 ms
# of CPU slower than the same bytes written with write(2) (a copy, a
# download, a file read back from disk); see docs/performance.md.
# normal CMD...: CMD at the normal priority (SCHED_OTHER).
normal() {
	if command -v chrt >/dev/null; then chrt -o 0 "$@"; else "$@"; fi
}
# built DIR OUT ARGS...: CGO_ENABLED=0 go build ARGS in DIR, copied to OUT.
# The build runs at the normal priority even when the script was started
# under `chrt -f`: the Go toolchain's threads at a real-time priority spin
# waiting for each other and keep every other task off the CPUs.
built() {
	built_dir=$1 built_out=$2
	shift 2
	(cd "$built_dir" && normal env CGO_ENABLED=0 go build -o "$built_out.linked" "$@") &&
		cp "$built_out.linked" "$built_out" && rm "$built_out.linked"
}
jt=$work/jobtrace
built "$root" "$jt" ./cmd/jobtrace
il=$work/interleave
built "$here" "$il" ./interleave
empty=$work/empty
built "$here" "$empty" ./empty
rt=$work/roundtrip
built "$here" "$rt" ./roundtrip
oc=$work/otel-cli
ocdir=$(go mod download -json github.com/equinix-labs/otel-cli@v0.4.5 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
built "$ocdir" "$oc" .
echo "jobtrace: $(wc -c <"$jt") bytes, $(file -b "$jt" | grep -o '[a-z]* linked'); otel-cli v0.4.5: $(wc -c <"$oc") bytes"
# No collector unless a section sets one.
unset OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_TRACES_ENDPOINT OTEL_EXPORTER_OTLP_METRICS_ENDPOINT OTEL_EXPORTER_OTLP_PROTOCOL 2>/dev/null || true

for s in $sections; do
	case $s in
	start)
		say "start: jobtrace run -- true against otel-cli exec -- true"
		d=$work/start s2=$shm/start
		hf start -w 20 -r "$RUNS" \
			--prepare true -n true true \
			--prepare true -n 'otel-cli exec -- true' "$oc exec -- true" \
			--prepare true -n 'jobtrace version' "$jt version" \
			--prepare "rm -rf $d" -n 'jobtrace run -- true' "$jt run --out $d -- true" \
			--prepare "rm -rf $s2" -n 'jobtrace run -- true, out on /dev/shm' "$jt run --out $s2 -- true" \
			--prepare "rm -rf $d" -n 'jobtrace run --interval 0 -- true' "$jt run --interval 0 --out $d -- true"
		oc1=$(med start 2)
		row '`otel-cli exec -- true`' "" "$oc1 ms, CPU $(cpu start 2) ms" "" ""
		row '`jobtrace version`' "$(med start 3) ms, CPU $(cpu start 3) ms" "$oc1 ms" "$(ratio "$(med start 3)" "$oc1")" ""
		row '`jobtrace run -- true`, sampling, every artifact' "$(med start 4) ms, CPU $(cpu start 4) ms" "$oc1 ms" "$(ratio "$(med start 4)" "$oc1")" "≤ 1× otel-cli"
		row '… out dir on /dev/shm' "$(med start 5) ms, CPU $(cpu start 5) ms" "$oc1 ms" "$(ratio "$(med start 5)" "$oc1")" "≤ 1× otel-cli"
		row '… `--interval 0` (no sampling)' "$(med start 6) ms, CPU $(cpu start 6) ms" "$oc1 ms" "$(ratio "$(med start 6)" "$oc1")" ""
		# The same taking turns, which spreads a busy machine's noise
		# over both alike (bench/interleave -c).
		("$il" -c "$RUNS" "$oc exec -- true" "$jt run --out OUT -- true" "$jt version") | tee "$work/inter.txt"
		i=$work/inter.txt
		row 'taking turns: `jobtrace run -- true` / `otel-cli exec -- true` (wall median, mean CPU)' "$(g "$i" "$jt run --out OUT -- true" median) ms, CPU $(g "$i" "$jt run --out OUT -- true" cpu) ms" "$(g "$i" "$oc exec -- true" median) ms, CPU $(g "$i" "$oc exec -- true" cpu) ms" "$(ratio "$(g "$i" "$jt run --out OUT -- true" median)" "$(g "$i" "$oc exec -- true" median)") wall, $(ratio "$(g "$i" "$jt run --out OUT -- true" cpu)" "$(g "$i" "$oc exec -- true" cpu)") CPU" "≤ 1× otel-cli"
		row 'taking turns: `jobtrace version` / `otel-cli exec -- true`' "$(g "$i" "$jt version" median) ms, CPU $(g "$i" "$jt version" cpu) ms" "" "$(ratio "$(g "$i" "$jt version" median)" "$(g "$i" "$oc exec -- true" median)") wall, $(ratio "$(g "$i" "$jt version" cpu)" "$(g "$i" "$oc exec -- true" cpu)") CPU" ""
		# The same with the out dirs on /dev/shm, where making a file
		# costs the same whatever was deleted before.
		(TMPDIR=$shm "$il" -c "$RUNS" "$oc exec -- true" "$jt run --out OUT -- true") | tee "$work/inter-shm.txt"
		i=$work/inter-shm.txt
		row 'taking turns, out dirs on /dev/shm: `jobtrace run -- true` / `otel-cli exec -- true`' "$(g "$i" "$jt run --out OUT -- true" median) ms, CPU $(g "$i" "$jt run --out OUT -- true" cpu) ms" "$(g "$i" "$oc exec -- true" median) ms, CPU $(g "$i" "$oc exec -- true" cpu) ms" "$(ratio "$(g "$i" "$jt run --out OUT -- true" median)" "$(g "$i" "$oc exec -- true" median)") wall, $(ratio "$(g "$i" "$jt run --out OUT -- true" cpu)" "$(g "$i" "$oc exec -- true" cpu)") CPU" "≤ 1× otel-cli"
		# Measured after the runs, whose out dirs were deleted one after
		# the other, as a fresh out dir meets the file system.
		fs=$(fstype "$work")
		row "creating a file in a new directory: in the out dir's file system ($fs) / on /dev/shm" "$(createcost "$work") µs / $(createcost "$shm") µs" "" "" ""
		row '`jobtrace run -- true` over `true`' "+$(awk -v a="$(med start 4)" -v b="$(med start 1)" 'BEGIN { printf "%.1f", a - b }') ms" "" "" "≤ 5 ms added"
		;;
	markers)
		say "markers: jobtrace phase begin + end inside a run against two otel-cli span calls"
		# Each begin is preceded (untimed) by the end of the last one, and
		# each end by a begin, so the run always holds one phase; every
		# other command by a call of its own program, as each marker call
		# is by one of jobtrace's. The empty Go program is the floor of
		# any call of a Go program.
		"$jt" run --out "$work/markers" --summary off -- hyperfine -N --style basic -w 10 -r "$RUNS" \
			--export-csv "$work/markers.csv" \
			--prepare "$jt phase end p" -n 'jobtrace phase begin p' "$jt phase begin p" \
			--prepare "$jt phase begin p" -n 'jobtrace phase end p' "$jt phase end p" \
			--prepare "$jt event tick" -n 'jobtrace event tick --attr k=v' "$jt event tick --attr k=v" \
			--prepare "$oc span -n p" -n 'otel-cli span -n p' "$oc span -n p" \
			--prepare "$empty" -n 'an empty Go program' "$empty"
		pair=$(awk -v a="$(med markers 1)" -v b="$(med markers 2)" 'BEGIN { printf "%.1f", a + b }')
		two=$(awk -v a="$(med markers 4)" 'BEGIN { printf "%.1f", 2 * a }')
		row '`jobtrace phase begin` + `end` inside a run' "$pair ms ($(med markers 1) + $(med markers 2))" "$two ms (2 × otel-cli span)" "$(ratio "$pair" "$two")" "≤ 0.5×"
		row '`jobtrace phase begin` inside a run' "$(med markers 1) ms" "" "" "≤ 3 ms per call"
		row '`jobtrace event tick --attr k=v`' "$(med markers 3) ms" "$(med markers 4) ms (otel-cli span)" "$(ratio "$(med markers 3)" "$(med markers 4)")" ""
		row 'floor: an empty Go program, twice' "" "$(awk -v a="$(med markers 5)" 'BEGIN { printf "%.1f", 2 * a }') ms against $two ms" "$(ratio "$(med markers 5)" "$(med markers 4)")" ""
		# The same taking turns, in a fixed order (begin and end alternate
		# as a job's phases do), which spreads a busy machine's noise over
		# every command alike.
		"$jt" run --out "$work/markers-turns" --summary off -- "$il" -c -o "$RUNS" \
			"$jt phase begin p" "$oc span -n p" "$jt phase end p" "$empty" | tee "$work/markers-turns.txt"
		i=$work/markers-turns.txt
		b=$(g "$i" "$jt phase begin p" median) e=$(g "$i" "$jt phase end p" median) s=$(g "$i" "$oc span -n p" median) z=$(g "$i" "$empty" median)
		pair=$(awk -v a="$b" -v b="$e" 'BEGIN { printf "%.1f", a + b }')
		two=$(awk -v a="$s" 'BEGIN { printf "%.1f", 2 * a }')
		row 'taking turns: `jobtrace phase begin` + `end` inside a run' "$pair ms ($b + $e)" "$two ms (2 × otel-cli span)" "$(ratio "$pair" "$two")" "≤ 0.5×"
		row 'taking turns: floor, an empty Go program, twice' "" "$(awk -v a="$z" 'BEGIN { printf "%.1f", 2 * a }') ms against $two ms" "$(ratio "$z" "$s")" ""
		# The agent's part alone: the round trip of each message, without
		# the start of a process around it, 2 ms apart.
		"$jt" run --out "$work/markers-rt" --summary off -- "$rt" "$RUNS" 2ms | tee "$work/roundtrip.txt"
		p50() { awk -v k="$1:" '$1 == k { print $6 }' "$work/roundtrip.txt"; }
		row 'round trip of a `begin`, an `end`, an `event` message inside a run, no process start (median)' "$(p50 begin) / $(p50 end) / $(p50 event) ms" "" "" ""
		;;
	render)
		say "render: every artifact of a 10-phase run (go test -bench Render)"
		pkgs=$(cd "$root" && grep -rl --include='*_test.go' '^func BenchmarkRender' . | xargs -r -n1 dirname | sort -u)
		: >"$work/render.txt"
		# Files written on /dev/shm (docs/performance.md's figure) and on
		# the disk of TMPDIR, where creating them may cost more than the
		# rendering.
		: >"$work/render-disk.txt"
		if [ -n "$pkgs" ]; then
			[ -d /dev/shm ] && (cd "$root" && TMPDIR=/dev/shm go test -run '^$' -bench '^BenchmarkRender' -benchmem -count 5 $pkgs | tee "$work/render.txt")
			(cd "$root" && go test -run '^$' -bench '^BenchmarkRender' -benchmem -count 3 $pkgs | tee "$work/render-disk.txt")
		fi
		names=$(cat "$work/render.txt" "$work/render-disk.txt" | awk '/^BenchmarkRender/ { sub(/-[0-9]+$/, "", $1); print $1 }' | sort -u)
		for name in $names; do
			row "rendering every artifact of a 10-phase run ($name), files on /dev/shm" "$(gomed "$work/render.txt" "$name") ms, CPU $(gomed "$work/render.txt" "$name" cpu-ns/op) ms" "" "" "≤ 2 ms"
			row "… files on $(fstype "${TMPDIR:-/tmp}")" "$(gomed "$work/render-disk.txt" "$name") ms, CPU $(gomed "$work/render-disk.txt" "$name" cpu-ns/op) ms" "" "" ""
		done
		[ -n "$names" ] || row "rendering every artifact of a 10-phase run" "no BenchmarkRender found" "" "" "≤ 2 ms"
		;;
	sample)
		say "sample: one sample against the floors, gopsutil and psutil (bench module)"
		py=""
		for p in python3 /usr/bin/python3; do
			if [ -z "$py" ] && "$p" -c 'import psutil' 2>/dev/null; then py=$(command -v "$p"); fi
		done
		(cd "$here" && JOBTRACE_BENCH_PSUTIL=$py go test -run '^$' -bench 'Sample' -benchmem -count 3 -timeout 60m ./... | tee "$work/sample.txt")
		(cd "$root" && go test -run '^$' -bench 'Read/host' -count 3 ./hostmetrics | tee "$work/host.txt")
		(cd "$root" && go test -run '^$' -bench OwnCgroup -benchtime 2000x -count 10 ./hostmetrics | tee "$work/owncg.txt")
		if [ -n "${CHILDREN:-}" ]; then
			# gopsutil's recursive Children() on a tree of CHILDREN (1000:
			# minutes per sample).
			(cd "$here" && JOBTRACE_BENCH_CHILDREN=$CHILDREN go test -run '^$' -bench "Sample/N=$CHILDREN\$/gopsutil-children" -benchmem -count 1 -timeout 60m ./... | tee "$work/children.txt")
			row "gopsutil's recursive Children(), tree of $CHILDREN" "" "$(gomed "$work/children.txt" "BenchmarkSample/N=$CHILDREN/gopsutil-children") ms" "" ""
		fi
		# The CPU the process used per sample (cpu-ns/op), which a busy
		# machine does not inflate as it does the elapsed time; gopsutil
		# and psutil in elapsed time (psutil's loop times itself).
		for n in 10 100 1000; do
			c() { gomed "$work/sample.txt" "BenchmarkSample/N=$n/$1" cpu-ns/op; }
			j=$(c jobtrace) f=$(c floor) fs=$(c floor-syscall) fk=$(c floor-kept)
			row "one sample, host + tree of $n (CPU)" "$j ms" "floor $f ms (os.ReadFile), $fs ms (system calls), $fk ms (files kept open)" "$(ratio "$j" "$f"), $(ratio "$j" "$fs"), $(ratio "$j" "$fk")" "≤ 1.3× the floor"
			je=$(gomed "$work/sample.txt" "BenchmarkSample/N=$n/jobtrace")
			g=$(gomed "$work/sample.txt" "BenchmarkSample/N=$n/gopsutil")
			p=$(gomed "$work/sample.txt" "BenchmarkSample/N=$n/psutil")
			row "… elapsed: jobtrace; gopsutil, psutil" "$je ms" "$g ms, $p ms" "$(ratio "$g" "$je"), $(ratio "$p" "$je") of jobtrace's" ""
			cm=$(c jobtrace-cgroup-memory) cmf=$(c floor-cgroup-memory)
			row "one sample, job's own cgroup (memory controller), tree of $n (CPU)" "$cm ms" "$cmf ms (system calls)" "$(ratio "$cm" "$cmf")" "≤ 1.3× the floor; ≤ 0.2 ms"
			ch=$(c jobtrace-cgroup) chf=$(c floor-cgroup)
			row "one sample, job's own cgroup (this host's), tree of $n (CPU)" "$ch ms" "$chf ms (system calls, no tree)" "$(ratio "$ch" "$chf")" "≤ 1.3× the floor"
		done
		row "the host's files alone" "$(gomed "$work/host.txt" 'BenchmarkRead/host') ms" "" "" ""
		row "one sample with the job's own cgroup against its floor, side by side (BenchmarkOwnCgroup, CPU; elapsed)" "$(gomed "$work/owncg.txt" BenchmarkOwnCgroup sampler-cpu-ns/op) ms; $(gomed "$work/owncg.txt" BenchmarkOwnCgroup sampler-ns/op) ms" "$(gomed "$work/owncg.txt" BenchmarkOwnCgroup floor-cpu-ns/op) ms; $(gomed "$work/owncg.txt" BenchmarkOwnCgroup floor-ns/op) ms" "$(gobench "$work/owncg.txt" BenchmarkOwnCgroup x-floor)×; $(gobench "$work/owncg.txt" BenchmarkOwnCgroup x-floor-wall)×" "≤ 1.3× the floor"
		;;
	parts)
		say "parts: socket, protocol, scan and spool benchmarks"
		(cd "$root" && go test -run '^$' -bench . -benchmem -count 3 ./spans/protocol ./spans/socket ./spans/scan | tee "$work/parts.txt")
		(cd "$root" && go test -run '^$' -bench EncodeSpans -benchmem -count 3 ./exporters/spool | tee -a "$work/parts.txt")
		# The end-to-end socket benchmarks live with the session.
		pkg=$(cd "$root" && grep -l '^func BenchmarkSocketPhases' ./*/*_test.go | head -1 | xargs dirname)
		(cd "$root" && go test -run '^$' -bench Socket -benchtime 200000x -count 3 "$pkg" | tee -a "$work/parts.txt")
		for b in SocketEvents SocketPhases SocketCounters; do
			v=$(gobench "$work/parts.txt" "Benchmark$b")
			row "socket messages into spans, $b" "$(awk -v v="$v" 'BEGIN { if (v + 0 > 0) printf "%.0fk messages/s", 1e6 / v; else print "–" }')" "" "" "≥ 100k/s"
		done
		row "marker scan, no patterns; two patterns" "$(gobench "$work/parts.txt" BenchmarkScanNoPatterns MB/s) MB/s; $(gobench "$work/parts.txt" BenchmarkScanTwoPatterns MB/s) MB/s" "" "" ""
		row "protocol.Parse, 138-byte message" "$(gobench "$work/parts.txt" BenchmarkParse) ns" "" "" ""
		row "socket request with reply" "$(gobench "$work/parts.txt" BenchmarkRequest) ns" "" "" ""
		row "spool, one line of 512 spans" "$(gomed "$work/parts.txt" BenchmarkEncodeSpans/encodeSpans) ms" "SDK transform: $(gomed "$work/parts.txt" 'BenchmarkEncodeSpans/sdk-transform\+encodeLine') ms" "" ""
		;;
	collector)
		say "collector: live, refused and silent collectors"
		col=${OTELCOL:-$work/otelcol}
		[ -n "${OTELCOL:-}" ] || (cd "$root/e2e/otelcol" && normal go build -o "$col" .)
		cat >"$work/otelcol.yaml" <<-EOF
			receivers:
			  otlp:
			    protocols:
			      grpc: {endpoint: 127.0.0.1:54317}
			      http: {endpoint: 127.0.0.1:54318}
			exporters:
			  debug: {}
			service:
			  pipelines:
			    traces: {receivers: [otlp], exporters: [debug]}
			    metrics: {receivers: [otlp], exporters: [debug]}
			  telemetry: {metrics: {level: none}}
		EOF
		"$col" --config "$work/otelcol.yaml" >"$work/otelcol.log" 2>&1 &
		colpid=$!
		bgpids="${bgpids:-} $colpid"
		sleep 3
		d=$work/col
		OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:54318 hf collector -w 10 -r "$RUNS" \
			--prepare "rm -rf $d" -n 'no collector' "env -u OTEL_EXPORTER_OTLP_ENDPOINT $jt run --out $d -- true" \
			--prepare "rm -rf $d" -n 'OTLP/HTTP, live' "$jt run --out $d -- true" \
			--prepare "rm -rf $d" -n 'OTLP/gRPC, live' "env OTEL_EXPORTER_OTLP_PROTOCOL=grpc OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:54317 $jt run --out $d -- true" \
			--prepare "rm -rf $d" -n 'OTLP/HTTP, refused' "env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1 $jt run --out $d -- true" \
			--prepare "rm -rf $d" -n 'OTLP/gRPC, refused' "env OTEL_EXPORTER_OTLP_PROTOCOL=grpc OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1 $jt run --out $d -- true" \
			--prepare true -n 'otel-cli exec, OTLP/gRPC, live' "$oc exec --endpoint 127.0.0.1:54317 --insecure -- true"
		kill "$colpid" 2>/dev/null || true
		wait "$colpid" 2>/dev/null || true
		none=$(med collector 1)
		row "no collector" "$none ms" "" "" ""
		row "OTLP/HTTP, OTLP/gRPC, live collector" "+$(awk -v a="$(med collector 2)" -v b="$none" 'BEGIN { printf "%.1f", a - b }') ms, +$(awk -v a="$(med collector 3)" -v b="$none" 'BEGIN { printf "%.1f", a - b }') ms" "otel-cli exec, gRPC: $(med collector 6) ms" "$(ratio "$(med collector 3)" "$(med collector 6)") (gRPC)" ""
		row "OTLP/HTTP, OTLP/gRPC, refused" "+$(awk -v a="$(med collector 4)" -v b="$none" 'BEGIN { printf "%.1f", a - b }') ms, +$(awk -v a="$(med collector 5)" -v b="$none" 'BEGIN { printf "%.1f", a - b }') ms" "" "" "≤ 100 ms added"
		# A collector that accepts connections and never reads.
		python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 47998)); s.listen(64); time.sleep(3600)' &
		silent=$!
		bgpids="${bgpids:-} $silent"
		sleep 1
		OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:47998 hf silent -w 1 -r 5 \
			--prepare "rm -rf $d" "$jt run --out $d --export-timeout 1s -- true"
		kill "$silent" 2>/dev/null || true
		row "a collector that never answers, --export-timeout 1s" "$(med silent 1) ms" "" "" "≤ the export timeout (+ the run)"
		;;
	guard)
		say "guard: the same tree built with and without the guard"
		# The tree without the guard is this one with Guard: false in
		# cmd/jobtrace/run.go, given to go build as an overlay.
		sed 's/Guard:[[:space:]]*true,/Guard: false,/' "$root/cmd/jobtrace/run.go" >"$work/run-noguard.go"
		grep -q 'Guard: false,' "$work/run-noguard.go" || { echo "run.sh: no Guard: true in cmd/jobtrace/run.go" >&2; exit 1; }
		printf '{"Replace": {"%s": "%s"}}\n' "$root/cmd/jobtrace/run.go" "$work/run-noguard.go" >"$work/overlay.json"
		built "$root" "$work/jt-noguard" -overlay "$work/overlay.json" ./cmd/jobtrace
		cp "$jt" "$work/jt-guard-copy"
		(cd "$root" && go test -run '^$' -bench ShortJob -count 3 ./supervise/guard | tee "$work/guardbench.txt")
		row "the guard's part of a job that ends within its delay (BenchmarkShortJob)" "$(gomed "$work/guardbench.txt" BenchmarkShortJob) ms" "" "" ""
		("$il" "$((RUNS * 2))" "$work/jt-noguard" "$jt" | tee "$work/guard1.txt")
		("$il" "$RUNS" "$jt" "$work/jt-guard-copy" | tee "$work/guard2.txt")
		("$il" "$((RUNS / 4 + 1))" "$work/jt-noguard" "$jt" -- sleep 0.2 | tee "$work/guard3.txt")
		row '`run -- true`: guard (wall median, CPU)' "$(g "$work/guard1.txt" "$jt" median) ms, $(g "$work/guard1.txt" "$jt" cpu) ms" "no guard: $(g "$work/guard1.txt" "$work/jt-noguard" median) ms, $(g "$work/guard1.txt" "$work/jt-noguard" cpu) ms" "" "nothing measurable"
		row '… control: the same binary twice' "$(g "$work/guard2.txt" "$jt" median) ms, $(g "$work/guard2.txt" "$jt" cpu) ms" "$(g "$work/guard2.txt" "$work/jt-guard-copy" median) ms, $(g "$work/guard2.txt" "$work/jt-guard-copy" cpu) ms" "" ""
		row '`run -- sleep 0.2`: guard (wall median, CPU, left behind)' "$(g "$work/guard3.txt" "$jt" median) ms, $(g "$work/guard3.txt" "$jt" cpu) ms, $(g "$work/guard3.txt" "$jt" left)" "no guard: $(g "$work/guard3.txt" "$work/jt-noguard" median) ms, $(g "$work/guard3.txt" "$work/jt-noguard" cpu) ms" "" ""
		;;
	output)
		say "output: 1 GiB passed through"
		yes "some ordinary build output line, compiling foo/bar/baz.c" | head -c 1G >"$work/lines.txt"
		d=$work/out
		hyperfine --style basic -w 1 -r "${OUTPUT_RUNS:-10}" --export-csv "$work/output.csv" --prepare "rm -rf $d" \
			-n 'plain pipe, lines' "cat $work/lines.txt | cat > /dev/null" \
			-n 'jobtrace, lines' "$jt run --out $d -- cat $work/lines.txt > /dev/null" \
			-n 'plain pipe, zeros' "head -c 1G /dev/zero | cat > /dev/null" \
			-n 'jobtrace, zeros' "$jt run --out $d -- head -c 1G /dev/zero > /dev/null"
		rm -f "$work/lines.txt"
		row "output passthrough, 1 GiB of 56-byte lines" "$(med output 2) ms" "plain pipe $(med output 1) ms" "$(awk -v a="$(med output 1)" -v b="$(med output 2)" 'BEGIN { printf "%.0f %%", 100 * a / b }') of its speed" "≥ 90 %"
		row "output passthrough, 1 GiB without newlines" "$(med output 4) ms" "plain pipe $(med output 3) ms" "$(awk -v a="$(med output 3)" -v b="$(med output 4)" 'BEGIN { printf "%.0f %%", 100 * a / b }') of its speed" "≥ 90 %"
		;;
	flood)
		say "flood: 1M marker lines, interleaved with cat; socket and nesting floods"
		cat >"$work/floodt.sh" <<-'EOF'
			#!/bin/sh
			s=$(date +%s%N)
			awk 'BEGIN{for(i=0;i<500000;i++){print "BEGIN_PHASE p" i; print "END_PHASE p" i}}'
			e=$(date +%s%N); echo $(( (e-s)/1000000 )) >> "$1"
		EOF
		chmod +x "$work/floodt.sh"
		for i in 1 2 3 4 5; do
			"$work/floodt.sh" "$work/t_plain" | cat >/dev/null
			rm -rf "$work/fl"
			"$jt" run --out "$work/fl" --summary off -- "$work/floodt.sh" "$work/t_jt" >/dev/null 2>&1
		done
		m() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
		row "output passthrough, a flood of 1M marker lines (printing time, median of 5)" "$(m "$work/t_jt") ms" "into cat $(m "$work/t_plain") ms" "$(awk -v a="$(m "$work/t_plain")" -v b="$(m "$work/t_jt")" 'BEGIN { printf "%.0f %%", 100 * a / b }') of its speed" "≥ 90 %"
		(cd "$root" && normal go build -o "$work/flood" ./internal/flood)
		for f in "pairs 100000" "nest 1000 256" "nest 100000"; do
			rm -rf "$work/fs"
			/usr/bin/time -f '%e %M' -o "$work/time.txt" "$jt" run --summary off --out "$work/fs" -- "$work/flood" $f 2>"$work/flood.log" >/dev/null || true
			spans=$(grep -o '"spanId"' "$work/fs/spans.otlp.jsonl" | wc -l)
			rate=$(grep -o '[0-9.k]* messages/s' "$work/flood.log" | tail -1)
			row "flood $f on the socket" "$(awk '{ printf "%.1f s, peak RSS %.0f MiB", $1, $2 / 1024 }' "$work/time.txt"), ${rate:-–}" "$spans spans in the spool" "" "≤ 200 MiB"
		done
		;;
	agent)
		say "agent: CPU and memory at 1 Hz on a 1,000-process tree"
		JOBTRACE=$jt N=1000 STEADY=${STEADY:-60} "$here/agentcpu.sh" | tee "$work/agent.txt"
		if [ "${DAY:-0}" = 1 ]; then
			JOBTRACE=$jt N=1000 INTERVAL=10ms STEADY=870 MODES=off "$here/agentcpu.sh" | tee -a "$work/agent.txt"
		fi
		awk '/^--cgroup/ { mode = $2 } /CPU over/ { cpu[mode] = $0 } /VmHWM/ { rss[mode] = $0 }
			END { for (m in cpu) print m "\t" cpu[m] "\t" rss[m] }' "$work/agent.txt" | while IFS='	' read -r mode c r; do
			row "agent CPU and memory, 1 Hz, 1,000 processes, --cgroup ${mode%:}" "$(echo "$c" | sed 's/^ *//')" "$(echo "$r" | sed 's/^ *//')" "" "≤ 1 % of a core; ≤ 25 MiB"
		done
		;;
	*)
		echo "run.sh: unknown section $s" >&2
		exit 2
		;;
	esac
done

printf '\n## Figures (medians; load average when the row was taken)\n\n'
printf '| figure | jobtrace | peer or floor | ratio | budget | load |\n|---|---|---|---|---|---|\n'
cat "$table"
