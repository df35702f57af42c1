#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tap_totals.sh SCRIPT [ARGS]: runs a test script that prints TAP-style
# "ok N - ..." / "not ok N - ..." lines, shows its output, and adds the
# kselftest-style "# Totals:" line that the VM suite runner (suite.sh)
# counts. Used by the tests/vm/e2e_*.sh wrappers of scripts that live
# with the part they test. Exit status: the script's, and non-zero when
# it failed without a failing case or ran no case at all.
script=$1
name=${script##*/}
log=$(mktemp)
"$@" >"$log" 2>&1
st=$?
cat "$log"
p=$(grep -c '^ok ' "$log")
f=$(grep -c '^not ok ' "$log")
rm -f "$log"
if [ "$st" != 0 ] && [ "$f" = 0 ]; then
	echo "# $name exited $st without a failing case"
	f=1
fi
if [ $((p + f)) = 0 ]; then
	echo "# $name ran no case"
	f=1
	st=1
fi
echo "# Totals: pass:$p fail:$f xfail:0 xpass:0 skip:0 error:0"
exit "$st"
