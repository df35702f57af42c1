#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM (tests/vm/run --suite [NAME...]): every kselftest-harness
# binary in $BUILD/tests/kselftest/ (or the NAMEs), in order, as one TAP
# stream, then a check that every capture ring page came back. The host sums
# the "# Totals:" lines; the kprof-suite start/end lines let it count a
# binary that died before printing its totals as a failure.
dir="$BUILD/tests/kselftest"
# End-to-end scripts (tests/vm/e2e_*.sh) run after the binaries; each ends
# with a kselftest-style "# Totals:" line.
vm=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ]; then
	# Only the binaries named on the command line (tests/vm/run --suite NAME...).
	for name; do
		shift
		case $name in
		e2e_*.sh) set -- "$@" "$vm/$name" ;;
		*) set -- "$@" "$dir/$name" ;;
		esac
	done
else
	# KPROF_SUITE_E2E: the e2e scripts to run (names); unset: all of them.
	e2e=$(for t in ${KPROF_SUITE_E2E-"$vm"/e2e_*.sh}; do echo "$vm/${t##*/}"; done)
	for t in "$dir"/* $e2e; do
		# needs QEMU's edu device: tests/vm/run --edu [--iommu] --suite kprof_edu_test
		[ "${t##*/}" = kprof_edu_test ] && continue
		[ -f "$t" ] && [ -x "$t" ] && set -- "$@" "$t"
	done
fi
if [ $# = 0 ]; then
	echo "# no kselftest binaries in $dir: run 'make -C tests/kselftest'"
	exit 1
fi
# Ring pages the module holds (kmemleak does not see page allocations):
# counted at the start, checked after the binaries (see the end).
pages=/sys/kernel/debug/kprof/pages
[ -r $pages ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
pages0=$(cat $pages 2>/dev/null)
echo "TAP version 13"
echo "1..$(($# + 1))"
n=0 rc=0
for t; do
	n=$((n + 1))
	name=${t##*/}
	echo "# kprof-suite: start $name"
	t0=$(date +%s)
	"$t"
	st=$?
	# the time per binary or script: where a lane's minutes go
	echo "# kprof-suite: end $name exit=$st time=$(($(date +%s) - t0))s"
	if [ "$st" = 0 ]; then
		echo "ok $n selftests: kprof: $name"
	else
		echo "not ok $n selftests: kprof: $name # exit=$st"
		rc=1
	fi
done

# Every ring page comes back once the captures are over and the devices
# gone: removing every sim device, and the edu device where kprof_edu
# drives one (--edu; kprof_edu_test's device_del may have taken it
# already), frees the rings they keep cached.
n=$((n + 1))
echo "# kprof-suite: start ring-pages"
for d in /sys/kernel/debug/kprof_sim/sim*; do
	[ -d "$d" ] && echo "${d##*/sim}" >/sys/bus/kprof_sim/del_device
done
for d in /sys/bus/pci/drivers/kprof_edu/0000:*; do
	[ -e "$d/remove" ] && echo 1 >"$d/remove"
done
left=$(cat $pages 2>/dev/null)
echo "# ring pages: $pages0 at the start, $left after the suite and removing every sim and edu device"
if [ -n "$pages0" ] && [ "$left" = "$pages0" ]; then
	echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
	echo "ok $n selftests: kprof: ring-pages"
else
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	echo "not ok $n selftests: kprof: ring-pages # $left pages left, $pages0 at the start"
	rc=1
fi
echo "# kprof-suite: end ring-pages exit=$rc time=0s"
# Give later jobs (the debug lane's BPF sim test) their device 0 back.
echo 0 >/sys/bus/kprof_sim/new_device
i=0
while [ ! -e /dev/kprof_sim0 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
exit $rc
