# SPDX-License-Identifier: GPL-2.0
"""bench/nvidia/run.sh's driver: runs the workloads bare, under kprofctl
capture and under PyTorch's profiler, alternated, and prints medians.

  nvbench.py KPROFCTL AGENT SPIN PEAK_RSS OUTDIR

SPIN is tests/nvidia/spin.cu built with nvcc, PEAK_RSS peak_rss.c;
OUTDIR gets the CSVs (launch.csv, resnet.csv, report.csv, accuracy.csv),
the captures go to OUTDIR/tmp (removed at the end). Environment: NVBENCH_REPS (5: C
launch loop runs per mode), NVBENCH_PY_REPS (3: PyTorch runs per mode),
NVBENCH_LAUNCHES (100000), NVBENCH_BIG (1000000: launches of the
report-memory capture), NVBENCH_STEPS (30: timed ResNet-50 steps),
NVBENCH_BATCHES (32,256: the ResNet-50 batch sizes, each its own runs;
the accuracy check takes the first), NVBENCH_PARTS (launch,torch,resnet,
report: which parts run).
No figure is asserted: this measures, it does not judge.
"""
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

K, AGENT, SPIN, PEAK, OUT = sys.argv[1:6]
HERE = os.path.dirname(os.path.abspath(__file__))
TORCH = [sys.executable, os.path.join(HERE, "torch_work.py")]
REPS = int(os.environ.get("NVBENCH_REPS", "5"))
PY_REPS = int(os.environ.get("NVBENCH_PY_REPS", "3"))
N = int(os.environ.get("NVBENCH_LAUNCHES", "100000"))
BIG = int(os.environ.get("NVBENCH_BIG", "1000000"))
STEPS = int(os.environ.get("NVBENCH_STEPS", "30"))
BATCHES = [int(b) for b in os.environ.get("NVBENCH_BATCHES", "32,256").split(",")]
PARTS = os.environ.get("NVBENCH_PARTS", "launch,torch,resnet,report").split(",")
TMP = os.path.join(OUT, "tmp")
os.makedirs(TMP, exist_ok=True)


def log(*a):
    print(*a, flush=True)


def capture_cmd(d, cmd):
    return [K, "capture", "--device", "nvidia:0", "--agent", AGENT, "-o", d, "--force",
            "--"] + cmd


SPIN_NS = r"launches, host ([0-9.]+) ns per launch"
TORCH_NS = r"host_ns_per_launch ([0-9.]+)"
IMG_S = r"img_per_s ([0-9.]+)"


def run(cmd, key):
    """Runs cmd; returns the number regex `key` finds in its output (its
    last match) and the run's wall s."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t0
    m = re.findall(key, p.stdout)
    if m and p.returncode == 0:
        return float(m[-1]), wall
    log("# FAILED (exit %d): %s\n%s" % (p.returncode, " ".join(cmd), p.stdout[-3000:]))
    return None, wall


def gpu_stats(d):
    try:
        g = json.load(open(os.path.join(d, "params.json")))["gpu"]
        return "kernels %s dropped %s buffers_refused %s agent_stopped %s" % (
            g.get("kernels"), g.get("dropped_records"), g.get("buffers_refused"),
            g.get("agent_stopped"))
    except (OSError, ValueError, KeyError) as e:
        return "params.json unreadable: %s" % e


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, f="%.3f"):
    return f % x if x is not None else "n/a"


def alternate(workloads, reps, key, rows, bench):
    """workloads: [(mode, cmd)], run in turn reps times; medians by mode."""
    got = {m: [] for m, _ in workloads}
    for r in range(reps):
        for mode, cmd in workloads:
            v, wall = run(cmd, key)
            got[mode].append(v)
            rows.append([bench, mode, r, v, "%.2f" % wall])
            log("# %s %s rep %d: %s (%.1f s)" % (bench, mode, r, v, wall))
    return {m: med(v) for m, v in got.items()}


def report_rusage(d, out):
    """kprofctl report D -o OUT under peak_rss: (wall s, peak RSS KiB, exit)."""
    p = subprocess.run([PEAK, K, "report", d, "-o", out], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    m = re.search(r"peak_rss_kib (\d+) wall_s ([0-9.]+) exit (\d+)", p.stdout)
    if not m or m.group(3) != "0":
        log("# report %s failed:\n%s" % (d, p.stdout[-2000:]))
    if not m:
        return None, None, None
    return float(m.group(2)), int(m.group(1)), int(m.group(3))


def write_csv(name, head, rows):
    with open(os.path.join(OUT, name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(rows)


def kprof_kernels(d):
    by = {}
    for r in csv.DictReader(open(os.path.join(d, "ops.csv"))):
        if not r["OP CODE"].startswith("["):
            by.setdefault(r["OP CODE"][:511], []).append(int(r["DEVICE KERNEL DURATION [ns]"]))
    return by


def torch_kernels(trace):
    by = {}
    for e in json.load(open(trace)).get("traceEvents", []):
        if e.get("cat") == "kernel" and "dur" in e:
            by.setdefault(e["name"][:511], []).append(float(e["dur"]) * 1000.0)
    return by


def part_launch(spin, cap, rows):
    log("## 1. launch overhead: %d empty kernels (spin.cu's tiny loop), %d runs per mode" % (N, REPS))
    c = alternate([("bare", spin + [str(N), "4096"]),
                   ("kprof", capture_cmd(cap, spin + [str(N), "4096"]))],
                  REPS, SPIN_NS, rows, "cuda_launch")
    log("# last kprof capture: " + gpu_stats(cap))
    os.rename(cap, os.path.join(TMP, "cap100k"))
    log("C empty kernel, us/launch: bare %s, kprof %s (+%s)" % (
        fmt(c["bare"] and c["bare"] / 1e3), fmt(c["kprof"] and c["kprof"] / 1e3),
        fmt(c["bare"] and c["kprof"] and (c["kprof"] - c["bare"]) / 1e3)))


def part_torch(cap, rows):
    log("## 1b. launch overhead: %d x.add_(1) in PyTorch, %d runs per mode" % (N, PY_REPS))
    t = alternate([("bare", TORCH + ["launch", str(N)]),
                   ("torch_profiler", TORCH + ["launch", str(N), "--profile"]),
                   ("kprof", capture_cmd(cap, TORCH + ["launch", str(N)]))],
                  PY_REPS, TORCH_NS, rows, "torch_launch")
    log("# last kprof capture: " + gpu_stats(cap))
    tb = t["bare"]
    log("PyTorch x.add_(1), us/launch: bare %s, torch.profiler %s (+%s), kprof %s (+%s)" % (
        fmt(tb and tb / 1e3), fmt(t["torch_profiler"] and t["torch_profiler"] / 1e3),
        fmt(tb and t["torch_profiler"] and (t["torch_profiler"] - tb) / 1e3),
        fmt(t["kprof"] and t["kprof"] / 1e3), fmt(tb and t["kprof"] and (t["kprof"] - tb) / 1e3)))


def part_resnet(cap, rrows):
    """Each batch size in turn; the first one's capture and a torch.profiler
    run of it give the accuracy comparison."""
    trace = os.path.join(TMP, "torch_trace.json")
    first_cap = None
    for b in BATCHES:
        rcmd = TORCH + ["resnet", str(STEPS), "--batch", str(b)]
        log("## 2. ResNet-50 bs%d bf16 train step, %d timed steps, %d runs per mode"
            % (b, STEPS, PY_REPS))
        rn = alternate([("bare", rcmd), ("kprof", capture_cmd(cap, rcmd))],
                       PY_REPS, IMG_S, rrows, "resnet50_bs%d" % b)
        log("# last kprof capture: " + gpu_stats(cap))
        tp = None
        if first_cap is None:
            tp, _ = run(rcmd + ["--profile", trace], IMG_S)
            rrows.append(["resnet50_bs%d" % b, "torch_profiler", 0, tp, ""])
            first_cap = os.path.join(TMP, "cap-resnet")
            os.rename(cap, first_cap)
        log("ResNet-50 bs%d img/s: bare %s, kprof %s (ratio %s %%), torch.profiler %s (one run)" % (
            b, fmt(rn["bare"], "%.1f"), fmt(rn["kprof"], "%.1f"),
            fmt(rn["bare"] and rn["kprof"] and 100 * rn["kprof"] / rn["bare"], "%.2f"),
            fmt(tp, "%.1f")))
    log("## 2b. accuracy: per-kernel median duration, kprof vs PyTorch's profiler (separate runs)")
    acc = []
    agree = common = 0
    if first_cap and os.path.exists(trace) and os.path.exists(os.path.join(first_cap, "ops.csv")):
        kk, tk = kprof_kernels(first_cap), torch_kernels(trace)
        for name in sorted(set(kk) & set(tk)):
            mk, mt = statistics.median(kk[name]), statistics.median(tk[name])
            tol = 1000.0 if mt < 100000 else 0.01 * mt
            ok = abs(mk - mt) <= tol
            common += 1
            agree += ok
            acc.append([name, len(kk[name]), "%.0f" % mk, len(tk[name]), "%.0f" % mt,
                        "%.0f" % (mk - mt), int(ok)])
        log("# kernel names: kprof %d, PyTorch %d, in both %d" % (len(kk), len(tk), common))
    else:
        log("# accuracy not run: no kprof ops.csv or no PyTorch trace")
    write_csv("accuracy.csv", ["kernel", "kprof_n", "kprof_median_ns", "torch_n",
                               "torch_median_ns", "diff_ns", "agree"], acc)
    log("Accuracy: %d of %d kernel names agree (1 %%, or 1 us under 100 us)" % (agree, common))


def part_report(spin):
    log("## 3. report of a %d-kernel capture vs a %d-kernel one: time and peak RSS" % (BIG, N))
    cap100k = os.path.join(TMP, "cap100k")
    if not os.path.isdir(cap100k):
        run(capture_cmd(cap100k, spin + [str(N), "4096"]), SPIN_NS)
    capbig = os.path.join(TMP, "capbig")
    t0 = time.perf_counter()
    big, _ = run(capture_cmd(capbig, spin + [str(BIG), "4096"]), SPIN_NS)
    capwall = time.perf_counter() - t0
    log("# %d-launch capture: %s ns/launch, capture wall %.1f s; %s"
        % (BIG, big, capwall, gpu_stats(capbig)))
    rep = []
    for n, d in ((N, cap100k), (BIG, capbig)):
        raw = sum(os.path.getsize(os.path.join(d, "raw", f)) for f in os.listdir(os.path.join(d, "raw")))
        wall, rss, st = report_rusage(d, os.path.join(TMP, "rep-%d" % n))
        rep.append([n, raw, wall, rss, st])
        log("# report of %d launches: spool %d bytes, %s s, peak RSS %s KiB, exit %s"
            % (n, raw, wall, rss, st))
        log("Report of %d launches: %s s, peak RSS %s KiB (exit %s)" % (n, wall, rss, st))
    write_csv("report.csv", ["launches", "raw_bytes", "report_wall_s", "peak_rss_kib", "exit"], rep)


def main():
    spin = [SPIN, "0", "0"]	# no spin kernels: the tiny loop alone
    cap = os.path.join(TMP, "cap")
    rows, rrows = [], []
    unknown = set(PARTS) - {"launch", "torch", "resnet", "report"}
    if unknown:
        sys.exit("nvbench.py: unknown NVBENCH_PARTS %s (launch, torch, resnet, report)"
                 % ",".join(sorted(unknown)))
    if "launch" in PARTS:
        part_launch(spin, cap, rows)
    if "torch" in PARTS:
        part_torch(cap, rows)
    if rows:
        write_csv("launch.csv", ["bench", "mode", "rep", "host_ns_per_launch", "wall_s"], rows)
    if "resnet" in PARTS:
        part_resnet(cap, rrows)
        write_csv("resnet.csv", ["bench", "mode", "rep", "img_per_s", "wall_s"], rrows)
    if "report" in PARTS:
        part_report(spin)
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
