#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Foreign input (a capture directory or tt-metal log from another
# machine) through the kprofctl binary: names with control characters do
# not reach the terminal (error messages, diff's table), and the input
# cannot make time or memory grow faster than itself. Each limit case is
# an input that a quadratic algorithm once met, generated here, run under
# a memory limit (ulimit -v) and a time limit far above what a linear
# algorithm needs (well under a second here, a few seconds on a loaded
# machine) and far below what the quadratic one took (minutes, or
# gigabytes). Limits, not timings: only a blow-up fails.
# Usage: foreign_input.sh BUILD/kprofctl
set -u
bin=$1
mem_kib=262144		# 256 MiB of address space
secs=30
dir=$(mktemp -d "${TMPDIR:-/tmp}/kprof-foreign-input.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
fail=0

# run WHAT CMD...: CMD must succeed within the limits
run() {
	what=$1
	shift
	if (ulimit -v "$mem_kib" && timeout "$secs" "$@") >"$dir/log" 2>&1; then
		echo "foreign_input: ok: $what"
	else
		st=$?
		tail -n 5 "$dir/log" >&2
		echo "foreign_input: FAIL: $what (exit $st; 124: over ${secs} s," \
		     "else out of $mem_kib KiB?)" >&2
		fail=1
	fi
}

# fails WHAT PATTERN CMD...: CMD must fail, saying PATTERN, within the limits
fails() {
	what=$1
	pat=$2
	shift 2
	(ulimit -v "$mem_kib" && timeout "$secs" "$@") >"$dir/log" 2>&1
	st=$?
	if [ "$st" -ne 0 ] && [ "$st" -ne 124 ] && grep -q -- "$pat" "$dir/log"; then
		echo "foreign_input: ok: $what"
	else
		tail -n 5 "$dir/log" >&2
		echo "foreign_input: FAIL: $what (exit $st, want an error saying '$pat')" >&2
		fail=1
	fi
}

tt_head() {
	echo "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000"
	echo "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID,  zone name, type, source line, source file, meta data"
}

OPS_HDR="OP CODE,DEVICE KERNEL DURATION [ns],DEVICE FW DURATION [ns],HOST DURATION [ns]"
esc=$(printf '\033')

# no_esc WHAT FILE: FILE has no escape character, and a '?' in its place
no_esc() {
	if grep -q "$esc" "$2" || ! grep -q '?\[31m' "$2"; then
		cat -v "$2" >&2
		echo "foreign_input: FAIL: $1: an escape sequence reaches the terminal" >&2
		fail=1
	else
		echo "foreign_input: ok: $1"
	fi
}

# An error message quoting a field of the file
{
	tt_head
	printf '0,%s[31m,1,BRISC,1,1000,0,1,BRISC-FW,ZONE_START,1,x,\n' "$esc"
} >"$dir/esc.csv"
"$bin" report --from-ttmetal "$dir/esc.csv" -o "$dir/out" >/dev/null 2>"$dir/err"
no_esc "error message quoting a tt-metal field" "$dir/err"
rm -rf "$dir/out"

# diff's table of op codes
mkdir -p "$dir/e"
printf '%s\n"%s[31mred",1,2,3\n' "$OPS_HDR" "$esc" >"$dir/e/ops.csv"
"$bin" diff "$dir/e" "$dir/e" >"$dir/out.txt" 2>&1
no_esc "diff table of op codes" "$dir/out.txt"
rm -rf "$dir/e"

# diff: 20000 counters.csv rows, each a new (op, counter) pair. A
# (kind x metric) matrix needed 48 bytes x 10^8 cells.
mkdir -p "$dir/a"
echo "$OPS_HDR" >"$dir/a/ops.csv"
awk 'BEGIN { print "GLOBAL CALL COUNT,OP CODE,COUNTER,UNIT,CORES,MIN,MAX,SUM";
	     for (i = 0; i < 20000; i++) printf "%d,op%d,c%d,,1,1,1,1\n", i, i, i }' \
	>"$dir/a/counters.csv"
run "diff of 20000 distinct (op, counter) pairs" "$bin" diff "$dir/a" "$dir/a"
rm -rf "$dir/a"

# diff: a quoted op name of 100000 lines (900 KB) in ops.csv. The reader
# counted the record's fields from its start again at every line.
mkdir -p "$dir/m"
{
	echo "$OPS_HDR"
	printf '"'
	awk 'BEGIN { for (i = 0; i < 100000; i++) print "abcdefgh" }'
	echo '",1,2,3'
} >"$dir/m/ops.csv"
run "diff of a 100000-line quoted field" "$bin" diff "$dir/m" "$dir/m"
rm -rf "$dir/m"

# --from-ttmetal: 20000 ops, each on a core of its own. The core table was
# sorted after every insert, every op held an array up to its highest
# core id (7.9 GB), report.html searched the tracks linearly per slice.
{
	tt_head
	awk 'BEGIN { for (i = 0; i < 20000; i++) {
		printf "0,%d,%d,BRISC,1,%d,0,%d,BRISC-FW,ZONE_START,1,x,\n", i % 200, int(i / 200), 1000 + i, i;
		printf "0,%d,%d,BRISC,1,%d,0,%d,BRISC-FW,ZONE_END,1,x,\n", i % 200, int(i / 200), 2000 + i, i } }'
} >"$dir/cores.csv"
run "tt-metal log of 20000 ops on 20000 cores" \
	"$bin" report --from-ttmetal "$dir/cores.csv" -o "$dir/out"
rm -rf "$dir/cores.csv" "$dir/out"

# --from-ttmetal: 80000 ops in descending run host ID order. Each new op
# walked the in-flight list from its end.
{
	tt_head
	awk 'BEGIN { for (i = 0; i < 80000; i++)
		printf "0,1,1,BRISC,1,%d,0,%d,BRISC-FW,ZONE_START,1,x,\n", 1000 + i, 80000 - i }'
} >"$dir/desc.csv"
run "tt-metal log of 80000 ops in descending order" \
	"$bin" report --from-ttmetal "$dir/desc.csv" -o "$dir/out"
rm -rf "$dir/desc.csv" "$dir/out"

# --from-ttmetal: 2 ops x 100000 open zones, then 100000 ends of another
# zone id each. Every end searched all open zones.
{
	tt_head
	awk 'BEGIN { for (op = 1; op <= 2; op++) {
		for (i = 0; i < 100000; i++)
			printf "0,1,1,BRISC,%d,%d,0,%d,Z,ZONE_START,1,x,\n", i + 1, 1000 + i, op;
		for (i = 0; i < 100000; i++)
			printf "0,1,1,BRISC,%d,%d,0,%d,Z,ZONE_END,1,x,\n", 200000 + i, 900000 + i, op } }'
} >"$dir/zones.csv"
run "tt-metal log of 2 x 100000 unmatched zones" \
	"$bin" report --from-ttmetal "$dir/zones.csv" -o "$dir/out"
rm -rf "$dir/zones.csv" "$dir/out"

# --from-ttmetal: a 96 MiB line, in 64 MiB of address space. The cap was
# checked after getline() had allocated all of it; it must stop at the
# cap (1 MiB), with a message.
{
	tt_head
	head -c 100663296 /dev/zero | tr '\0' 'x'
} >"$dir/long.csv"
mem_kib=65536
fails "tt-metal log with a 96 MiB line" "longer than 1048576 bytes" \
	"$bin" report --from-ttmetal "$dir/long.csv" -o "$dir/out"
rm -rf "$dir/long.csv" "$dir/out"

exit $fail
