# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers of the NVIDIA test scripts: tests/nvidia/check.sh and
# multi_check.sh on a GPU host, and their stand-in versions in the unit
# lane, tests/unit/nvidia_cli.sh and nvidia_multi.sh. Sourced, not run.
#
#   tap STATUS "what"       one TAP line, ok when STATUS is 0; counted in
#                           n, pass and fail
#   check "what" CMD...     runs CMD and taps its status
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

tap_end() {
	echo "1..$n"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
