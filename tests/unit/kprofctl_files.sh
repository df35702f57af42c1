#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl's files cannot become a way in (docs/formats.md, "Output
# directories"): kprofctl itself, usually root, on capture directories
# and output directories another user prepared. No device needed: the
# capture is the recorded demo spool of tests/fuzz/corpus/spool/.
#   1. ops.csv -> a victim file and a planted roofline.csv: `report DIR`
#      leaves the victim byte-identical, replaces the link, removes the
#      roofline.csv it did not write (no peaks) and does not embed it;
#   2. raw/config.json -> a private (0600) file: refused, nothing of it in
#      any output;
#   3. raw/device.kspool a FIFO: refused at once, naming it (timeout is a
#      limit for the old behaviour, blocking forever, not a timing);
#   4. -o OUT a link, writable by others, or someone else's: refused
#      (someone else's, as root: kprofctl first becomes that user), nothing
#      written;
#   5. --from-ttmetal --force into an older report's directory: its
#      counters.csv, report.md, ... are removed, not embedded;
#   6. diff --csv FILE, FILE -> a victim: the victim is left alone.
# Usage: kprofctl_files.sh KPROFCTL [TTMETAL_DATA_DIR]
# Prints "ok N - what" / "not ok N - what"; exit status 1 if any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=$root/tests/fuzz/corpus/spool
ttdata=${2:-$root/../shared/data/ttmetal}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kprof-files.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# a copy away from data/peaks/: no default peaks file, so no roofline
mkdir "$tmp/bin"
cp "$1" "$tmp/bin/kprofctl"
K="env -u KPROF_ROOT -u KPROF_PEAKS_DIR $tmp/bin/kprofctl"
n=0
failed=0

check() {	# check "what" command...: passes when the command succeeds
	what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		failed=$((failed + 1))
	fi
}

# run OUTFILE command...: status in $st, stdout and stderr in OUTFILE
run() {
	out=$1
	shift
	"$@" >"$out" 2>&1
	st=$?
	sed 's/^/# /' "$out"
}

capture_dir() {	# a capture directory with the recorded spools
	mkdir -p "$1/raw"
	cp "$corpus/demo_device.kspool" "$1/raw/device.kspool"
	cp "$corpus/demo_host.kspool" "$1/raw/host.kspool"
}

no_match() {	# no_match TEXT DIR: no regular file under DIR holds TEXT
	! grep -rqF "$1" "$2"
}

refused() {	# refused TEXT: the last run failed, saying TEXT
	[ "$st" -ne 0 ] && grep -qF "$1" "$out"
}

own_file() {	# own_file PATH: a regular file, not a link
	[ -f "$1" ] && [ ! -L "$1" ]
}

empty_dir() {
	[ -z "$(ls -A "$1")" ]
}

none_of() {	# none_of DIR NAME...: none of the names exists in DIR
	d=$1
	shift
	for f in "$@"; do
		[ ! -e "$d/$f" ] || return 1
	done
}

printf 'precious: must not change\n' >"$tmp/victim"
cp "$tmp/victim" "$tmp/victim.orig"

# 1. planted link and stale file in the capture directory
c=$tmp/c1
capture_dir "$c"
ln -s "$tmp/victim" "$c/ops.csv"
printf 'GLOBAL CALL COUNT,OP CODE,BOUND\n1,PLANTED-ROW,memory-bound\n' >"$c/roofline.csv"
run "$tmp/r1" $K report "$c"
check "report DIR with planted files succeeds" [ "$st" -eq 0 ]
check "the link's target is left byte-identical" cmp -s "$tmp/victim" "$tmp/victim.orig"
check "ops.csv is now a file of its own" own_file "$c/ops.csv"
check "roofline.csv not written (no peaks) is removed" [ ! -e "$c/roofline.csv" ]
check "report.html does not embed the planted row" no_match PLANTED-ROW "$c"

# 2. raw/config.json links to a private file
printf '{"secret": "SECRET-0600-CONTENT"}\n' >"$tmp/secret.json"
chmod 600 "$tmp/secret.json"
c=$tmp/c2
capture_dir "$c"
ln -s "$tmp/secret.json" "$c/raw/config.json"
run "$tmp/r2" $K report "$c"
check "a linked raw/config.json is refused, named" refused 'raw/config.json is a symbolic link'
check "no output holds the private file's content" no_match SECRET-0600-CONTENT "$c"

# 3. a FIFO as the device spool
c=$tmp/c3
mkdir -p "$c/raw"
mkfifo "$c/raw/device.kspool"
run "$tmp/r3" timeout 30 $K report "$c"
check "a FIFO spool is refused at once, named" refused 'raw/device.kspool is a FIFO'

# 4. output directories another user could change
mkdir "$tmp/target"
ln -s "$tmp/target" "$tmp/outlink"
run "$tmp/r4" $K report "$tmp/c1" -o "$tmp/outlink"
check "-o a symbolic link is refused" refused 'symbolic link'
check "nothing written through it" empty_dir "$tmp/target"
mkdir "$tmp/open"
chmod 1777 "$tmp/open"
run "$tmp/r4" $K report "$tmp/c1" -o "$tmp/open"
check "-o a directory others can write is refused" refused 'chmod go-w'
check "nothing written there" empty_dir "$tmp/open"
if [ "$(id -u)" -eq 0 ]; then
	theirs=$tmp/theirs
	mkdir "$theirs"
	chown 65534:65534 "$theirs"
else
	theirs=/	# root's
fi
run "$tmp/r4" $K report "$tmp/c1" -o "$theirs"
if [ "$(id -u)" -eq 0 ]; then
	# root drops to the one non-root owner of the paths before it reads or
	# writes anything (docs/security.md): nobody cannot read root's c1
	check "-o someone else's directory: root becomes its owner first" \
		grep -q 'running as nobody' "$tmp/r4"
else
	check "-o someone else's directory is refused" refused 'owned by'
fi
check "nothing written there" [ ! -e "$theirs/ops.csv" ]

# 5. tt-metal report over an older capture report
tt=$ttdata/ttnn_visualizer_smoke_profile_log_device.csv
check "tt-metal log $tt exists" [ -f "$tt" ]
o=$tmp/tt
mkdir "$o"
for f in counters.csv host_events.csv bubbles.csv roofline.csv report.md; do
	cp "$tmp/c1/$f" "$o/$f" 2>/dev/null || printf 'x\n' >"$o/$f"
done
printf '# STALE-REPORT-MD\n' >"$o/report.md"
printf 'GLOBAL CALL COUNT,OP CODE,COUNTER,UNIT,CORES,MIN,MAX,SUM\n1,STALE-OP,flops,,1,1,1,1\n' \
	>"$o/counters.csv"
run "$tmp/r5" $K report --from-ttmetal "$tt" -o "$o" --force
check "report --from-ttmetal --force succeeds" [ "$st" -eq 0 ]
check "report.html embeds nothing of the older report" no_match STALE- "$o"
check "outputs a tt-metal report has not are removed" \
	none_of "$o" counters.csv host_events.csv bubbles.csv roofline.csv report.md

# 6. diff --csv onto a planted link
ln -s "$tmp/victim" "$tmp/diff.csv"
run "$tmp/r6" $K diff "$tmp/c1" "$tmp/c1" --csv "$tmp/diff.csv"
check "diff --csv succeeds" [ "$st" -eq 0 ]
check "the link's target is left byte-identical" cmp -s "$tmp/victim" "$tmp/victim.orig"
check "the CSV is a file of its own" own_file "$tmp/diff.csv"

echo "kprofctl_files: $n checks, $failed failed"
[ "$failed" -eq 0 ]
