# SPDX-License-Identifier: GPL-2.0
"""Per-launch host cost of kprof's host-time sources (docs/performance.md,
"Host-time sources"): spin.cu's empty-kernel loop bare and under
kprofctl capture with each source, runs alternated (mode by mode within
each round), medians and spreads printed. Modes ($HT_MODES,
comma-separated; default bare,none,api,callback):

  bare      no capture
  none      --api none: kernel records only, no host times (the floor)
  api       --host-times api: CUPTI's driver-API activity records
  callback  --host-times callback: CUPTI's driver-API callbacks
  queued    --host-times queued: CUPTI's latency timestamps

  host_times.py KPROFCTL AGENT SPIN OUTDIR [REPS [LAUNCHES]]

SPIN: tests/nvidia/spin.cu built with nvcc. REPS (9) runs per mode of
LAUNCHES (100000) launches each. OUTDIR gets host_times.csv; the captures
go to OUTDIR/tmp (removed). No figure is asserted: this measures.
"""
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys

K, AGENT, SPIN, OUT = sys.argv[1:5]
REPS = int(sys.argv[5]) if len(sys.argv) > 5 else 9
N = int(sys.argv[6]) if len(sys.argv) > 6 else 100000
TMP = os.path.join(OUT, "tmp")
os.makedirs(TMP, exist_ok=True)
loop = [SPIN, "0", "0", str(N), "4096"]
modes = []
for m in os.environ.get("HT_MODES", "bare,none,api,callback").split(","):
    if m == "bare":
        modes.append((m, loop))
        continue
    opt = ["--api", "none"] if m == "none" else ["--host-times", m]
    modes.append((m, [K, "capture", "--device", "nvidia:0", "--agent", AGENT] + opt +
                  ["--no-device-log", "-o", os.path.join(TMP, m), "--force", "--"] + loop))
got = {m: [] for m, _ in modes}
rows = []
for r in range(REPS):
    for m, cmd in modes:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        v = re.findall(r"launches, host ([0-9.]+) ns per launch", p.stdout)
        if p.returncode or not v:
            print("# FAILED %s (exit %d):\n%s" % (m, p.returncode, p.stdout[-2000:]), flush=True)
            continue
        got[m].append(float(v[-1]))
        rows.append([m, r, v[-1]])
        print("# %s rep %d: %s ns/launch" % (m, r, v[-1]), flush=True)
with open(os.path.join(OUT, "host_times.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["mode", "rep", "host_ns_per_launch"])
    w.writerows(rows)
bare = statistics.median(got["bare"]) if got.get("bare") else None
for m, _ in modes:
    if not got[m]:
        print("%s: no runs" % m)
        continue
    med = statistics.median(got[m])
    print("%-8s median %.0f ns/launch (min %.0f, max %.0f, %d runs)%s" % (
        m, med, min(got[m]), max(got[m]), len(got[m]),
        ", +%.2f us over bare" % ((med - bare) / 1e3) if bare and m != "bare" else ""))
shutil.rmtree(TMP, ignore_errors=True)
