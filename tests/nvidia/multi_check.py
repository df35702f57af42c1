# SPDX-License-Identifier: GPL-2.0
"""A multi-GPU NVIDIA capture checked from its outputs alone.

usage: multi_check.py DIR NGPU STEPS

DIR is `kprofctl capture --device nvidia:all` (or nvidia:0,...) of
ddp_step.py under torchrun, one process per GPU. Checks, printing each:
  - every GPU's directory DIR/nvidiaK/ has ops, among them NCCL
    all-reduce kernels (ncclKernel_*/ncclDevKernel_* with AllReduce),
    at least STEPS of them, the same count on every GPU;
  - the routing counts (params.json config.routing): no op of an unknown
    device, none of a GPU not captured;
  - the k-th all-reduce kernels of all GPUs overlap in host time (a ring
    all-reduce runs on all GPUs at once): max(start) < min(end), for
    every k;
  - nothing dropped (params.json gpu.dropped_records), the agent stopped;
  - DIR/report.md compares the steps.
Exit 0 when all hold.
"""
import csv
import json
import sys


def allreduce(path):
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            op = r["OP CODE"]
            if (op.startswith("ncclKernel_") or op.startswith("ncclDevKernel_")) and \
                    "AllReduce" in op and r["DEVICE FW START TS [ns]"]:
                out.append((int(r["DEVICE FW START TS [ns]"]), int(r["DEVICE FW END TS [ns]"])))
    return sorted(out)


def main():
    d, ngpu, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    ok = True
    ar = []
    for k in range(ngpu):
        sub = "%s/nvidia%d" % (d, k)
        a = allreduce(sub + "/ops.csv")
        p = json.load(open(sub + "/params.json"))
        rt = p["config"]["routing"]
        g = p["gpu"]
        good = (len(a) >= steps and rt["ops_unknown_gpu"] == 0 and
                rt["ops_gpus_not_captured"] == 0 and g["dropped_records"] == 0 and
                g["agent_stopped"])
        print("# nvidia%d: %d all-reduce kernels, routed %d ops, unknown %d, other GPUs %d, "
              "dropped %d, agent stopped %s" % (k, len(a), rt["ops_this_gpu"],
                                                rt["ops_unknown_gpu"],
                                                rt["ops_gpus_not_captured"],
                                                g["dropped_records"], g["agent_stopped"]))
        ok &= good
        ar.append(a)
    counts = {len(a) for a in ar}
    if len(counts) != 1:
        print("# all-reduce counts differ across GPUs: %s" % [len(a) for a in ar])
        ok = False
    n = min(len(a) for a in ar)
    apart = [k for k in range(n)
             if max(a[k][0] for a in ar) >= min(a[k][1] for a in ar)]
    print("# %d all-reduce kernels per GPU compared, %d not overlapping in host time%s" %
          (n, len(apart), (": first at k=%d" % apart[0]) if apart else ""))
    ok &= n > 0 and not apart
    md = open(d + "/report.md").read()
    if "## Steps" not in md or "No step to compare" in md:
        print("# report.md compares no steps")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
