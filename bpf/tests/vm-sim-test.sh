#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The sim end to end in the VM lane (kprof.ko and kprof_sim.ko, one sim device):
# automatic hook choice, then each hook kind forced in turn.
#   make -C bpf tests && tests/vm/run --exec bpf/tests/vm-sim-test.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../../build}
mountpoint -q /sys/kernel/tracing 2>/dev/null ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
pass=0 fail=0 hooks="auto lsm tp rawtp"
# The handler hook (kprof_sim_vendor_ioctl) needs kprof_sim.ko's own BTF
# (modules built with pahole against a KDIR that has vmlinux); say loudly
# when it cannot be tested.
if [ -e /sys/kernel/btf/kprof_sim ]; then
	hooks="$hooks handler"
else
	echo "# NOT TESTED: handler hook (kprof_sim.ko has no BTF: /sys/kernel/btf/kprof_sim missing)"
fi
for hook in $hooks; do
	echo "# hook $hook"
	if "$BUILD/bpf/kprof_bpf_sim_test" /dev/kprof_sim0 "$hook"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
