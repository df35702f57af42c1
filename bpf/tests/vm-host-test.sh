#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The BPF host test on the TARGET kernel (Debian 6.1 in the VM lane), where
# fentry/fexit are allowed: exercises the handler and LSM hooks that the
# development kernel refuses. Run from the host:
#   tests/vm/run --no-load --exec bpf/tests/vm-host-test.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../../build}
mountpoint -q /sys/kernel/tracing 2>/dev/null ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
echo "# kernel $(uname -r)"
KPROF_REQUIRE_BPF=1 exec "$here/run-host-test.sh" "$BUILD/bpf/kprof_bpf_host_test"
