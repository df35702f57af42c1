#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-style`: kernel coding style of kmod/ with checkpatch.pl
# --strict (from Debian's linux-source-6.1, unpacked by `make deps`) and
# sparse over the module build. Any finding fails. The last line is
# "N passed, N failed", counting kmod source files (checkpatch) plus the
# sparse build as one more check.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KPROF_CACHE=${KPROF_CACHE:-~/.cache/kprof}
BUILD=${BUILD:-$ROOT/build}
CHECKPATCH=$KPROF_CACHE/linux-source-6.1/scripts/checkpatch.pl
MAKE=${MAKE:-make}
LOGDIR=$BUILD/style
passed=0 failed=0

cd "$ROOT" || exit 1
mkdir -p "$LOGDIR"

if [ ! -f "$CHECKPATCH" ]; then
	echo "check-style: $CHECKPATCH is missing: run 'make deps'" >&2
	exit 1
fi
command -v sparse >/dev/null || { echo "check-style: sparse is missing: run 'make deps'" >&2; exit 1; }

# Kbuild generates kprof.mod.c; it is not ours to style.
mapfile -t files < <(find kmod -name '*.[ch]' ! -name '*.mod.c' | sort)
if [ "${#files[@]}" = 0 ]; then
	echo "check-style: no sources under kmod/" >&2
	exit 1
fi

echo "== checkpatch.pl --strict: ${#files[@]} files"
for f in "${files[@]}"; do
	# --no-tree: we check files, not a kernel tree; the spelling and
	# const-struct lists come from the same scripts/ directory.
	# kmod/kprof_compat.h is the one place that tests LINUX_VERSION_CODE
	# (APIs newer than 6.1, the oldest kernel the module builds against).
	ignore=FILE_PATH_CHANGES
	[ "$f" = kmod/kprof_compat.h ] && ignore=$ignore,LINUX_VERSION_CODE
	if out=$(perl "$CHECKPATCH" --no-tree --strict --terse --show-types --no-summary \
		--ignore "$ignore" -f "$f" 2>&1); then
		passed=$((passed + 1))
	else
		echo "$out"
		failed=$((failed + 1))
	fi
done

# C=2 runs sparse on every file, also those already compiled.
echo "== sparse (make kmod C=2)"
log=$LOGDIR/sparse.log
"$MAKE" --no-print-directory -C "$ROOT" kmod C=2 >"$log" 2>&1
rc=$?
# Compiler and sparse findings both look like "file:line:col: warning: ...".
findings=$(grep -E '(warning|error):' "$log")
if [ "$rc" != 0 ] || [ -n "$findings" ]; then
	[ -n "$findings" ] && echo "$findings"
	[ "$rc" != 0 ] && { echo "check-style: the module build failed (status $rc):"; tail -n 30 "$log"; }
	echo "check-style: full sparse log: $log"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
