#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/ioctl's binary inside the VM lane (Debian 6.1, where fentry loads).
# qemu runs under TCG there: absolute ns are emulation costs, so only the
# ORDER of the hook kinds means anything. Build first with bench/ioctl -n 1.
#   tests/vm/run --no-load --exec bench/ioctl_vm.sh [-r ROUNDS] [-n CALLS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
mountpoint -q /sys/kernel/tracing 2>/dev/null ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
echo "# kernel $(uname -r) under qemu TCG: compare hooks with each other only"
exec "$BUILD/bench/ioctl_bench" "$@"
