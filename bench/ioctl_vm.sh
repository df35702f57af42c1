#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/ioctl's binary inside the VM lane (Debian 6.1, where fentry loads):
# shows that every hook kind attaches and traces there without losing
# events. qemu runs under TCG, so its ns are emulation costs, not hook
# costs: do not quote them (docs/performance.md uses the native run).
# Build first with bench/ioctl -r 1 -n 1.
#   tests/vm/run --no-load --exec bench/ioctl_vm.sh -- [-r ROUNDS] [-n CALLS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
mountpoint -q /sys/kernel/tracing 2>/dev/null ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
echo "# kernel $(uname -r) under qemu TCG: functional run, timings are not hook costs"
exec "$BUILD/bench/ioctl_bench" "$@"
