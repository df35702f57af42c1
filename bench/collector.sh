#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Collector throughput: markers aggregated per second on one core and
# peak RSS for a synthetic spool (default 100M markers, ~3.5 GB in
# $KPROF_BENCH_DIR, default /tmp/kprof-collector-bench.PID; removed afterwards).
# Usage: bench/collector.sh [MARKERS]   Results: docs/performance.md.
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
for run in 1 2 3; do
	taskset -c "$cpu" "$build/bench/collector" run "$dir" "$dir/out"
done
# the same with trace.json (one JSON event per op and core) written too
taskset -c "$cpu" "$build/bench/collector" run "$dir" "$dir/out" trace
