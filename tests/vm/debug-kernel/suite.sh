#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the debug-kernel VM (tests/vm/debug-kernel/check): the whole VM
# suite (tests/vm/suite.sh, same arguments), then unloads kprof.ko and asks
# kmemleak for a scan, which must find nothing. Unloading first makes leaks
# at module exit count too; the runner's own rmmod then has nothing to do.
sh /kprof/tests/vm/suite.sh "$@"
rc=$?

# What the suite left running would hold the module (the runner does the
# same before its rmmod). kill -1 spares this shell and init.
kill -9 -1 2>/dev/null
sleep 1
if grep -q '^kprof ' /proc/modules; then
	# Not the word "kmemleak": the host's dmesg check matches it.
	echo "kprof-vm: unloading kprof.ko before the leak scan" >/dev/kmsg
	if ! rmmod kprof; then
		echo "# kprof-debug: rmmod kprof failed (a leaked reference?)"
		exit 1
	fi
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
