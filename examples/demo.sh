#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The end-to-end demo, run in the VM by `make demo`
# (tests/vm/run --exec examples/demo.sh): list the devices, lock the sim
# device's clock, capture the example workload, restore the clock, and
# show where the CSVs are with a short summary.
#
# Also runs on a real host with kprof.ko and kprof_sim.ko (sim_devices=1) loaded and
# kprofctl on PATH: KPROF_ROOT and BUILD default to this checkout.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(dirname "$here")}
BUILD=${BUILD:-$KPROF_ROOT/build}
out=${KPROF_DEMO_OUT:-$BUILD/demo}
workload=$BUILD/examples/sim_workload
ops=${KPROF_DEMO_OPS:-1000}

say() { printf '\n==> %s\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

command -v kprofctl >/dev/null 2>&1 ||
	die "kprofctl is not on PATH: build it with 'make user'"
[ -x "$workload" ] ||
	die "$workload is missing: build it with 'make examples'"

say "kprofctl list"
kprofctl list

say "kprofctl lock-clock --device 0"
kprofctl lock-clock --device 0
# Whatever happens from here on, give the clock back.
trap 'kprofctl reset-clock --device 0 >/dev/null 2>&1 || true' EXIT

say "kprofctl capture --device 0 -o $out -- sim_workload --ops $ops"
rm -rf "$out"
kprofctl capture --device 0 -o "$out" -- "$workload" --ops "$ops"

say "kprofctl reset-clock --device 0"
kprofctl reset-clock --device 0
trap - EXIT

say "results in $out"
ls -l "$out"
for f in ops.csv counters.csv device_log.csv host_events.csv params.json \
	 summary.txt; do
	[ -s "$out/$f" ] || die "$out/$f is missing or empty"
done

say "summary.txt (head)"
head -n 25 "$out/summary.txt"

say "ops.csv (header and first 5 rows, first 8 columns)"
head -n 6 "$out/ops.csv" | cut -d, -f1-8

# One row per launched op: header + $ops rows.
rows=$(($(wc -l <"$out/ops.csv") - 1))
say "ops.csv has $rows op rows for $ops launched ops"
[ "$rows" -eq "$ops" ] || die "expected $ops rows in ops.csv, found $rows"
