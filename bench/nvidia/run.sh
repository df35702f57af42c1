#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kprof's NVIDIA capture, measured on a GPU host (docs/performance.md,
# "NVIDIA GPU capture"): per-launch host cost of an empty kernel and of a
# PyTorch op, bare vs kprofctl capture vs PyTorch's profiler; ResNet-50
# training throughput with and without capture; per-kernel durations,
# kprof vs PyTorch's profiler; time and peak RSS of kprofctl report for
# 100k and 1M kernels. Runs alternated; medians printed (nvbench.py).
#
#   bench/nvidia/run.sh KPROFCTL AGENT [OUTDIR]
# KPROFCTL: a kprofctl (on a GPU host: the carried `make static` one);
# AGENT: libkprof_cupti.so built there (make -C user agent). The CSVs go
# to OUTDIR (default: a new directory under /tmp, named at the end).
# Needs nvcc (builds tests/nvidia/spin.cu), gcc (peak_rss.c), python3 with torch and
# torchvision, one NVIDIA GPU (GPU 0), and root or the GPU's users.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/nvidia/run.sh KPROFCTL AGENT [OUTDIR]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
K=$(realpath "$1")
AGENT=$(realpath "$2")
out=${3:-$(mktemp -d /tmp/kprof-nvbench.XXXXXX)}
mkdir -p "$out"
out=$(realpath "$out")
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || { echo "run.sh: no nvcc (in PATH or /usr/local/cuda/bin): it builds tests/nvidia/spin.cu" >&2; exit 1; }
nvidia-smi -i 0 --query-gpu=name,driver_version --format=csv,noheader ||
	{ echo "run.sh: nvidia-smi finds no GPU 0: this benchmark needs an NVIDIA GPU" >&2; exit 1; }
"$NVCC" -O2 -o "$out/spin" "$root/tests/nvidia/spin.cu"
${CC:-gcc} -std=c11 -Wall -Wextra -Werror -O2 -o "$out/peak_rss" "$here/peak_rss.c"
python3 -c 'import torch, torchvision; print("# torch", torch.__version__, "torchvision", torchvision.__version__)'
echo "# kprofctl $K, agent $AGENT, outputs in $out"
python3 "$here/nvbench.py" "$K" "$AGENT" "$out/spin" "$out/peak_rss" "$out"
rm -f "$out/spin" "$out/peak_rss"
echo "# CSVs: $out"
