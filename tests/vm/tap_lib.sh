# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers shared by the tests/vm/e2e_*.sh scripts (sourced, not run;
# not named e2e_*.sh, which the suite runs).
# The script sets OUT (its output directory) and BUILD before finishing.
#
#   tap 0|ok|STATUS "what"    one TAP line; 0 and ok pass, anything else fails
#   eq GOT WANT "what"        passes when the two strings are equal
#   col CSV NAME              column number of header NAME in CSV ("" if none)
#   e2e_finish KEEP           "# Totals:" line (the suite runner sums those);
#                             on failure OUT is copied to $BUILD/tests/KEEP/failed
#                             and the exit status is 1, else OUT is removed

n=0 npass=0 nfail=0

# The VM's shell runs busybox's own awk whatever PATH says; mawk (Debian's
# awk, put in the VM by tests/vm/run) runs these checks about 12x faster
# under TCG (e2e_trace.awk on a 9.5 MB trace.json: 8.6 s against 105 s).
if command -v mawk >/dev/null 2>&1; then
	awk() { mawk "$@"; }
fi

tap() {
	n=$((n + 1))
	case $1 in
	0 | ok)
		npass=$((npass + 1))
		echo "ok $n - $2"
		;;
	*)
		nfail=$((nfail + 1))
		echo "not ok $n - $2"
		;;
	esac
}

eq() {
	if [ "$1" = "$2" ]; then
		tap ok "$3 ($1)"
	else
		tap fail "$3: got '$1', expected '$2'"
	fi
}

col() {
	head -n 1 "$1" | tr ',' '\n' | awk -v h="$2" '$0 == h { print NR; exit }'
}

e2e_finish() {
	echo "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:0 error:0"
	if [ "$nfail" != 0 ]; then
		rm -rf "$BUILD/tests/$1/failed"
		mkdir -p "$BUILD/tests/$1" &&
			cp -r "$OUT" "$BUILD/tests/$1/failed" &&
			echo "# outputs kept in $BUILD/tests/$1/failed"
		exit 1
	fi
	rm -rf "$OUT"
	exit 0
}
