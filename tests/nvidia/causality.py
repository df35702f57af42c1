# SPDX-License-Identifier: GPL-2.0
"""Causality of an NVIDIA capture, from its ops.csv alone (no kprofctl).

usage: causality.py DIR [MIN_KERNELS]

Counts two kinds of violation over every row of DIR/ops.csv:
  launch: the op started on the GPU (DEVICE FW START TS) before its
          launch entered on the host (HOST START TS: the launch call's
          entry, or the kernel's queued timestamp; --host-times);
  sync:   the sync call that covered the op returned (SYNC END TS)
          before the op ended on the GPU (DEVICE FW END TS).
Prints the counts, the rows each was checked on, and the worst case of
each (ns). Exit status 0 when both are zero and at least MIN_KERNELS
(default 0) kernel rows (not [memcpy]/[memset]) had a host launch time
to check; else 1. check.sh runs it on a capture of spin.cu's tiny-kernel
loop with syncs interleaved.
"""
import csv
import sys


def check(path):
    """(rows, kernels with a launch time, launch violations, worst launch
    ns, rows with a sync, sync violations, worst sync ns)"""
    rows = kl = lv = sr = sv = 0
    lw = sw = 0
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows += 1
            hs, fs = r["HOST START TS"], r["DEVICE FW START TS [ns]"]
            if hs and fs:
                if not r["OP CODE"].startswith("["):
                    kl += 1
                d = int(hs) - int(fs)
                if d > 0:
                    lv += 1
                    lw = max(lw, d)
            se, fe = r["SYNC END TS [ns]"], r["DEVICE FW END TS [ns]"]
            if se and fe:
                sr += 1
                d = int(fe) - int(se)
                if d > 0:
                    sv += 1
                    sw = max(sw, d)
    return rows, kl, lv, lw, sr, sv, sw


def main():
    d = sys.argv[1]
    need = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    rows, kl, lv, lw, sr, sv, sw = check(d + "/ops.csv")
    print("# causality %s: %d ops; launch violations %d of %d kernels with a launch time "
          "(worst %d ns early); sync violations %d of %d ops with a sync (worst %d ns early)"
          % (d, rows, lv, kl, lw, sv, sr, sw))
    return 0 if lv == 0 and sv == 0 and kl >= need else 1


if __name__ == "__main__":
    sys.exit(main())
