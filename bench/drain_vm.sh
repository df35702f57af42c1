#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/drain's part inside the VM: run the drain benchmark binary.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
echo "# kernel $(uname -r) under qemu TCG, $(nproc) vCPUs"
exec "$BUILD/bench/drain_bench" "$@"
