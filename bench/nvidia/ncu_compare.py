# SPDX-License-Identifier: GPL-2.0
"""Per-kernel durations, kprof vs Nsight Compute (ncu), on one GPU.

  ncu_compare.py KPROFCTL AGENT SPIN OUTDIR

Locks GPU 0's SM clock with `kprofctl lock-clock --mhz MHZ` (1200 unless
NCU_MHZ), then runs each workload twice, separately (one CUPTI
subscriber per process): under `kprofctl capture` and under ncu with
gpu__time_duration.sum and sm__cycles_elapsed.max (ncu's clock and
cache control off, so both runs see the same locked clock and warm
caches; the cycles are turned into ns at the locked clock). Workloads:
SPIN (tests/nvidia/spin.cu: 10 kernels of 1.2M SM cycles, 1 ms at
1200 MHz, and NCU_TINY tiny kernels) and a ResNet-50 training step
(bench/nvidia/torch_work.py resnet NCU_STEPS; ncu profiles NCU_COUNT
kernels after skipping NCU_SKIP, past the warm-up). Per kernel name,
the median duration of each tool; agreement: within 1 %, or within
1 us for kernels under 100 us (the issue's rule). Writes ncu.csv to
OUTDIR and prints the counts. The clock is reset on every exit path.
Measures; asserts nothing.
"""
import csv
import io
import os
import shutil
import statistics
import subprocess
import sys

K, AGENT, SPIN, OUT = sys.argv[1:5]
HERE = os.path.dirname(os.path.abspath(__file__))
MHZ = os.environ.get("NCU_MHZ", "1200")
TINY = os.environ.get("NCU_TINY", "500")
STEPS = os.environ.get("NCU_STEPS", "2")
SKIP = os.environ.get("NCU_SKIP", "5000")
COUNT = os.environ.get("NCU_COUNT", "1000")
NCU = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
TMP = os.path.join(OUT, "tmp")


def log(*a):
    print(*a, flush=True)


def sh(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        log("# FAILED (exit %d): %s\n%s" % (p.returncode, " ".join(cmd), p.stdout[-3000:]))
    return p.returncode == 0


def name(n):
    # ncu's demangler writes "T *", c++filt's "T*"
    return " ".join(n.split()).replace(" *", "*").replace(" &", "&")[:511]


def kprof_kernels(cmd, tag):
    d = os.path.join(TMP, "kprof-" + tag)
    if not sh([K, "capture", "--device", "nvidia:0", "--agent", AGENT, "-o", d, "--force",
               "--"] + cmd):
        return {}
    by = {}
    for r in csv.DictReader(open(os.path.join(d, "ops.csv"))):
        if not r["OP CODE"].startswith("["):	# memcpy/memset rows
            by.setdefault(name(r["OP CODE"]), []).append(int(r["DEVICE KERNEL DURATION [ns]"]))
    return by


UNITS = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
         "s": 1e9, "second": 1e9, "cycle": 1}


def ncu_kernels(cmd, tag, window):
    """Two figures per kernel from one ncu pass: gpu__time_duration (ns) and
    sm__cycles_elapsed.max converted to ns at the locked clock."""
    logf = os.path.join(TMP, "ncu-%s.csv" % tag)
    if not sh([NCU, "--metrics", "gpu__time_duration.sum,sm__cycles_elapsed.max",
               "--clock-control", "none", "--cache-control", "none", "--csv",
               "--print-units", "base", "--log-file", logf] + window + cmd):
        return {}, {}
    text = open(logf).read()
    # ncu writes its own "==PROF==" lines before the table
    start = text.find('"ID"')
    dur, cyc = {}, {}
    for r in csv.DictReader(io.StringIO(text[start:] if start >= 0 else "")):
        scale = UNITS.get(r["Metric Unit"])
        if scale is None:
            log("# ncu unit %r not understood: %s ignored" % (r["Metric Unit"], tag))
            return {}, {}
        v = float(r["Metric Value"].replace(",", "")) * scale
        if r["Metric Name"] == "gpu__time_duration.sum":
            dur.setdefault(name(r["Kernel Name"]), []).append(v)
        elif r["Metric Name"] == "sm__cycles_elapsed.max":
            cyc.setdefault(name(r["Kernel Name"]), []).append(v * 1000.0 / float(MHZ))
    return dur, cyc


def compare(tag, kk, nk, rows):
    agree = common = 0
    worst = (0.0, "")
    for n in sorted(set(kk) & set(nk)):
        mk, mn = statistics.median(kk[n]), statistics.median(nk[n])
        tol = 1000.0 if mn < 100000 else 0.01 * mn
        ok = abs(mk - mn) <= tol
        common += 1
        agree += ok
        rel = abs(mk - mn) / mn if mn else 0.0
        if rel > worst[0]:
            worst = (rel, "%s: kprof %.0f ns, ncu %.0f ns" % (n[:60], mk, mn))
        rows.append([tag, n, len(kk[n]), "%.0f" % mk, len(nk[n]), "%.0f" % mn,
                     "%.0f" % (mk - mn), int(ok)])
    log("# %s: kernel names kprof %d, ncu %d, in both %d, agree %d; largest relative "
        "difference %.3f %% (%s)" % (tag, len(kk), len(nk), common, agree, 100 * worst[0],
                                     worst[1]))
    return agree, common


def both(tag, kk, ncu, rows):
    dur, cyc = ncu
    return (compare(tag + " gpu__time_duration", kk, dur, rows) +
            compare(tag + " sm__cycles_elapsed/clock", kk, cyc, rows))


def main():
    os.makedirs(TMP, exist_ok=True)
    if not sh([K, "lock-clock", "--device", "nvidia:0", "--mhz", MHZ]):
        sys.exit(1)
    rows = []
    try:
        spin = [SPIN, "1200000", "10", TINY]
        log("## spin.cu: 10 x 1.2M cycles at %s MHz, %s tiny kernels" % (MHZ, TINY))
        a1 = both("spin", kprof_kernels(spin, "spin"), ncu_kernels(spin, "spin", []), rows)
        torch = [sys.executable, os.path.join(HERE, "torch_work.py"), "resnet", STEPS]
        log("## ResNet-50 step (ncu: %s kernels after the first %s)" % (COUNT, SKIP))
        a2 = both("resnet50", kprof_kernels(torch, "resnet"),
                  ncu_kernels(torch, "resnet", ["--launch-skip", SKIP,
                                                "--launch-count", COUNT]), rows)
    finally:
        sh([K, "reset-clock", "--device", "nvidia:0"])
    with open(os.path.join(OUT, "ncu.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "kernel", "kprof_n", "kprof_median_ns", "ncu_n",
                    "ncu_median_ns", "diff_ns", "agree"])
        w.writerows(rows)
    log("Kernel names that agree (1 %%, or 1 us under 100 us), of those in both:\n"
        "  spin: vs gpu__time_duration %d of %d, vs sm__cycles_elapsed %d of %d\n"
        "  ResNet-50: vs gpu__time_duration %d of %d, vs sm__cycles_elapsed %d of %d"
        % (a1 + a2))
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
