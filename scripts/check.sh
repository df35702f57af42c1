#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: run each lane (a top-level make target) even if an earlier
# one failed, show its output, and end with one "N passed, N failed" line
# summed over the lanes' own "N passed, N failed" lines. A lane that fails
# without printing its counts adds one failure, so it cannot pass silently.
#
#   scripts/check.sh check-unit check-style check-vm
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
MAKE=${MAKE:-make}
LOGDIR=$BUILD/check
mkdir -p "$LOGDIR"

total_p=0 total_f=0 total_s=0 summary=() rc=0
for lane in "$@"; do
	log=$LOGDIR/$lane.log
	echo "===== make $lane"
	start=$(date +%s)
	"$MAKE" --no-print-directory -C "$ROOT" "$lane" 2>&1 | tee "$log"
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
