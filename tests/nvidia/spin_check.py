# SPDX-License-Identifier: GPL-2.0
"""check.sh's test of a capture of spin.cu: usage spin_check.py DIR CYCLES MHZ.

Every kprof_spin kernel lasts CYCLES / MHZ within 0.5 %; no kernel starts
before its launch call entered (LAUNCH TO START >= 0); no covering sync
returns before its kernel ended; CUPTI dropped nothing; the agent stopped.
"""
import csv
import json
import sys

d, cycles, mhz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = list(csv.DictReader(open(d + "/ops.csv")))
spins = [r for r in rows if r["OP CODE"].startswith("kprof_spin")]
want = cycles * 1000.0 / mhz
errs = [abs(int(r["DEVICE KERNEL DURATION [ns]"]) - want) / want for r in spins]
bad = 0
for r in rows:
    if r["HOST START TS"] and int(r["DEVICE FW START TS [ns]"]) < int(r["HOST START TS"]):
        bad += 1
    if r["SYNC END TS [ns]"] and int(r["SYNC END TS [ns]"]) < int(r["DEVICE FW END TS [ns]"]):
        bad += 1
g = json.load(open(d + "/params.json"))["gpu"]
print("# spin kernels %d, worst error %.4f %%; ops %d, causality violations %d, dropped %d"
      % (len(spins), 100 * max(errs + [0]), len(rows), bad, g["dropped_records"]))
sys.exit(0 if (len(spins) == 10 and max(errs) < 0.005 and bad == 0 and
               g["dropped_records"] == 0 and g["agent_stopped"]) else 1)
