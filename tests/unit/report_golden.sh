#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Byte-identity of every report output: `kprofctl report` on a fixed
# synthetic spool (`bench/collector gen`, 130000 markers: 102 ops, two
# SYNC samples, host events, counters) and `kprofctl report
# --from-ttmetal` on the real Wormhole device log must write exactly the
# files of tests/unit/golden/report/{spool,ttmetal}/ (xz-compressed), each
# compared with cmp, and no other file. Normalised, and only that:
# params.json's "kprof": {"version"} (kprofctl's version changes with
# every release); the tt-metal log is read from a fixed relative path so
# that "source:" / "file" stay the same.
# Usage: report_golden.sh KPROFCTL COLLECTOR [TTMETAL_DATA_DIR] [--update]
# --update rewrites the goldens from this build (only after checking a
# change of output is wanted). Exit status 1 if any output differs.
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
kprofctl=$(abs "$1")
collector=$(abs "$2")
here=$(cd "$(dirname "$0")" && pwd)
ttdata=${3:-$here/../../../shared/data/ttmetal}
update=${4:-}
golden=$here/golden/report
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kprof-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

# kprofctl's version is the one stamp in the outputs (params.json only)
normalise() {
	sed -i '0,/^    "version": "[^"]*"/s//    "version": "VERSION"/' "$1/params.json"
}

# compare DIR against golden/NAME (or write it with --update)
check() {
	out=$1 name=$2
	if [ "$update" = --update ]; then
		rm -rf "${golden:?}/$name"
		mkdir -p "$golden/$name"
		for f in "$out"/*; do
			xz -9 -c "$f" >"$golden/$name/$(basename "$f").xz"
		done
		echo "report_golden: $name goldens written"
		return
	fi
	for g in "$golden/$name"/*.xz; do
		f=$(basename "$g" .xz)
		if [ ! -f "$out/$f" ]; then
			echo "report_golden: $name: $f not written" >&2
			fail=1
		elif ! xz -dc "$g" | cmp - "$out/$f" >&2; then
			echo "report_golden: $name: $f differs from $g" >&2
			fail=1
		fi
	done
	for f in "$out"/*; do
		if [ ! -f "$golden/$name/$(basename "$f").xz" ]; then
			echo "report_golden: $name: unexpected output $(basename "$f")" >&2
			fail=1
		fi
	done
}

"$collector" gen "$tmp/cap" 130000 >/dev/null || exit 1
"$kprofctl" report "$tmp/cap" -o "$tmp/spool" >/dev/null || exit 1
normalise "$tmp/spool"
check "$tmp/spool" spool

mkdir "$tmp/in"
cp "$ttdata/wormhole_b0_profile_log_device.csv" "$tmp/in/profile_log_device.csv" || exit 1
(cd "$tmp" && "$kprofctl" report --from-ttmetal in/profile_log_device.csv -o ttmetal) \
	>/dev/null || exit 1
normalise "$tmp/ttmetal"
check "$tmp/ttmetal" ttmetal

[ "$fail" -eq 0 ] && [ "$update" != --update ] &&
	echo "report_golden: every output of both reports is byte-identical to its golden"
exit "$fail"
