#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bubbles, roofline and report.md on a real capture of examples/sim_workload
# in the VM (tests/vm/run --exec or the suite):
# - bubbles.csv: one row per device core; per core work + waits + idle =
#   window (the columns partition it); rates in [0, 1]; per-core op counts
#   and work time agree with the sim's ground truth (debugfs truth);
# - roofline.csv: one row per ops.csv row; matmul and conv2d compute-bound,
#   eltwise_add, softmax and layernorm memory-bound (what the sim's cost
#   model implies for examples/sim_workload.c's FLOPs and bytes: docs/formats.md);
# - report.md: the verdict is the label with the most op time, the top
#   opportunities are the kinds with the largest gain (recomputed here);
# - kprofctl report re-makes bubbles.csv, roofline.csv and report.md byte
#   for byte (elsewhere and in place), --peaks overrides the peaks;
# - no progress output when stderr is not a terminal.
# TAP lines plus the "# Totals:" line. Env: ANALYSIS_OPS (default 400),
# ANALYSIS_OUT (default: a mktemp dir; kept in $BUILD/tests/analysis/failed
# on failure).
here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$KPROF_ROOT/build}
K=$(command -v kprofctl || echo "$BUILD/kprofctl")
W=$BUILD/examples/sim_workload
OPS=${ANALYSIS_OPS:-400}
OUT=${ANALYSIS_OUT:-$(mktemp -d /tmp/kprof-analysis.XXXXXX)} || exit 1
DBG=/sys/kernel/debug/kprof_sim
. "$here/tap_lib.sh"

[ -x "$W" ] || { echo "Bail out! $W missing: make examples"; exit 1; }
[ -d "$DBG/sim0" ] || { echo "Bail out! no $DBG/sim0: kprof.ko with sim_devices=1 and debugfs needed"; exit 1; }
echo "TAP version 13"

D=$OUT/cap
lo=$(awk '$1 == "ops_launched" { print $2 }' "$DBG/sim0/stats")
"$K" capture --device 0 -o "$D" -- "$W" --ops "$OPS" --quiet >"$OUT/cap.out" 2>"$OUT/cap.err"
st=$?
sed 's/^/# /' "$OUT/cap.out" "$OUT/cap.err"
tap "$st" "capture exit status"
hi=$(awk '$1 == "ops_launched" { print $2 }' "$DBG/sim0/stats")
cat "$DBG/sim0/truth" >"$OUT/truth.txt"
for f in bubbles.csv roofline.csv report.md raw/peaks.json; do
	test -s "$D/$f"
	tap $? "$f written"
done
if [ ! -s "$D/bubbles.csv" ] || [ ! -s "$D/roofline.csv" ] || [ ! -s "$D/report.md" ]; then
	e2e_finish analysis
fi

# ---- progress: silent when stderr is not a terminal -----------------------
cr=$(printf '\r')
! grep -q -e "$cr" -e 'markers (' -e 'records,' "$OUT/cap.err"
tap $? "capture: no progress line on a non-terminal stderr"

# ---- progress: shown with --progress (as on a terminal) --------------------
# The command runs for over a second, so at least one ~0.5 s redraw happens.
"$K" capture --device 0 --progress --no-device-log -o "$OUT/prog" -- \
	sh -c "\"$W\" --ops $OPS --quiet; sleep 2" >/dev/null 2>"$OUT/prog.err"
tap $? "capture --progress exit status"
tr '\r' '\n' <"$OUT/prog.err" |
	awk '/^kprofctl capture: [0-9]+ ops, [0-9]+ markers \([0-9]+\/s\), [0-9]+ lost/ {
		if ($3 + 0 > 0 && $5 + 0 > 0) good++ } END { exit !(good > 0) }'
tap $? "capture --progress: a redraw with ops, markers, markers/s and lost ($(tr '\r' '\n' <"$OUT/prog.err" | grep -c '^kprofctl capture: ') lines)"

# ---- peaks ------------------------------------------------------------------
cmp -s "$D/raw/peaks.json" "$KPROF_ROOT/data/peaks/kprof_sim.json"
tap $? "raw/peaks.json is the default data/peaks/kprof_sim.json"

# ---- bubbles.csv --------------------------------------------------------------
B=$D/bubbles.csv
cores=$(awk -F': ' '/"num_cores"/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$D/params.json")
eq "$(($(wc -l <"$B") - 1))" "$cores" "bubbles.csv: one row per device core"
awk -F, 'NR > 1 {
	sum = $3 + $4 + $5 + $6 + $7
	# each column is rounded to 1 ns on its own
	if (sum < $8 - 5 || sum > $8 + 5) { print "# core " $1 ": parts " sum " != window " $8; bad++ }
	for (i = 3; i <= 8; i++) if ($i < 0) { print "# core " $1 ": column " i " < 0"; bad++ }
	if ($9 < 0 || $9 > 1 || $10 < 0 || $10 > 1) { print "# core " $1 ": rate out of [0,1]"; bad++ }
	if ($2 > 0 && $3 <= 0) { print "# core " $1 ": ops but no work"; bad++ }
	if ($11 != 0) { print "# core " $1 ": unordered spans on an in-order device"; bad++ }
} END { exit bad > 0 }' "$B"
tap $? "bubbles.csv: work + waits + idle = window per core, rates in [0, 1]"
# ground truth: ops per core and summed op spans per core, ops lo < seq <= hi
awk -v lo="$lo" -v hi="$hi" 'NR == FNR {
	if (FNR > 1 && $1 > lo && $1 <= hi)
		for (c = $3; c < $3 + $4; c++) { ops[c]++; t[c] += $8 - $7 }
	next
}
FNR > 1 {
	split($0, f, ",")
	if (f[2] != ops[f[1]] + 0) { print "# core " f[1] ": " f[2] " ops, truth " ops[f[1]] + 0; bad++ }
	# a core FW span is the op span less its per-core skew (<= 1.6%)
	if (t[f[1]] > 0 && (f[3] < 0.96 * t[f[1]] || f[3] > 1.01 * t[f[1]])) {
		print "# core " f[1] ": work " f[3] " ns, truth op spans " t[f[1]]; bad++
	}
	checked++
} END { if (!checked) bad++; exit bad > 0 }' "$OUT/truth.txt" "$B"
tap $? "bubbles.csv: ops and work per core agree with the sim's truth"
grep -q '^bubbles (bubbles.csv' "$D/summary.txt" && grep -q '^  rating: ' "$D/summary.txt"
tap $? "summary.txt has the bubbles section and a rating"

# ---- roofline.csv -----------------------------------------------------------
R=$D/roofline.csv
eq "$(($(wc -l <"$R") - 1))" "$(($(wc -l <"$D/ops.csv") - 1))" "roofline.csv: one row per ops.csv row"
cb=$(col "$R" BOUND) ce=$(col "$R" "EFFICIENCY %") ct=$(col "$R" "TIME [ns]")
for k in matmul:compute-bound conv2d:compute-bound eltwise_add:memory-bound \
	 softmax:memory-bound layernorm:memory-bound; do
	name=${k%%:*} want=${k#*:}
	got=$(awk -F, -v n="$name" -v c="$cb" '$2 == n { l[$c]++ } END { for (x in l) { printf "%s%s(%d)", s, x, l[x]; s = " " } }' "$R")
	case $got in
	"$want("*")") tap 0 "roofline: every $name op is $want" ;;
	*) tap 1 "roofline: every $name op is $want (got: ${got:-no rows})" ;;
	esac
done
awk -F, -v c="$ce" 'NR > 1 && $c != "" && ($c < 0 || $c > 100) { bad++ } END { exit bad > 0 }' "$R"
tap $? "roofline: efficiencies within 0..100%"

# ---- report.md ----------------------------------------------------------------
M=$D/report.md
verdict=$(awk -F, -v b="$cb" -v t="$ct" 'NR > 1 && $b != "unclassified" { s[$b] += $t }
	END { for (x in s) if (s[x] > m) { m = s[x]; v = x } print v }' "$R")
grep -q "^\*\*Mostly $verdict\*\*" "$M"
tap $? "report.md verdict is the label with the most op time ($verdict)"
# gains per kind recomputed; the listed kinds must be the largest ones
awk -F, -v e="$ce" -v t="$ct" 'NR > 1 && $e != "" { g[$2] += $t * (1 - $e / 100) }
	END { for (k in g) print k, g[k] }' "$R" | sort -k2,2 -g -r >"$OUT/gains.txt"
sed 's/^/# gain /' "$OUT/gains.txt"
# names in report.md are Markdown-escaped (eltwise\_add): undone here
grep -E '^[123]\. \*\*' "$M" | sed 's/^[123]\. \*\*\([^*]*\)\*\*.*/\1/; s/\\\(.\)/\1/g' >"$OUT/top.txt"
ntop=$(wc -l <"$OUT/top.txt")
[ "$ntop" -ge 1 ] && [ "$ntop" -le 3 ]
tap $? "report.md lists 1-3 top opportunities ($ntop)"
awk 'NR == FNR { top[$1] = 1; next }
	{ if ($1 in top) { if (min == "" || $2 < min) min = $2 } else if ($2 > max) max = $2 }
	END { exit !(min != "" && min >= 0.99 * max - 1000) }' "$OUT/top.txt" "$OUT/gains.txt"
tap $? "report.md top opportunities are the kinds with the largest gains"

# ---- re-made byte for byte -------------------------------------------------
"$K" report "$D" -o "$OUT/again" >"$OUT/again.out" 2>"$OUT/again.err"
tap $? "kprofctl report DIR -o OUT exit status"
test ! -s "$OUT/again.err"
tap $? "report: nothing on a non-terminal stderr"
for f in bubbles.csv roofline.csv report.md; do
	cmp "$D/$f" "$OUT/again/$f"
	tap $? "re-made $f is byte-identical"
done
mkdir -p "$OUT/orig" && cp "$D/bubbles.csv" "$D/roofline.csv" "$D/report.md" "$OUT/orig/"
"$K" report "$D" >/dev/null 2>&1
tap $? "kprofctl report DIR (in place) exit status"
for f in bubbles.csv roofline.csv report.md; do
	cmp "$OUT/orig/$f" "$D/$f"
	tap $? "in-place re-made $f is byte-identical"
done

# ---- the device spool's index: one read, the outputs of two ----------------
# (docs/formats.md, "Device spool index"): the capture finished it, and a
# report without it (pass 1 over the spool) writes the same bytes
hs=$(od -A n -t u4 -j 16 -N 4 "$D/raw/device.kspool" | tr -d ' ')
covers=$(od -A n -t u8 -j 32 -N 8 "$D/raw/device.kidx" | tr -d ' ')
eq "$covers" $(($(stat -c %s "$D/raw/device.kspool") - hs)) \
	"raw/device.kidx is finished and covers raw/device.kspool"
mv "$D/raw/device.kidx" "$OUT/kidx"
"$K" report "$D" -o "$OUT/noidx" >/dev/null 2>&1
tap $? "kprofctl report without the index exit status"
mv "$OUT/kidx" "$D/raw/device.kidx"
for f in ops.csv counters.csv host_events.csv device_log.csv trace.json summary.txt \
	params.json bubbles.csv roofline.csv report.md report.html; do
	cmp "$OUT/again/$f" "$OUT/noidx/$f"
	tap $? "without the index: $f byte-identical"
done

# ---- --peaks overrides ----------------------------------------------------
# FLOP peak far below what the ops achieve and a huge bandwidth: every op is
# above the ridge, so eltwise_add turns compute-bound
printf '{"device":"tiny","scope":"core","peak_gflops":0.001,"peak_gb_per_s":1000000}\n' >"$OUT/tiny.json"
"$K" report "$D" -o "$OUT/tiny" --peaks "$OUT/tiny.json" >/dev/null 2>&1
tap $? "kprofctl report --peaks exit status"
got=$(awk -F, -v c="$cb" '$2 == "eltwise_add" { print $c; exit }' "$OUT/tiny/roofline.csv")
eq "$got" compute-bound "--peaks: eltwise_add relabelled under the override"
grep -q 'Peaks: tiny,' "$OUT/tiny/report.md"
tap $? "--peaks: report.md names the override"
e2e_finish analysis
