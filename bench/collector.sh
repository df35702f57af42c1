#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Collector throughput: markers aggregated per second on one core and
# peak RSS for a synthetic spool (default 100M markers, ~3.5 GB in
# $KPROF_BENCH_DIR, default /tmp/kprof-collector-bench.PID; removed afterwards).
# The machine's limit beside it: `collector limit`, a minimal loop over
# the same spool. Usage: bench/collector.sh [MARKERS]   Results: docs/performance.md.
# With BASE=path/to/another/build/bench/collector that build's reports
# alternate with this one's on the same spool (lines prefixed "base:").
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
markers=${1:-100000000}
dir=${KPROF_BENCH_DIR:-/tmp/kprof-collector-bench.$$}
cpu=${KPROF_BENCH_CPU:-0}

need=$((markers / 1000000 * 36))	# MB of spool, with margin
avail=$(df -Pm "$(dirname "$dir")" | awk 'NR==2 {print $4}')
if [ "$avail" -lt "$need" ]; then
	echo "collector bench: needs ${need} MB in $(dirname "$dir"), ${avail} MB free;" \
	     "set KPROF_BENCH_DIR or pass fewer markers" >&2
	exit 1
fi
make -s -C "$root/user" bench-collector
rm -rf "$dir"
trap 'rm -rf "$dir"' EXIT INT TERM
"$build/bench/collector" gen "$dir" "$markers"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
# alternated, 3 rounds (take medians): the machine's limit (a minimal
# loop over the same spool), the default report, and the report with
# trace.json or device_log.csv; the difference to the default run is
# that output's cost, its size over that its MB/s
# Each report goes to an empty directory: one made over the last would
# also pay for removing the outputs it does not write (242 MB of
# device_log.csv at 4M markers, ~0.02 s of CPU), not the report's work.
report() {	# BUILD [trace|devlog]
	b=$1
	shift
	rm -rf "$dir/out"
	taskset -c "$cpu" "$b" run "$dir" "$dir/out" "$@"
}
for run in 1 2 3; do
	taskset -c "$cpu" "$build/bench/collector" limit "$dir"
	report "$build/bench/collector"
	# report.html alone, from those outputs (its share of the report)
	taskset -c "$cpu" "$build/bench/collector" html "$dir/out"
	report "$build/bench/collector" trace
	ls -l "$dir/out/trace.json" | awk '{print "trace.json bytes", $5}'
	# ... and with trace.json there, which it reads for the device lanes
	taskset -c "$cpu" "$build/bench/collector" html "$dir/out"
	report "$build/bench/collector" devlog
	ls -l "$dir/out/device_log.csv" | awk '{print "device_log.csv bytes", $5}'
	if [ -n "${BASE:-}" ]; then
		report "$BASE" | sed 's/^/base: /'
		report "$BASE" trace | sed 's/^/base: /'
		report "$BASE" devlog | sed 's/^/base: /'
	fi
	# a plain write of the same bytes (page cache to page cache), in
	# CPU seconds (user + sys) as the report's figures are, and wall
	for f in device_log.csv report.html; do
		/usr/bin/time -f "%U %S %e" -o "$dir/time" taskset -c "$cpu" \
			cat "$dir/out/$f" >"$dir/plain"
		awk -v f="$f" '{ printf "plain write of %s: cpu %.3f s wall %.3f s\n",
				 f, $1 + $2, $3 }' "$dir/time"
	done
done
