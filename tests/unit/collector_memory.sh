#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The collector's memory must be bounded by the ops in flight, not grow
# with the capture. A full report (trace.json and report.html
# included) of synthetic spools of 4M and 16M markers (3125 and 12500
# ops) must both succeed within the same 12 MiB data limit (ulimit -d:
# heap and anonymous mappings, not the spool's file mappings). 4M needs
# 6-8 MiB today. The regressions this catches: about 1 KB per op
# (report.html once kept that) needs 12 MiB more at 16M, 32 bytes per
# op slice (trace.json's busy counter) 25 MiB more; either fails with
# ENOMEM, which the report names.
#
# The same for an NVIDIA capture (the CUPTI agent's spool, collector
# gen-gpu: a launch every 4 us): 40k and 160k kernels within 48 MiB.
# Every GPU op the report holds for late inputs costs ~1.8 KB, so the
# held window must stay short: the 200 ms of kprof.ko captures (50k ops
# here), or the second that the agent's SYNC triples once made the
# lateness look like (CUPTI hands buffers over in batches), holds every
# op of these captures and needs 75-300 MiB.
#
# And for --host-times uprobe (gen-gpu ... uprobe: the launch calls in
# the uprobes' spool, joined to the kernels by order): 40k and 640k
# kernels within the same 48 MiB. The join holds its reorder windows
# (KPROF_CJ_WINDOW records), not the capture: holding every call and
# kernel, as it once did, costs ~120 bytes a kernel, 75 MiB more at 640k.
# Usage: collector_memory.sh BUILD/bench/collector
set -eu
bin=$1
limit_kib=12288
dir=$(mktemp -d "${TMPDIR:-/tmp}/kprof-collector-memory.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM

for markers in 4000000 16000000; do
	"$bin" gen "$dir/spool" "$markers" >/dev/null
	if ! (ulimit -d "$limit_kib" && "$bin" run "$dir/spool" "$dir/out" trace) >"$dir/log" 2>&1; then
		cat "$dir/log" >&2
		echo "collector_memory: the report of $markers markers does not fit" \
		     "$limit_kib KiB of data: memory grows with the capture" >&2
		exit 1
	fi
	echo "collector_memory: $markers markers within $limit_kib KiB of data:" \
	     "$(tail -n 1 "$dir/log")"
	rm -rf "$dir/spool" "$dir/out"
done

gpu_limit_kib=49152
for kernels in 40000 160000; do
	"$bin" gen-gpu "$dir/spool" "$kernels" >/dev/null
	if ! (ulimit -d "$gpu_limit_kib" && "$bin" run "$dir/spool" "$dir/out" trace) >"$dir/log" 2>&1; then
		cat "$dir/log" >&2
		echo "collector_memory: the report of an NVIDIA capture of $kernels kernels" \
		     "does not fit $gpu_limit_kib KiB of data: memory grows with the capture" >&2
		exit 1
	fi
	echo "collector_memory: NVIDIA, $kernels kernels within $gpu_limit_kib KiB of data:" \
	     "$(tail -n 1 "$dir/log")"
	rm -rf "$dir/spool" "$dir/out"
done

for kernels in 40000 640000; do
	"$bin" gen-gpu "$dir/spool" "$kernels" uprobe >/dev/null
	if ! (ulimit -d "$gpu_limit_kib" && "$bin" run "$dir/spool" "$dir/out" trace) >"$dir/log" 2>&1 ||
	   ! grep -q "launches joined to kernels: $kernels of $kernels " "$dir/out/summary.txt"; then
		cat "$dir/log" >&2
		echo "collector_memory: the report of an NVIDIA uprobe capture of $kernels kernels" \
		     "does not fit $gpu_limit_kib KiB of data (or did not join them all):" \
		     "memory grows with the capture" >&2
		exit 1
	fi
	echo "collector_memory: NVIDIA uprobe, $kernels kernels within $gpu_limit_kib KiB of data:" \
	     "$(tail -n 1 "$dir/log")"
	rm -rf "$dir/spool" "$dir/out"
done
