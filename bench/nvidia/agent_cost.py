# SPDX-License-Identifier: GPL-2.0
"""Where the CUPTI agent's cost goes (docs/performance.md, "NVIDIA GPU
capture"): one workload run bare and under a matrix of tracing modes,
modes alternated run by run, medians and spreads printed. The agent is
injected directly (CUDA_INJECTION64_PATH, KPROF_AGENT_DIR), as kprofctl
capture does, without the report (kprofctl only waits while CMD runs).

  agent_cost.py AGENT MIN_CUPTI OUTDIR WORKLOAD [REPS]

AGENT: libkprof_cupti.so; MIN_CUPTI: bench/nvidia/min_cupti.c built on
the host (CUPTI's kernel records, counted and thrown away: the floor of
CUPTI tracing). WORKLOAD: resnet (torch_work.py resnet, $STEPS steps,
default 50: images/s), spin:PATH (tests/nvidia/spin.cu built, 100,000
empty kernels launched without a pause: host ns per launch of the whole
loop) or spincall:PATH (the same loop with a synchronize every 256
launches, so that the GPU's queue never fills, and each launch call
timed: the median launch call in ns, what the launching thread pays
itself; the loop's ns per launch, synchronizes included, beside it).
REPS (default 5) runs per mode.
$MODES (comma-separated) picks modes from:

  bare         no injection
  inject       the agent injected without KPROF_AGENT_DIR: it returns
               at once (what CUDA_INJECTION64_PATH alone costs)
  min          min_cupti: CUPTI kernel records only, thrown away
  min-copy     min_cupti: kernel + memcpy + memset records
  min-hw       min_cupti with CUPTI's hardware trace asked for
  min-ptb      min_cupti with per-thread activity buffers
  min-serial   min_cupti with CUPTI_ACTIVITY_KIND_KERNEL (kernels
               serialized) instead of CONCURRENT_KERNEL
  min-attrK    min_cupti with the K-th (from 0) of $MIN_ATTR_SETS, a
               ';'-separated list of MIN_CUPTI_ATTR values (min_cupti.c)
  none         the agent, kernel + memcpy + memset records, no API calls
  api          the agent, host times from CUPTI's driver-API records
  callback     the agent, host times from CUPTI's driver-API callbacks

OUTDIR gets agent_cost-WORKLOAD.csv. No figure is asserted.
"""
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

AGENT, MINC, OUT, WORK = sys.argv[1:5]
REPS = int(sys.argv[5]) if len(sys.argv) > 5 else 5
HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = os.environ.get("STEPS", "50")
MODES = os.environ.get("MODES", "bare,inject,min,min-copy,none,api,callback").split(",")

if WORK == "resnet":
    CMD = [sys.executable, os.path.join(HERE, "torch_work.py"), "resnet", STEPS]
    KEY, UNIT, HIGHER = r"img_per_s ([0-9.]+)", "images/s", True
elif WORK.startswith("spin:"):
    CMD = [WORK[5:], "0", "0", "100000", "4096"]
    KEY, UNIT, HIGHER = r"launches, host ([0-9.]+) ns per launch", "ns/launch", False
    WORK = "spin"
elif WORK.startswith("spincall:"):
    CMD = [WORK[9:], "0", "0", "100000", "4096", "256", "1"]
    KEY, UNIT, HIGHER = r"launch call median ([0-9.]+) ns", "ns/call", False
    WORK = "spincall"
else:
    sys.exit("agent_cost.py: unknown workload '%s' (resnet, spin:PATH, spincall:PATH)"
             % WORK)
# a second figure of the same run, printed and kept beside the first
EXTRA, EXTRA_NAME = ((r"launches, host ([0-9.]+) ns per launch", "loop_ns_per_launch")
                     if WORK == "spincall" else (r"issue_s ([0-9.]+)", "issue_s"))


def env_of(mode, spool):
    e = dict(os.environ)
    for k in ("CUDA_INJECTION64_PATH", "KPROF_AGENT_DIR", "KPROF_AGENT_API",
              "KPROF_AGENT_HOST_TIMES", "MIN_CUPTI_KINDS", "MIN_CUPTI_ATTR"):
        e.pop(k, None)
    if mode == "bare":
        return e
    if mode.startswith("min-attr"):
        # min-attrK: min with the K-th of MIN_ATTR_SETS (';'-separated
        # MIN_CUPTI_ATTR values)
        e["CUDA_INJECTION64_PATH"] = MINC
        e["MIN_CUPTI_KINDS"] = "kernel"
        e["MIN_CUPTI_ATTR"] = os.environ["MIN_ATTR_SETS"].split(";")[int(mode[8:])]
        return e
    if mode in ("min", "min-copy", "min-hw", "min-ptb", "min-serial"):
        e["CUDA_INJECTION64_PATH"] = MINC
        e["MIN_CUPTI_KINDS"] = {"min-copy": "kernel,copy",
                                "min-serial": "serial"}.get(mode, "kernel")
        if mode == "min-hw":
            e["MIN_CUPTI_HW"] = "1"
        if mode == "min-ptb":
            e["MIN_CUPTI_PTB"] = "1"
        return e
    e["CUDA_INJECTION64_PATH"] = AGENT
    if mode == "inject":
        return e
    e["KPROF_AGENT_DIR"] = spool
    if mode == "none":
        e["KPROF_AGENT_API"] = "none"
    else:
        e["KPROF_AGENT_HOST_TIMES"] = mode
    return e


def main():
    got = {m: [] for m in MODES}
    rows = []
    for r in range(REPS):
        for m in MODES:
            spool = tempfile.mkdtemp(prefix="kprof-cost.")
            p = subprocess.run(CMD, env=env_of(m, spool), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            v = re.findall(KEY, p.stdout)
            extra = re.findall(EXTRA, p.stdout)
            size = sum(os.path.getsize(os.path.join(spool, f)) for f in os.listdir(spool))
            shutil.rmtree(spool, ignore_errors=True)
            if p.returncode or not v:
                print("# FAILED %s (exit %d):\n%s" % (m, p.returncode, p.stdout[-2000:]),
                      flush=True)
                continue
            for ans in sorted(set(re.findall(r"min_cupti: (?:cupti|per-thread|bad).*", p.stdout))):
                if r == 0:
                    print("# %s: %s" % (m, ans), flush=True)
            got[m].append(float(v[-1]))
            rows.append([WORK, m, r, v[-1], extra[-1] if extra else "", size])
            print("# %s %s rep %d: %s %s%s, spool %d bytes" % (
                WORK, m, r, v[-1], UNIT, " %s %s" % (EXTRA_NAME, extra[-1]) if extra else "", size),
                flush=True)
    with open(os.path.join(OUT, "agent_cost-%s.csv" % WORK), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "mode", "rep", UNIT, EXTRA_NAME, "spool_bytes"])
        w.writerows(rows)
    bare = statistics.median(got["bare"]) if got.get("bare") else None
    for m in MODES:
        if not got[m]:
            print("%-9s no runs" % m)
            continue
        med = statistics.median(got[m])
        rel = ""
        if bare and m != "bare":
            rel = (", %.1f %% of bare" % (100 * med / bare) if HIGHER else
                   ", +%.2f us over bare" % ((med - bare) / 1e3))
        print("%-9s median %.1f %s (min %.1f, max %.1f, %d runs)%s" % (
            m, med, UNIT, min(got[m]), max(got[m]), len(got[m]), rel), flush=True)


if __name__ == "__main__":
    main()
