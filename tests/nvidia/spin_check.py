# SPDX-License-Identifier: GPL-2.0
"""check.sh's test of a capture of spin.cu.

usage: spin_check.py DIR CYCLES MHZ SPIN_OUTPUT

Every kprof_spin kernel's DEVICE KERNEL DURATION is within 0.5 % of the
time the GPU's own nanosecond timer (%globaltimer, read by the kernel at
its start and end; spin.cu prints it, SPIN_OUTPUT holds those lines) says
it ran. CYCLES / MHZ is printed beside it, not checked: a locked SM clock
is not always the clock the SMs run at (one H100 locked at 1200 MHz ran
the loop at 1215 MHz while NVML and nvidia-smi read 1200), and the
kernel's timer shows which. Also causality.py's two checks (no kernel
starts before its launch entered; no covering sync returns before its
kernel ended); CUPTI dropped nothing; the agent stopped.
"""
import csv
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import causality  # noqa: E402  (tests/nvidia/causality.py: the one causality check)

d, cycles, mhz, spin_out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rows = list(csv.DictReader(open(d + "/ops.csv")))
spins = [r for r in rows if r["OP CODE"].startswith("kprof_spin")]
gpu = [int(m.group(2)) for m in
       (re.match(r"spin (\d+) cycles \d+ gtimer_ns (\d+)", l) for l in open(spin_out)) if m]
nominal = cycles * 1000.0 / mhz
errs, nerrs = [], []
for r, g in zip(spins, gpu):
    k = int(r["DEVICE KERNEL DURATION [ns]"])
    errs.append(abs(k - g) / g)
    nerrs.append((k - nominal) / nominal)
_, _, lv, _, _, sv, _ = causality.check(d + "/ops.csv")
bad = lv + sv
g = json.load(open(d + "/params.json"))["gpu"]
eff = cycles / (sum(gpu) / len(gpu)) * 1000 if gpu else 0
print("# spin kernels %d (GPU timer for %d); worst error against the GPU timer %.4f %%; "
      "against %d cycles / %d MHz %+.4f .. %+.4f %% (the SMs ran at %.1f MHz by the GPU timer); "
      "ops %d, causality violations %d, dropped %d"
      % (len(spins), len(gpu), 100 * max(errs + [0]), cycles, mhz, 100 * min(nerrs + [0]),
         100 * max(nerrs + [0]), eff, len(rows), bad, g["dropped_records"]))
sys.exit(0 if (len(spins) == 10 and len(gpu) == 10 and max(errs) < 0.005 and bad == 0 and
               g["dropped_records"] == 0 and g["agent_stopped"]) else 1)
