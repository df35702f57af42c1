#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl capture --device nvidia:0 --host-times uprobe end to end, no
# GPU: the real agent and the stand-in libcupti play the spin recording
# (tests/nvidia/data/spin.cuptirec, as tests/unit/test_gpu_capture.c
# does), while fake_cuda calls the stand-in libcuda.so.1
# (tests/nvidia/fake_libcuda.c) once per recorded kernel before the
# playback, so that the uprobes see every launch before its kernel.
# Checks the join (every kernel has its launch, in params.json, summary.txt
# and ops.csv), that a launch the uprobes miss is counted, and that a
# library without cuLaunchKernel stops the capture before CMD runs.
# Needs root (BPF); exit 77 when BPF is not permitted.
#
# usage: cuda-capture-test.sh BUILD SRC
set -u
B=$1 SRC=$2
T=$(mktemp -d /tmp/kprof-cuda-capture.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "not ok $1: $2"; fail=$((fail + 1)); }

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: the uprobe capture needs root (BPF)"
	exit 77
fi
FULL=$B/bpf/cuda/full/libcuda.so.1
export KPROF_STANDIN_DATA=$SRC/tests/nvidia/data/spin.cuptirec
cap() {	# NAME HOST_TIMES_ARGS... -- FAKE_CUDA_ARGS...
	local name=$1
	shift
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	(cd "$T" && "$B/kprofctl" capture --device nvidia:0 --agent "$B/libkprof_cupti.so" \
		--cupti "$B/tests/nvidia/libcupti_standin.so" "${opts[@]}" -o "$T/$name" \
		-- "$B/tests/nvidia/fake_cuda" "$@" >"$T/$name.log" 2>&1)
}
# params.json gpu.KEY or gpu.uprobes.KEY
gpu() { python3 -c "import json,sys; g=json.load(open(sys.argv[1]))['gpu']; print(g.get(sys.argv[2], g.get('uprobes', {}).get(sys.argv[2])))" "$T/$1/params.json" "$2"; }

# the recording's kernels, from a capture with the default host times
if ! cap api -- || ! K=$(gpu api kernels) || [ "$K" -lt 2 ]; then
	echo "not ok setup: the api capture failed"; cat "$T/api.log"
	echo "0 passed, 1 failed"
	exit 1
fi

# every kernel's launch seen: all joined
if cap all --host-times uprobe --libcuda "$FULL" -- calls "$K" "$FULL"; then
	v="$(gpu all host_times) $(gpu all joined) $(gpu all kernel_launches) $(gpu all kernels_without_launch) $(gpu all calls_without_kernel) $(gpu all calls) $(gpu all syncs) $(gpu all bpf_lost) $(gpu all other_process_calls)"
	want="uprobe $K $K 0 0 $((K + 2)) 2 0 0"
	[ "$v" = "$want" ] && ok "joined: $v" || bad joined "params.json '$v', wanted '$want'"
	grep -q "launches joined to kernels: $K of $K" "$T/all/summary.txt" &&
		grep -q "host timestamps (uprobe)" "$T/all/summary.txt" &&
		ok "summary.txt" || bad summary.txt "$(sed -n 1,20p "$T/all/summary.txt")"
	# kernels (not [memcpy]/[memset]) have a host start; copies do not
	n=$(python3 - "$T/all/ops.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
k = [r for r in rows if not r["OP CODE"].startswith("[")]
print(sum(1 for r in k if r["HOST START TS"] and r["LAUNCH TO START [ns]"]),
      sum(1 for r in rows if r["OP CODE"].startswith("[") and r["HOST START TS"]))
PY
)
	[ "$n" = "$K 0" ] && ok "ops.csv: $K kernels with host times" ||
		bad ops.csv "kernels with host times / copies with: $n (wanted $K 0)"
else
	bad capture "$(tail -5 "$T/all.log")"
fi

# one launch fewer than kernels (a launch the uprobes did not see): counted
if cap fewer --host-times uprobe --libcuda "$FULL" -- calls "$((K - 1))" "$FULL"; then
	v="$(gpu fewer joined) $(gpu fewer kernels_without_launch)"
	[ "$v" = "$((K - 1)) 1" ] && ok "a missed launch counted" || bad missed "'$v'"
	grep -q "kernel launches without a launch call: 1 .*<--" "$T/fewer/summary.txt" &&
		ok "summary.txt flags it" || bad "summary flag" "$(grep without "$T/fewer/summary.txt")"
else
	bad capture "$(tail -5 "$T/fewer.log")"
fi

# not a CUDA driver: refused, named, CMD not run
if cap nolaunch --host-times uprobe --libcuda "$B/bpf/cuda/nolaunch/libcuda.so.1" -- \
	calls 1 "$FULL"; then
	bad nolaunch "exit 0"
elif grep -q "no function cuLaunchKernel" "$T/nolaunch.log" &&
	! ls "$T"/nolaunch/raw/gpu-*.kspool >/dev/null 2>&1; then
	ok "a library without cuLaunchKernel refused before CMD ran"
else
	bad nolaunch "$(cat "$T/nolaunch.log")"
fi

# --libcuda without uprobe, --api with it: usage errors
if ! cap u1 --libcuda "$FULL" -- && grep -q "for --host-times uprobe" "$T/u1.log" &&
	! cap u2 --host-times uprobe --api driver -- && grep -q "cannot go with it" "$T/u2.log"; then
	ok "usage errors"
else
	bad usage "$(cat "$T/u1.log" "$T/u2.log")"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
