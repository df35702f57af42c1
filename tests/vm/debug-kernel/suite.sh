#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the debug-kernel VM (tests/vm/debug-kernel/check): the whole VM
# suite (tests/vm/suite.sh, same arguments), then unloads kprof.ko and asks
# kmemleak for a scan, which must find nothing. Unloading first makes leaks
# at module exit count too; the runner's own rmmod then has nothing to do.
#
# Time limits here are sized for the stock kernel under TCG; KASAN, lockdep
# and kmemleak make every syscall several times slower. So every kselftest
# time limit is multiplied (tests/kselftest/kprof_harness.h); no assertion
# changes. The stock lane does not scale.
export KPROF_TEST_TIMEOUT_SCALE=10
echo "# kprof-debug: KPROF_TEST_TIMEOUT_SCALE=$KPROF_TEST_TIMEOUT_SCALE"
# Every kselftest runs, but only the e2e scripts that drive the module's
# paths: capture, clock ioctls, EBUSY, removal and signals mid-capture,
# permissions. The others (analysis, trace/diff, report.html) exercise
# kprofctl's report code, which the stock lane runs on the same captures;
# here they took 12 of the lane's 35 minutes. The exclusive-open race runs
# 50 of its 200 rounds (1600 racing opens under lockdep and KASAN), and
# the clock tests kill kprofctl lock-clock at 12 of their 40 random
# points (a run takes over a second here; the stock lane runs them all).
# The ioctl fuzzer (e2e_ioctl_fuzz.sh) runs KPROF_FUZZ_CALLS calls per
# seed: each call is several times slower here than on the stock kernel.
export KPROF_SUITE_E2E="${KPROF_SUITE_E2E-e2e_capture.sh e2e_kprofctl.sh e2e_names.sh e2e_privileges.sh e2e_security.sh e2e_ioctl_fuzz.sh}"
export KPROF_EXCL_RACE_ROUNDS="${KPROF_EXCL_RACE_ROUNDS:-50}"
export KPROF_CLOCK_KILL_ROUNDS="${KPROF_CLOCK_KILL_ROUNDS:-12}"
export KPROF_FUZZ_CALLS="${KPROF_FUZZ_CALLS:-10000}"
# e2e_kprofctl.sh: its device part only (the host part, usage errors and
# host clocks against a fake cpufreq tree, touches no device and runs in
# make check-unit)
export DEVICE_ONLY=1
echo "# kprof-debug: e2e scripts: $KPROF_SUITE_E2E (e2e_kprofctl.sh: device part only); race rounds: $KPROF_EXCL_RACE_ROUNDS; clock kill rounds: $KPROF_CLOCK_KILL_ROUNDS; fuzz calls: $KPROF_FUZZ_CALLS"
# "bpf-sim" among the names runs the BPF sim test too; no names: everything.
all=0 bpf=0
[ $# = 0 ] && all=1 bpf=1
for name; do
	shift
	if [ "$name" = bpf-sim ]; then bpf=1; else set -- "$@" "$name"; fi
done
t0=$(date +%s)
rc=0
if [ "$all" = 1 ] || [ $# -gt 0 ]; then
	sh /kprof/tests/vm/suite.sh "$@"
	rc=$?
fi

# The BPF sim test (bpf/tests/vm-sim-test.sh) too: its hooks sit on kprof's
# ioctl path. Its "N passed, N failed" becomes a harness "# Totals:" line
# so the host counts it with the rest; without that line (the test died)
# the host counts a failure.
if [ "$bpf" = 1 ]; then
	echo "# kprof-suite: start bpf-sim"
	if [ ! -x "$BUILD/bpf/kprof_bpf_sim_test" ]; then
		# a build problem, not this kernel's: fail (make check-debug builds it)
		echo "# FAIL bpf-sim: $BUILD/bpf/kprof_bpf_sim_test is not built (make -C bpf tests)"
		echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
		rc=1
	elif [ ! -e /sys/kernel/btf/vmlinux ]; then
		echo "# SKIP bpf-sim: this kernel has no BTF (/sys/kernel/btf/vmlinux)"
		echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
	else
		sh /kprof/bpf/tests/vm-sim-test.sh >/tmp/bpf-sim.log 2>&1
		st=$?
		cat /tmp/bpf-sim.log
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' /tmp/bpf-sim.log | tail -n1)
		if [ -n "$line" ]; then
			set -- $line
			echo "# Totals: pass:$1 fail:$3 xfail:0 xpass:0 skip:0 error:0"
		fi
		[ "$st" = 0 ] || rc=1
	fi
	echo "# kprof-suite: end bpf-sim exit=${st:-0}"
fi
echo "# kprof-debug: suite took $(($(date +%s) - t0)) s"

# What the suite left running would hold the module (the runner does the
# same before its rmmod). kill -1 spares this shell and init.
kill -9 -1 2>/dev/null
sleep 1
if grep -q '^kprof ' /proc/modules; then
	# Not the word "kmemleak": the host's dmesg check matches it.
	echo "kprof-vm: unloading kprof.ko before the leak scan" >/dev/kmsg
	# The backends first: each depends on the core.
	for m in kprof_edu kprof_sim kprof; do
		grep -q "^$m " /proc/modules || continue
		if ! rmmod $m; then
			echo "# kprof-debug: rmmod $m failed (a leaked reference?)"
			exit 1
		fi
	done
fi

kml=/sys/kernel/debug/kmemleak
if [ ! -w "$kml" ]; then
	echo "# kprof-debug: $kml is missing: not the debug kernel, or kmemleak is off"
	exit 1
fi
# kmemleak reports only objects older than 5 s; the second scan drops
# false positives from pointers that were in registers or on a stack
# during the first (Documentation/dev-tools/kmemleak.rst).
sleep 6
t0=$(date +%s)
echo scan >"$kml"
echo scan >"$kml"
report=$(cat "$kml")
n=$(printf '%s\n' "$report" | grep -c '^unreferenced object')
echo "# kprof-debug: kmemleak scan ($(($(date +%s) - t0)) s): $n unreferenced object(s)"
if [ "$n" != 0 ]; then
	printf '%s\n' "$report"
	exit 1
fi
exit $rc
