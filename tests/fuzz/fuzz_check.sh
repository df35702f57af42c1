#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-fuzz` (tests/fuzz/Makefile check): for each
# TARGET:CORPUS:DICT argument, replays every file of
# tests/fuzz/regressions/TARGET/, then fuzzes TARGET for FUZZ_SECONDS from
# a scratch copy of corpus/CORPUS/ (the tree's corpus is never modified),
# with the dictionary DICT.dict when DICT is not empty. FUZZ_JOBS targets
# (default: the CPUs) run at a time, each one process on one CPU; their
# lines are printed in argument order. A crash input is kept in
# $FUZZ_OUT/crashes/TARGET/ and named in the output.
# Last line: "N passed, N failed"; exit status non-zero on any failure.
set -u
: "${FUZZ_OUT:?}" "${FUZZ_SRC:?}" "${FUZZ_SECONDS:=20}"
# Scratch files of the targets that take a path (spool, reports): tmpfs,
# where the report writer's fsync costs nothing.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	export TMPDIR=/dev/shm
fi

# CI fuzzes from a fixed seed, so that a red run is reproducible and not
# a matter of exploration luck; developers get a fresh seed each run.
# FUZZ_SEED overrides both. The seed is printed with every target.
if [ -z "${FUZZ_SEED:-}" ]; then
	if [ "${CI:-}" = true ]; then
		FUZZ_SEED=1
	else
		FUZZ_SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	fi
fi

# one_target TARGET:CORPUS:DICT: its PASS/FAIL lines (and a failure's
# context) on stdout.
one_target() {
	local arg=$1 t c d dict bin crashes log regs work execs cov
	t=${arg%%:*}
	c=${arg#*:}
	d=${c#*:}
	c=${c%%:*}
	[ "$d" = "$c" ] && d=
	dict=
	[ -n "$d" ] && dict=-dict=$FUZZ_SRC/$d.dict
	bin=$FUZZ_OUT/fuzz_$t
	crashes=$FUZZ_OUT/crashes/$t
	log=$FUZZ_OUT/logs/$t.log
	mkdir -p "$crashes" "$FUZZ_OUT/logs"

	regs=("$FUZZ_SRC"/regressions/"$t"/*)
	if [ -e "${regs[0]}" ]; then
		if "$bin" -runs=1 "${regs[@]}" >"$log.regress" 2>&1; then
			echo "PASS $t regressions (${#regs[@]} inputs)"
		else
			echo "FAIL $t regressions: see $log.regress"
			tail -n 30 "$log.regress"
		fi
	fi

	work=$(mktemp -d "${TMPDIR:-/tmp}/kprof-fuzz-corpus-XXXXXX")
	cp -r "$FUZZ_SRC/corpus/$c/." "$work/"
	if "$bin" -seed="$FUZZ_SEED" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=1024 \
		-artifact_prefix="$crashes/" -print_final_stats=1 $dict \
		"$work" >"$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
		echo "PASS $t ${FUZZ_SECONDS}s seed $FUZZ_SEED: ${execs:-?} execs, $cov"
	else
		echo "FAIL $t (seed $FUZZ_SEED): crash or leak, input in $crashes/ (log $log)"
		grep -m 1 -A 12 '^==[0-9]*==ERROR\|runtime error\|^SUMMARY' "$log"
	fi
	rm -rf "$work"
}

jobs_max=${FUZZ_JOBS:-$(nproc)}
outs=$(mktemp -d)
trap 'rm -rf "$outs"' EXIT
i=0
for arg in "$@"; do
	i=$((i + 1))
	one_target "$arg" >"$outs/$i" 2>&1 &
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
done
wait

pass=0
fail=0
for n in $(seq 1 "$i"); do
	cat "$outs/$n"
	pass=$((pass + $(grep -c '^PASS ' "$outs/$n")))
	fail=$((fail + $(grep -c '^FAIL ' "$outs/$n")))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
