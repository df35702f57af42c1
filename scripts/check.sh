#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: run each lane (a top-level make target) even if an earlier
# one failed, show its output, and end with one "N passed, N failed" line
# summed over the lanes' own "N passed, N failed" lines. A lane that fails
# without printing its counts adds one failure, so it cannot pass silently.
#
#   scripts/check.sh check-unit check-style check-vm
#
# Each lane's builds run CHECK_JOBS (default: the CPUs) jobs at a time;
# the lanes themselves, and the tests in them, run one after the other.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
MAKE=${MAKE:-make}
JOBS=${CHECK_JOBS:-$(nproc)}
LOGDIR=$BUILD/check
mkdir -p "$LOGDIR"

total_p=0 total_f=0 total_s=0 summary=() rc=0

# The debug kernel, check-debug's longest step (about 450 s cold on two
# cores), builds from the start in the background at nice 19, on the
# cycles the other lanes leave idle (the VM lanes wait on sleeps and
# timeouts much of the time); check-debug waits for it. Warm cache: it
# returns at once. KPROF_DEBUG_PREBUILD=0 turns it off.
prebuild_pid=
prebuild_log=$LOGDIR/debug-kernel-prebuild.log
stop_prebuild() {
	[ -n "$prebuild_pid" ] && kill -- -"$prebuild_pid" 2>/dev/null
	prebuild_pid=
}
if [[ " $* " == *" check-debug "* ]] && [ "${KPROF_DEBUG_PREBUILD:-1}" = 1 ]; then
	# setsid: its own process group, so an interrupted check stops every make
	setsid -w nice -n 19 "$ROOT/tests/vm/debug-kernel/build" --kernel >"$prebuild_log" 2>&1 &
	prebuild_pid=$!
	trap stop_prebuild EXIT
	echo "===== debug kernel building in the background (log: $prebuild_log)"
fi

for lane in "$@"; do
	log=$LOGDIR/$lane.log
	if [ "$lane" = check-debug ] && [ -n "$prebuild_pid" ]; then
		start=$(date +%s)
		if wait "$prebuild_pid"; then
			echo "===== debug kernel from the background build (waited $(($(date +%s) - start)) s)"
		else
			echo "===== background debug kernel build failed (log: $prebuild_log); check-debug builds it again"
		fi
		prebuild_pid=
	fi
	echo "===== make $lane"
	start=$(date +%s)
	"$MAKE" -j"$JOBS" --no-print-directory -C "$ROOT" "$lane" 2>&1 | tee "$log"
	st=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n1)
	p=0 f=0 s=0
	if [ -n "$line" ]; then
		p=$(sed -E 's/^([A-Za-z]+: )?([0-9]+) passed.*/\2/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
		grep -q skipped <<<"$line" && s=$(sed -E 's/.* ([0-9]+) skipped$/\1/' <<<"$line")
	fi
	if [ "$st" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	if [ "$st" = 0 ]; then
		res=ok
	else
		res="FAILED (status $st)" rc=1
	fi
	summary+=("$(printf '%-12s %-20s %4d passed %4d failed %4d skipped %5ds' \
		"$lane" "$res" "$p" "$f" "$s" "$secs")")
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
done

echo "===== summary (logs in $LOGDIR)"
printf '%s\n' "${summary[@]}"
if [ "$total_s" != 0 ]; then
	echo "$total_p passed, $total_f failed, $total_s skipped"
else
	echo "$total_p passed, $total_f failed"
fi
exit $rc
