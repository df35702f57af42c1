#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Captures of several NVIDIA GPUs on a real host, as root (check.sh runs
# it; alone: KPROFCTL=... AGENT=... tests/nvidia/multi_check.sh):
#  - on any GPU host, two processes on GPU 0 under --device nvidia:all:
#    both agents' ops routed to DIR/nvidia0/ by the UUID libcuda gives
#    (none unknown: CUDA's UUID bytes are NVML's UUID), each process's
#    report (report --pid) holding its own ops, together every op routed
#    there, and a second capture of GPU 0 while it runs refused, naming
#    the holder;
#  - with 2 or more GPUs: a PyTorch DDP loop with NCCL all-reduce on two
#    GPUs (torchrun, one process per GPU, ddp_step.py) captured with
#    --device nvidia:0,nvidia:1: each GPU's kernels in its own directory,
#    the all-reduce kernels of the two GPUs overlapping in host time,
#    nothing dropped, no unknown GPU (multi_check.py), and causality.py on
#    each GPU's ops. With one GPU this part is skipped, said as such.
# NVLink multicast stays off in every process started here:
# NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# (exported below; nothing here calls cuMulticastCreate).
# Prints TAP lines and "N passed, N failed"; exit 0 when none failed.
# Env: KPROFCTL (default build/static/kprofctl), AGENT (default
# build/libkprof_cupti.so), STEPS (DDP steps, default 50).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
K=${KPROFCTL:-$root/build/static/kprofctl}
AGENT=${AGENT:-$root/build/libkprof_cupti.so}
STEPS=${STEPS:-50}
tmp=$(mktemp -d /tmp/kprof-nvidia-multi.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
. "$here/tap_lib.sh"

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
echo "# $ngpu GPU(s)"

# Two CUDA processes on GPU 0 (200 + 100 iterations, a matmul kernel in
# each: 300 ops at least); a FIFO holds the capture open for the holder check.
cat >"$tmp/mm.py" <<'PY'
import sys, torch
x = torch.randn(2048, 2048, device="cuda:0")
for _ in range(int(sys.argv[1])):
    x = (x @ x).clamp_(-1, 1)
torch.cuda.synchronize()
PY
mkfifo "$tmp/go"
"$K" capture --device nvidia:all --agent "$AGENT" -o "$tmp/two" -- sh -c \
	"python3 $tmp/mm.py 200 & python3 $tmp/mm.py 100; wait; touch $tmp/ready; read x <$tmp/go" \
	>"$tmp/two.log" 2>&1 &
cap=$!
i=0
while [ ! -f "$tmp/ready" ] && [ $i -lt 1200 ] && kill -0 $cap 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
run 1 "$K" capture --device nvidia:0 --agent "$AGENT" -o "$tmp/busy" -- true
grep -q "nvidia:0 is being captured by pid $cap (kprofctl)" "$tmp/out"
tap $? "a capture of GPU 0 while --device nvidia:all holds it: refused, naming the holder"
timeout 60 sh -c "echo >$tmp/go"
wait $cap
st=$?
sed 's/^/# /' "$tmp/two.log"
tap $st "capture --device nvidia:all of two processes on GPU 0"
[ "$(ls "$tmp/two/nvidia0/raw/"gpu-*.kspool 2>/dev/null | wc -l)" -ge 2 ] &&
	[ "$(json 'j["config"]["routing"]["ops_unknown_gpu"]' "$tmp/two/nvidia0/params.json")" = 0 ] &&
	[ "$(json 'j["config"]["routing"]["ops_this_gpu"]' "$tmp/two/nvidia0/params.json")" -ge 300 ]
tap $? "... both processes' ops routed to nvidia0 by UUID, none of an unknown device"
# each process's own report (report --pid): together, every op routed there
sum=0 pids=
for f in "$tmp/two/nvidia0/raw/"gpu-*.kspool; do
	p=${f##*/gpu-}
	p=${p%.kspool}
	pids="$pids $p"
	run 0 "$K" report "$tmp/two/nvidia0" --pid "$p" -o "$tmp/pid-$p" &&
		[ "$(json 'j["gpu"]["spool_picked_by"]' "$tmp/pid-$p/params.json")" = pid ] &&
		grep -q "raw/gpu-$p.kspool (picked with --pid)" "$tmp/pid-$p/summary.txt"
	tap $? "... report --pid $p: that process's outputs"
	sum=$((sum + $(wc -l <"$tmp/pid-$p/ops.csv") - 1))
done
routed=$(json 'j["config"]["routing"]["ops_this_gpu"]' "$tmp/two/nvidia0/params.json")
echo "# ops.csv rows of the processes$pids: $sum; ops routed to nvidia0: $routed"
[ "$sum" = "$routed" ]
tap $? "... the processes' reports hold every op routed to nvidia0 ($sum)"

if [ "$ngpu" -lt 2 ]; then
	echo "# SKIP the 2-GPU DDP capture: this host has $ngpu GPU"
else
	run 0 "$K" capture --device nvidia:0,nvidia:1 --agent "$AGENT" -o "$tmp/ddp" -- \
		torchrun --standalone --nproc_per_node 2 "$here/ddp_step.py" "$STEPS"
	tap $? "capture --device nvidia:0,nvidia:1 -- torchrun (DDP, NCCL all-reduce, $STEPS steps)"
	python3 "$here/multi_check.py" "$tmp/ddp" 2 "$STEPS"
	tap $? "... each GPU's all-reduce kernels in its own outputs, overlapping in host time, nothing dropped"
	for k in 0 1; do
		python3 "$here/causality.py" "$tmp/ddp/nvidia$k"
		tap $? "... nvidia$k: no kernel before its launch, no sync before its kernels"
	done
	sed -n '/^## Collectives and compute/,/^## Op counts/p' "$tmp/ddp/report.md" | sed 's/^/# /'
fi
tap_end
