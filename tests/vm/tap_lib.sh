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
#   report CHECKER_OUTPUT     tests/e2e/e2e_ops.awk's PASS/FAIL lines as TAP
#   json FILE PATH            one scalar of params.json (the script sets E2E)
#   simstat SIMID NAME        a sim device's debugfs stat (the script sets DBG)
#   kprof_of_sim SIMID        N of the /dev/kprofN of sim device SIMID

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

# Turns the checker's PASS/FAIL lines into TAP; details pass through.
report() {	# report CHECKER_OUTPUT_FILE
	while IFS= read -r line; do
		case $line in
		"PASS "*) tap ok "${line#PASS }" ;;
		"FAIL "*) tap fail "${line#FAIL }" ;;
		"LOSTSUM "*) ;;
		*) echo "$line" ;;
		esac
	done <"$1"
}

json() {	# json FILE PATH: one scalar of params.json ("" if absent)
	awk -f "$E2E/e2e_json.awk" "$1" | awk -v p="$2" '$1 == p { print $2; exit }'
}

simstat() {	# simstat SIMID NAME
	awk -v k="$2" '$1 == k { print $2 }' "$DBG/sim$1/stats"
}

# kprofN of sim device SIMID (the core picks N)
kprof_of_sim() {
	for d in /sys/class/kprof/kprof*; do
		case $(readlink "$d/device") in
		*/sim"$1") echo "${d##*/kprof}"; return 0 ;;
		esac
	done
	return 1
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
