#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A bounded run of the ioctl fuzzer (tests/fuzz/ioctl_fuzz.c, static
# $BUILD/fuzz/ioctl_fuzz) in the VM suite: fixed seeds, so a failure
# replays with the same call streams, each run with the mapping chaos,
# kill -9 of capture holders and device churn (sim devices; the edu device
# through sysfs remove and rescan where kprof_edu.ko drives one). A run
# passes when the fuzzer finds no anomaly, every ring page beyond the
# device caches is back (debugfs kprof/pages), and kprof.ko is still
# loaded; kernel reports (KASAN, lockdep, WARNING...) fail the runner's
# dmesg check. One TAP case per seed, then the "# Totals:" line.
#
#   KPROF_FUZZ_SEEDS   seeds, one run each (default "1 2")
#   KPROF_FUZZ_CALLS   ioctl calls per run (default 60000; the debug
#                      lane sets fewer, tests/vm/debug-kernel/suite.sh)
BUILD=${BUILD:-/kprof/build}
BIN=$BUILD/fuzz/ioctl_fuzz
seeds=${KPROF_FUZZ_SEEDS:-1 2}
calls=${KPROF_FUZZ_CALLS:-60000}
n=0 npass=0 nfail=0
log=$(mktemp /tmp/ioctl_fuzz.XXXXXX)

if [ ! -x "$BIN" ]; then
	# a build problem: fail (make check-vm and check-debug build it)
	echo "not ok 1 - ioctl_fuzz: $BIN is not built (make -C tests/fuzz ioctl)"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
# the fuzzer's page check reads debugfs kprof/pages
[ -r /sys/kernel/debug/kprof/pages ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null

for seed in $seeds; do
	n=$((n + 1))
	t0=$(date +%s)
	"$BIN" --seed "$seed" --calls "$calls" >"$log" 2>&1
	st=$?
	# TAP comments: the counts, the page check, anomalies
	sed 's/^/# /' "$log"
	what="ioctl_fuzz --seed $seed --calls $calls ($(($(date +%s) - t0)) s)"
	if [ "$st" = 0 ] && grep -q '^kprof ' /proc/modules; then
		npass=$((npass + 1))
		echo "ok $n - $what"
	else
		nfail=$((nfail + 1))
		grep -q '^kprof ' /proc/modules || what="$what: kprof.ko is no longer loaded"
		echo "not ok $n - $what # exit $st"
	fi
done
rm -f "$log"
echo "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:0 error:0"
[ "$nfail" = 0 ]
