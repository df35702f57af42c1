#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Time-sync fidelity: in the VM, a capture of about SECONDS
# (default 60) with the device clock unlocked (DVFS on) and the reference
# timer drifting DRIFT ppm (default 200); then the piecewise and one-shot
# fits are compared with the sim's ground truth.
#   tests/vm/run --timeout 900 --exec bench/collector_timesync_vm.sh [SECONDS [DRIFT]]
# Results: docs/performance.md ("Clock and time sync").
set -eu
secs=${1:-60}
drift=${2:-200}
root=${KPROF_ROOT:-/kprof}
build=${BUILD:-$root/build}
out=$build/bench/timesync
dbg=/sys/kernel/debug/kprof_sim/sim0
[ -d "$dbg" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
[ -w "$dbg/drift_ppm" ] || { echo "no $dbg (sim device, debugfs)" >&2; exit 1; }

kprofctl reset-clock --device 0 >/dev/null 2>&1 || true
echo "$drift" >"$dbg/drift_ppm"
echo 1 >"$dbg/reset_truth"
rm -rf "$out"
# a short burst of ops every second, so the capture spans SECONDS
kprofctl capture --device 0 -o "$out" -- sh -c \
	"i=0; while [ \$i -lt $secs ]; do $build/examples/sim_workload --ops 20 --quiet; sleep 1; i=\$((i+1)); done"
cat "$dbg/truth" >"$out/truth.txt"
echo "drift_ppm $(cat "$dbg/drift_ppm") jitter_ns $(cat "$dbg/jitter_ns")"
grep -E "clock_changes|ops_completed" "$dbg/stats" || true
"$build/bench/collector" timesync "$out" "$out/truth.txt"
