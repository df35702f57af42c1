# SPDX-License-Identifier: GPL-2.0
#
# TAP and check helpers of the NVIDIA test scripts: tests/nvidia/check.sh and
# multi_check.sh on a GPU host, and their stand-in versions in the unit
# lane, tests/unit/nvidia_cli.sh and nvidia_multi.sh. Sourced, not run.
#
#   tap STATUS "what"       one TAP line, ok when STATUS is 0; counted in
#                           n, pass and fail
#   check "what" CMD...     runs CMD and taps its status
#   run WANT CMD...         runs CMD, its output in $tmp/out and shown as
#                           TAP comments; fails unless it exits WANT
#   json EXPR FILE          prints a Python expression over FILE's JSON
#                           document j
#   tap_end                 the plan and "N passed, N failed"; status 1
#                           when any failed

n=0
pass=0
fail=0

tap() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
		pass=$((pass + 1))
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
	fi
}

check() {
	local what=$1

	shift
	"$@"
	tap $? "$what"
}

run() {
	local want=$1 got

	shift
	"$@" >"$tmp/out" 2>&1
	got=$?
	sed 's/^/# /' "$tmp/out"
	[ "$got" -eq "$want" ] || { echo "# exit $got, expected $want: $*"; return 1; }
}

json() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"
}

tap_end() {
	echo "1..$n"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
