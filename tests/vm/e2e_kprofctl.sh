#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs kprofctl's own end-to-end script (user/kprofctl/test_kprofctl.sh:
# list/info, capture row counts, --op-filter, --paused + resume, report
# byte-identity, EBUSY, ...) in the VM suite, and adds the kselftest-style
# "# Totals:" line the suite runner counts: one case per "ok"/"not ok"
# line. Exit status: the script's (non-zero also when no case ran).
here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(cd "$here/../.." && pwd)}
log=$(mktemp)
"$KPROF_ROOT/user/kprofctl/test_kprofctl.sh" >"$log" 2>&1
st=$?
cat "$log"
p=$(grep -c '^ok ' "$log")
f=$(grep -c '^not ok ' "$log")
rm -f "$log"
if [ "$st" != 0 ] && [ "$f" = 0 ]; then
	echo "# test_kprofctl.sh exited $st without a failing case"
	f=1
fi
if [ $((p + f)) = 0 ]; then
	echo "# test_kprofctl.sh ran no case"
	f=1
	st=1
fi
echo "# Totals: pass:$p fail:$f xfail:0 xpass:0 skip:0 error:0"
exit "$st"
