#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# VM half of bench/capture_overhead: examples/sim_workload ops/s with and
# without `kprofctl capture` (default settings, BPF on), alternating (the
# order flips every round so that a drift in the machine's speed does not
# favour one side), with the sim clock locked at 1000 MHz for all runs.
# A third run per round captures with --no-bpf, to tell the BPF hooks'
# share from the device capture's (sim marker writes and DMA, kprofctl's
# drain, all on the same vCPUs under TCG). --no-device-log only shortens
# the report written after the workload has exited; it cannot change the
# workload's ops/s. Prints every run, the per-round ratios to untraced and
# their medians; the target is traced/untraced >= 0.98.
# Results also go to $BUILD/bench/capture_overhead.txt.
#   capture_overhead_vm.sh [--rounds R] [--ops N]
set -u
KPROF_ROOT=${KPROF_ROOT:-/kprof}
BUILD=${BUILD:-$KPROF_ROOT/build}
K=$(command -v kprofctl || echo "$BUILD/kprofctl")
W=$BUILD/examples/sim_workload
rounds=7
ops=2000
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--ops) ops=$2; shift 2 ;;
	*) echo "usage: capture_overhead_vm.sh [--rounds R] [--ops N]" >&2; exit 2 ;;
	esac
done
out=/tmp/kprof-capture-overhead
res=$BUILD/bench/capture_overhead.txt
mkdir -p "$BUILD/bench" || exit 1
tmp=$(mktemp)

# ops/s from the workload's last line: "sim_workload: N ops in S s: X ops/s"
opsps() { awk '/^sim_workload: .* ops\/s$/ { v = $(NF - 1) } END { print v }' "$1"; }

plain() {
	"$W" --ops "$ops" --quiet >"$tmp" 2>&1 || { cat "$tmp"; exit 1; }
	opsps "$tmp"
}

traced() {	# traced [--no-bpf]
	rm -rf "$out"
	"$K" capture --device 0 -o "$out" --no-device-log "$@" -- "$W" --ops "$ops" --quiet \
		>"$tmp" 2>&1 || { cat "$tmp"; exit 1; }
	[ $# -gt 0 ] || grep -q "0 lost (BPF ring full)" "$tmp" ||
		echo "# BPF losses or no BPF: $(grep '^host:' "$tmp")" >&2
	grep -q "[1-9][0-9]* markers lost" "$tmp" && echo "# $(grep "markers lost" "$tmp")" >&2
	opsps "$tmp"
}

"$K" lock-clock --device 0 --mhz 1000 >/dev/null 2>&1 || "$K" lock-clock --device 0 >/dev/null ||
	{ echo "cannot lock the sim clock" >&2; exit 1; }
trap '"$K" reset-clock --device 0 >/dev/null 2>&1; rm -f "$tmp"; rm -rf "$out"' EXIT

{
	echo "capture overhead: sim_workload --ops $ops, $rounds rounds, $(nproc) vCPU, $(uname -r)"
	echo "round  untraced[ops/s]  traced[ops/s]  ratio  no-bpf[ops/s]  ratio"
} | tee "$res"
: >"$tmp.ratios"
r=1
while [ "$r" -le "$rounds" ]; do
	if [ $((r % 2)) = 1 ]; then
		u=$(plain); t=$(traced); nb=$(traced --no-bpf)
	else
		nb=$(traced --no-bpf); t=$(traced); u=$(plain)
	fi
	case "$u$t$nb" in
	*[!0-9.]* | "") echo "round $r: no ops/s (untraced '$u', traced '$t')" >&2; exit 1 ;;
	esac
	[ -n "$u" ] && [ -n "$t" ] && [ -n "$nb" ] || { echo "round $r: a run failed" >&2; exit 1; }
	ratio=$(awk -v t="$t" -v u="$u" 'BEGIN { printf "%.4f", t / u }')
	rnb=$(awk -v t="$nb" -v u="$u" 'BEGIN { printf "%.4f", t / u }')
	printf "%5d  %15s  %13s  %s  %13s  %s\n" "$r" "$u" "$t" "$ratio" "$nb" "$rnb" | tee -a "$res"
	echo "$u $t $ratio $nb $rnb" >>"$tmp.ratios"
	r=$((r + 1))
done
# medians (sort -n; the middle one, or the mean of the two middle ones)
med() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mu=$(awk '{ print $1 }' "$tmp.ratios" | med)
mt=$(awk '{ print $2 }' "$tmp.ratios" | med)
mr=$(awk '{ print $3 }' "$tmp.ratios" | med)
mnb=$(awk '{ print $4 }' "$tmp.ratios" | med)
mrnb=$(awk '{ print $5 }' "$tmp.ratios" | med)
rm -f "$tmp.ratios"
verdict=$(awk -v r="$mr" 'BEGIN { print (r >= 0.98 ? "target met" : "TARGET MISSED") }')
echo "median: untraced $mu ops/s, traced $mt ops/s, ratio $mr (target >= 0.98: $verdict); capture --no-bpf $mnb ops/s, ratio $mrnb" | tee -a "$res"
