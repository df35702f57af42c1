#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/clock_repeat's part inside the VM. For each mode (unlocked: DVFS
# on; locked: kprofctl lock-clock --base), one kprofctl capture of RUNS
# runs of examples/sim_workload --ops 2 (layernorm, then matmul: the
# matmul is compute-bound, so its duration follows the core clock), GAP_S
# seconds apart so that DVFS has time to move between runs. The matmul
# rows' DEVICE FW DURATION [ns] in ops.csv (kprof's own measurement) give
# mean, standard deviation and CV; the sim's truth gives the clock each
# matmul ran at.
set -eu
runs=${1:-100}
gap=${2:-0.1}
root=${KPROF_ROOT:-/kprof}
build=${BUILD:-$root/build}
out=$build/bench/clock_repeat
dbg=/sys/kernel/debug/kprof_sim/sim0
W=$build/examples/sim_workload
echo "# kernel $(uname -r) under qemu TCG, $(nproc) vCPUs; $runs runs, ${gap} s apart"
rm -rf "$out"
mkdir -p "$out"

# stats MODE: prints "MODE n mean sd cv% min max" of the matmul FW durations
stats() {
	# busybox awk may lack sqrt(): Newton's method
	awk -F, -v mode="$1" '
	function root2(x, r, i) { if (x <= 0) return 0; r = x
		for (i = 0; i < 100; i++) r = (r + x / r) / 2; return r }
	NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "OP CODE") c = i;
		  if ($i == "DEVICE FW DURATION [ns]") d = i }; next }
	$c == "matmul" && $d != "" { n++; x = $d + 0; s += x; ss += x * x;
		if (n == 1 || x < mn) mn = x; if (x > mx) mx = x }
	END { if (n < 2) { print mode, n; exit 1 }
		m = s / n; v = (ss - n * m * m) / (n - 1); if (v < 0) v = 0
		printf "%s %d %.1f %.2f %.4f %.0f %.0f\n", mode, n, m, root2(v),
			100 * root2(v) / m, mn, mx }' "$out/$1/ops.csv"
}

# mhz MODE: min/max clock of the matmuls in the sim's truth
mhz() {
	awk '$2 == "matmul" { n++; if (n == 1 || $5 < a) a = $5; if ($5 > b) b = $5 }
	     END { printf "%d..%d MHz over %d matmuls\n", a, b, n }' "$out/$1.truth"
}

for mode in unlocked locked; do
	kprofctl reset-clock --device 0 >/dev/null
	[ $mode = locked ] && kprofctl lock-clock --device 0 --base
	echo 1 >"$dbg/reset_truth"
	kprofctl capture --device 0 -o "$out/$mode" -- sh -c \
		"i=0; while [ \$i -lt $runs ]; do '$W' --ops 2 --quiet || exit 1; sleep $gap; i=\$((i+1)); done" \
		>"$out/$mode.log" 2>&1 || { cat "$out/$mode.log"; exit 1; }
	cat "$dbg/truth" >"$out/$mode.truth"
	echo "$mode: clock $(mhz $mode); $(grep -c 'clock is not locked' "$out/$mode.log") 'not locked' warning(s)"
done
kprofctl reset-clock --device 0 >/dev/null

echo "mode n mean_ns sd_ns cv_% min_ns max_ns"
u=$(stats unlocked)
l=$(stats locked)
echo "$u"
echo "$l"
echo "$u $l" | awk -v runs="$runs" '{
	if ($2 != runs || $9 != runs) { print "clock_repeat: expected", runs, "matmul rows per mode"; exit 1 }
	if ($12 + 0 == 0) { print "locked CV is 0 (ratio unbounded)"; exit 0 }
	r = $5 / $12
	printf "CV unlocked / CV locked = %.1f (target >= 5: %s)\n", r, (r >= 5 ? "met" : "NOT met") }'
