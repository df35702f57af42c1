# SPDX-License-Identifier: GPL-2.0
"""check.sh's test of a capture --counters of spin.cu.

usage: counters_check.py DIR CYCLES SPINS TINY METRICS

Ground truth: each kprof_spin kernel spins CYCLES SM cycles (clock64), so
its sm__cycles_elapsed.max (the busiest SM's elapsed cycles over the
kernel's range) must be at least CYCLES and within 0.5 % above it (the
kernel's launch and drain add a few thousand cycles; a spin kernel of
tiny kernels' cost, ~3200 cycles, is what is over). Every kernel op of
ops.csv (SPINS spins, TINY tiny ones) has a row per metric in
counters.csv with the same GLOBAL CALL COUNT (the join), and every metric
of METRICS (comma list) is there (spin.cu launches one more tiny kernel
before its loop: SPINS + TINY + 1 kernels); params.json says replay kernel with at
least one pass, and nothing unprofiled or unjoined.
"""
import csv
import json
import sys

d, cycles, spins, tiny = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
metrics = sys.argv[5].split(",")
ops = [r for r in csv.DictReader(open(d + "/ops.csv")) if not r["OP CODE"].startswith("[")]
vals = {}
for r in csv.DictReader(open(d + "/counters.csv")):
    if r["COUNTER"] in metrics:
        vals[(r["GLOBAL CALL COUNT"], r["COUNTER"])] = float(r["SUM"])
bad = 0
worst = 0.0
for o in ops:
    for m in metrics:
        if (o["GLOBAL CALL COUNT"], m) not in vals:
            print("# op %s (%s) has no %s" % (o["GLOBAL CALL COUNT"], o["OP CODE"], m))
            bad += 1
    if o["OP CODE"].startswith("kprof_spin"):
        v = vals.get((o["GLOBAL CALL COUNT"], "sm__cycles_elapsed.max"), 0)
        err = (v - cycles) / cycles
        worst = max(worst, abs(err))
        if not (0 <= err < 0.005):
            print("# spin op %s: sm__cycles_elapsed.max %d vs %d cycles spun (%+.4f %%)"
                  % (o["GLOBAL CALL COUNT"], v, cycles, 100 * err))
            bad += 1
c = json.load(open(d + "/params.json"))["gpu"]["counters"]
nspin = sum(o["OP CODE"].startswith("kprof_spin") for o in ops)
print("# kernels %d (spin %d); worst sm__cycles_elapsed.max error %.4f %% of %d cycles; "
      "replay %s, %d pass(es); values %d, joined %d, not profiled %d, unmatched ranges %d, "
      "agent %.1f us per kernel"
      % (len(ops), nspin, 100 * worst, cycles, c["replay"], c["passes_per_kernel"],
         c["kernels_with_values"], c["joined"], c["launches_not_profiled"],
         c["ranges_dropped_or_unmatched"],
         c["agent_profiler_ns"] / 1e3 / max(1, c["kernels_with_values"])))
ok = (bad == 0 and nspin == spins and len(ops) == spins + tiny + 1 and c["replay"] == "kernel" and
      c["passes_per_kernel"] >= 1 and c["joined"] == len(ops) and
      c["values_without_kernel"] == 0 and c["launches_not_profiled"] == 0 and
      c["ranges_dropped_or_unmatched"] == 0 and c["metrics"] == metrics)
sys.exit(0 if ok else 1)
