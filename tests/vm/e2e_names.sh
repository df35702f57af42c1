#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A process name (comm) with an escape sequence in it holds the capture:
# `kprofctl list`, `info` and the "device busy" message of a second
# capture show it with '?' for the control character (docs/formats.md,
# "Names in text outputs"), never the raw escape. The holder is kprofctl
# itself, run through a symlink whose name is its comm.
# Prints "ok N - what" / "not ok N - what"; the "# Totals:" line for the
# VM suite comes from tap_totals.sh.
here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$KPROF_ROOT/build}
[ -n "${KPROF_NAMES_INNER:-}" ] || KPROF_NAMES_INNER=1 exec "$here/tap_totals.sh" "$0" "$@"
K=${KPROFCTL:-$BUILD/kprofctl}
tmp=$(mktemp -d /tmp/kprof-names.XXXXXX)
esc=$(printf '\033')
n=0
failed=0

check() {	# check "what" command...
	what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		failed=1
	fi
}

# shows FILE PATTERN: FILE has PATTERN and no escape character
shows() {
	if grep -q "$esc" "$1" || ! grep -q -- "$2" "$1"; then
		echo "# $1:"
		cat -v "$1" | sed 's/^/# /'
		return 1
	fi
}

ln -s "$K" "$tmp/k${esc}[31mx"
"$tmp/k${esc}[31mx" capture -d 0 -o "$tmp/c1" --duration 8 >/dev/null 2>&1 &
holder=$!
i=0
while [ $i -lt 50 ] && ! "$K" info -d 0 | grep -q 'held by pid'; do sleep 0.2; i=$((i + 1)); done
"$K" info -d 0 >"$tmp/info" 2>&1
check "info shows the holder's comm with '?'" shows "$tmp/info" "held by pid $holder (k?\[31mx)"
"$K" list >"$tmp/list" 2>&1
check "list shows the holder's comm with '?'" shows "$tmp/list" "pid $holder (k?\[31mx)"
"$K" capture -d 0 -o "$tmp/c2" --duration 1 >"$tmp/busy" 2>&1
check "the busy message shows it with '?'" shows "$tmp/busy" "being captured by pid $holder (k?\[31mx)"
kill -TERM $holder
wait $holder
rm -rf "$tmp"
echo "1..$n"
exit $failed
