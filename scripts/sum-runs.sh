#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs each argument (a whole command line) in turn, showing its output,
# and ends with one "N passed, N failed, N skipped" line summed over the
# last such line of every run: a lane made of several runs (check-vm,
# check-debug) then counts all of them in scripts/check.sh, which reads a
# lane's last total. A run without a total counts as one failure. Exits
# non-zero when any run did.
set -uo pipefail
p=0 f=0 s=0 rc=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for cmd; do
	bash -c "$cmd" 2>&1 | tee "$log"
	st=${PIPESTATUS[0]}
	[ "$st" = 0 ] || rc=1
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n1)
	if [ -z "$line" ]; then
		echo "sum-runs: no 'N passed, N failed' line from: $cmd (counted as a failure)"
		f=$((f + 1))
		rc=1
		continue
	fi
	read -r np _ nf _ ns _ <<<"${line//,/}"
	p=$((p + np)) f=$((f + nf)) s=$((s + ${ns:-0}))
done
echo "$p passed, $f failed, $s skipped"
exit "$rc"
