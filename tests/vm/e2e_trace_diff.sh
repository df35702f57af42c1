#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trace.json and `kprofctl diff` on real captures of examples/sim_workload
# in the VM (tests/vm/run --exec or the suite).
# The device clock is locked (kprofctl lock-clock) so that two runs of the
# same workload differ only by the sim's per-op noise, and reset at the end.
#
# trace.json of capture A1 (summarised by tests/e2e/e2e_trace.awk):
# - one event per line between the opening and closing lines, and json-c
#   parses it (report.html says its device lanes came from trace.json);
# - one track per device core, named "core N (x,y)" from the device grid;
# - op slices: as many as ops.csv's CORE COUNT sum, named by the op's OP
#   CODE, per core as many as the sim's ground truth (debugfs truth) ran;
# - host tracks: one X slice per launch / sync row of host_events.csv, on
#   a named track of its thread;
# - flow arrows: one start per successful launch, one end per op with a
#   launch, paired by id, each end (device FW start) after its start;
# - clock MHz counter: every sample is the locked 1000 MHz;
# - busy counter: recomputed here from the op slices (cores inside a slice
#   / the device's cores, params.json num_cores), sample for sample;
# - zone slices (the workload's matmul, softmax and layernorm write custom
#   zones): per op, core, RISC and zone name as many as device_log.csv's
#   ZONE_START/ZONE_END pairs, on a "core N (x,y) RISC" track, each inside
#   its op's slice on that core, back to back as the sim writes them, the
#   duration of the pair's cycles (CHIP_FREQ) within 0.1% + 2 ns (the time
#   fit), and as many as ops.csv's ZONE MARKERS / 2;
# - --trace-group 16: "cores A-B" tracks, one slice per op and group
#   spanning its cores' slices, no zone slices (the head says so), a busy
#   counter from 0 to 0, a smaller file;
# - `kprofctl report` re-makes trace.json byte for byte;
# - `kprofctl capture --trace-group 16` (capture A2): params.json keeps it,
#   the trace has group tracks, `kprofctl report A2` re-makes it byte for
#   byte, and `report A2 --trace-group 1` goes back to core tracks.
# kprofctl diff (A1, A2 = same workload and clock; B = clock locked at 800
# MHz, which slows the compute-bound kinds, matmul and conv2d, by 1000/800
# in the sim's cost model and leaves the memory-bound ones' kernels as
# they are):
# - A1 vs A2: no device metric (kernel, fw, counters) flagged;
# - A1 vs B: matmul and conv2d kernel UP by 20-30%, eltwise_add, softmax
#   and layernorm kernel not flagged; the terminal table and the CSV
#   (header as docs/formats.md) say the same.
# TAP lines plus "# Totals:". Env: TRACE_OPS (default 300), TRACE_OUT
# (default a mktemp dir; kept in $BUILD/tests/trace/failed on failure).
here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$KPROF_ROOT/build}
E2E=$KPROF_ROOT/tests/e2e
K=$(command -v kprofctl || echo "$BUILD/kprofctl")
W=$BUILD/examples/sim_workload
OPS=${TRACE_OPS:-300}
OUT=${TRACE_OUT:-$(mktemp -d /tmp/kprof-trace.XXXXXX)} || exit 1
DBG=/sys/kernel/debug/kprof_sim
. "$here/tap_lib.sh"

finish() {
	"$K" reset-clock --device 0 2>&1 | sed 's/^/# /'
	e2e_finish trace
}

jget() {	# jget FILE PATH: a scalar of a json-c pretty-printed file
	awk -f "$E2E/e2e_json.awk" "$1" | awk -v p="$2" '$1 == p { print $2; exit }'
}

capture() {	# capture NAME [OPTION...]: a capture of the workload into $OUT/NAME
	name=$1
	shift
	"$K" capture --device 0 -o "$OUT/$name" "$@" -- "$W" --ops "$OPS" --quiet \
		>"$OUT/$name.out" 2>"$OUT/$name.err"
	st=$?
	sed 's/^/# /' "$OUT/$name.out" "$OUT/$name.err"
	tap "$st" "capture $name $* exit status"
}

[ -x "$W" ] || { echo "Bail out! $W missing: make examples"; exit 1; }
[ -d "$DBG/sim0" ] || { echo "Bail out! no $DBG/sim0: kprof.ko with sim_devices=1 and debugfs needed"; exit 1; }
echo "TAP version 13"

"$K" lock-clock --device 0 --mhz 1000 >"$OUT/lock.out" 2>&1
st=$?
sed 's/^/# /' "$OUT/lock.out"
tap "$st" "lock-clock --device 0 --mhz 1000"
lo=$(awk '$1 == "ops_launched" { print $2 }' "$DBG/sim0/stats")
capture a1
hi=$(awk '$1 == "ops_launched" { print $2 }' "$DBG/sim0/stats")
cat "$DBG/sim0/truth" >"$OUT/truth.txt"
capture a2 --trace-group 16
"$K" lock-clock --device 0 --mhz 800 >"$OUT/lock800.out" 2>&1
st=$?
sed 's/^/# /' "$OUT/lock800.out"
tap "$st" "lock-clock --device 0 --mhz 800"
capture b
D=$OUT/a1
T=$D/trace.json
test -s "$T"
tap $? "capture a1 wrote trace.json"
[ -s "$T" ] || finish

# ---- trace.json: layout --------------------------------------------------------
awk -f "$E2E/e2e_trace.awk" "$T" >"$OUT/t.txt"
S=$OUT/t.txt
bad=$(grep -c '^bad ' "$S")
grep -q '^head OK' "$S" && grep -q '^tail OK' "$S" && [ "$bad" = 0 ]
tap $? "trace.json: one event per line between '{...\"traceEvents\":[' and ']}' ($bad bad lines)"
grep -q 'Device lanes: trace.json device tracks' "$D/report.html"
tap $? "trace.json parses (json-c, for report.html's device lanes)"

# ---- device tracks ---------------------------------------------------------------
cores=$(jget "$D/params.json" device.num_cores)
gx=$(jget "$D/params.json" device.grid_x)
eq "$(awk '$1 == "track" && $2 == 1 && $3 < 1000000' "$S" | wc -l)" "$cores" \
	"trace.json: one device track per core"
awk -v gx="$gx" '$1 == "track" && $2 == 1 && $3 < 1000000 {
	want = "core_" $3 "_(" ($3 % gx) "," int($3 / gx) ")"
	if ($4 != want) { print "# track " $3 ": " $4 ", expected " want; bad++ }
} END { exit bad > 0 }' "$S"
tap $? "trace.json: core tracks named 'core N (x,y)' (grid_x $gx)"

# ---- op slices -------------------------------------------------------------------
O=$D/ops.csv
cc=$(col "$O" "CORE COUNT") cs=$(col "$O" "GLOBAL CALL COUNT") ch=$(col "$O" "HOST START TS")
want=$(awk -F, -v c="$cc" 'NR > 1 { s += $c } END { print s + 0 }' "$O")
eq "$(grep -c '^slice ' "$S")" "$want" "trace.json: op slices = sum of ops.csv CORE COUNT"
awk -F, -v s="$cs" 'NR == FNR { if (FNR > 1) name[$s] = $1; next }
	$1 == "slice" { n[$3]++; if (!($3 in name) || name[$3] != $6) { print "# slice of seq " $3 ": " $6; bad++ } }
	END { for (q in name) if (!n[q]) { print "# op " q " has no slice"; bad++ }
	      exit bad > 0 }' "$O" FS=' ' "$S"
tap $? "trace.json: every op has slices named by its OP CODE, no other slices"
awk -v lo="$lo" -v hi="$hi" 'NR == FNR {
	if (FNR > 1 && $1 > lo && $1 <= hi)
		for (c = $3; c < $3 + $4; c++) want[c]++
	next
}
$1 == "slice" { got[$2]++ }
END {
	for (c in want) if (got[c] != want[c]) { print "# core " c ": " got[c] + 0 " slices, truth " want[c]; bad++ }
	for (c in got) if (!(c in want)) { print "# core " c ": slices but no truth"; bad++ }
	exit bad > 0 || !length(want)
}' "$OUT/truth.txt" "$S"
tap $? "trace.json: slices per core track = ops the sim ran on that core (truth)"

# ---- host tracks -----------------------------------------------------------------
H=$D/host_events.csv
for role in launch sync; do
	want=$(awk -F, -v r="$role" '$1 == r { n++ } END { print n + 0 }' "$H")
	got=$(awk -v r="$role" '$1 == "host" && $6 == r { n++ } END { print n + 0 }' "$S")
	[ "$want" -gt 0 ] && [ "$got" = "$want" ]
	tap $? "trace.json: $role slices = host_events.csv $role rows ($got, $want)"
done
awk '$1 == "track" && $2 == 2 { named[$3] = 1 } $1 == "host" { if (!($2 in named)) bad++ }
	END { exit bad > 0 }' "$S"
tap $? "trace.json: every host slice is on a named thread track"

# ---- flow arrows -----------------------------------------------------------------
cr=$(col "$H" RET)
want=$(awk -F, -v r="$cr" '$1 == "launch" && $r >= 0 { n++ } END { print n + 0 }' "$H")
eq "$(awk '$1 == "flow" && $2 == "s"' "$S" | wc -l)" "$want" "flow starts = successful launches"
want=$(awk -F, -v h="$ch" 'NR > 1 && $h != "" { n++ } END { print n + 0 }' "$O")
eq "$(awk '$1 == "flow" && $2 == "f"' "$S" | wc -l)" "$want" "flow ends = ops with a launch"
awk '$1 == "flow" && $2 == "s" { s[$3] = $6; ns[$3]++ }
	$1 == "flow" && $2 == "f" { f[$3] = $6; nf[$3]++; if ($4 != 1) bad++ }
	END {
		for (i in f) {
			if (nf[i] != 1 || ns[i] != 1) { print "# flow " i ": " ns[i] + 0 " starts, " nf[i] " ends"; bad++ }
			else if (f[i] + 0 < s[i] + 0) { print "# flow " i ": device start " f[i] " before launch " s[i]; bad++ }
		}
		exit bad > 0 || !length(f)
	}' "$S"
tap $? "flows: each end pairs with one start by id, on the device, after the launch"

# ---- counters --------------------------------------------------------------------
awk '$1 == "counter" && $2 == "clock_MHz" { n++; if ($4 != 1000) bad++ }
	END { exit !(n > 0 && !bad) }' "$S"
tap $? "clock MHz counter: every sample is the locked 1000 MHz ($(grep -c '^counter clock_MHz' "$S") samples)"
# the busy counter again from the slices: per instant, cores inside a slice,
# of the device's cores (printf %.0f: awk may print big sums as 2.6e+11)
awk '$1 == "slice" { printf "%s %s 1\n%.0f %s -1\n", $4, $2, $4 + $5, $2 }' "$S" |
	sort -k1,1n -k2,2n -k3,3n >"$OUT/edges.txt"
awk -v nc="$cores" '{ e[++ne] = $0 }
	END {
		i = 1
		while (i <= ne) {
			split(e[i], x, " ")
			t = x[1]
			while (i <= ne) {
				split(e[i], x, " ")
				if (x[1] != t) break
				before = d[x[2]] > 0
				d[x[2]] += x[3]
				busy += (d[x[2]] > 0) - before
				i++
			}
			v = sprintf("%.6g", 100 * busy / nc)
			if (v != last) printf "%.0f %s\n", t, v
			last = v
		}
	}' "$OUT/edges.txt" >"$OUT/busy.want"
awk '$1 == "counter" && $2 == "busy" { print $3, $4 }' "$S" >"$OUT/busy.got"
cmp -s "$OUT/busy.want" "$OUT/busy.got"
tap $? "busy counter: the same samples as recomputed from the op slices ($(wc -l <"$OUT/busy.got") samples)"
awk '{ if ($2 < 0 || $2 > 100) bad++; last = $2; if ($2 > max) max = $2 }
	END { exit !(NR > 0 && !bad && last == 0 && max == 100) }' "$OUT/busy.got"
tap $? "busy counter: within 0..100 %, reaches 100 % (matmul uses every core), ends at 0"

# ---- zone slices -----------------------------------------------------------------
eq "$(awk '$1 == "meta" && $2 == "zone_slices" { print $3 }' "$S")" "per_core_and_RISC" \
	"trace.json head: zone_slices per core and RISC"
cz=$(col "$O" "ZONE MARKERS")
want=$(awk -F, -v z="$cz" 'NR > 1 { s += $z } END { print s / 2 }' "$O")
got=$(grep -c '^zone ' "$S")
[ "$got" -gt 0 ] && [ "$got" = "$want" ]
tap $? "zone slices = ops.csv ZONE MARKERS / 2 ($got, $want)"
eq "$(awk -F, -v s="$cs" -v z="$cz" 'NR == FNR { if (FNR > 1 && $1 == "matmul" && $z > 0) m[$s] = 1; next }
	$1 == "zone" && ($3 in m) { n++ } END { print (n > 0) }' "$O" FS=' ' "$S")" 1 \
	"matmul ops (2 zones per RISC in the workload) have zone slices"
# device_log.csv: pair ZONE-<id> START/END per op, core, RISC and zone
mhz=$(head -n 1 "$D/device_log.csv" | sed -n 's/.*CHIP_FREQ\[MHz\]: *\([0-9.]*\).*/\1/p')
awk -F, -v gx="$gx" 'NR > 2 && $11 ~ /^ZONE-/ {
	r = $4; gsub(/ /, "_", r)
	k = $8 " " ($3 * gx + $2) " " r " " $11
	if ($12 == "ZONE_START") st[k] = $6
	else if (k in st) { print k, $6 - st[k]; delete st[k] }
	else print "# unpaired END " k
}' "$D/device_log.csv" | sort >"$OUT/zones.want"
# the trace: RISC from the zone track name "core_N_(x,y)_RISC"
awk '$1 == "track" && $2 == 1 && $3 >= 1000000 {
	r = $4; sub(/^core_[0-9]+(_\([0-9]+,[0-9]+\))?_/, "", r); risc[$3] = r
}
$1 == "zone" { print $3, int(($2 - 1000000) / 10), risc[$2], $6, $5 }' "$S" | sort >"$OUT/zones.got"
awk -v mhz="$mhz" 'NR == FNR { if ($1 == "#") { bad++; print; next } k = $1 " " $2 " " $3 " " $4; cyc[k] = $5; next }
	{
		k = $1 " " $2 " " $3 " " $4
		if (!(k in cyc)) { print "# zone slice " k " not in device_log.csv"; bad++; next }
		want = cyc[k] * 1000 / mhz; d = $5 - want; if (d < 0) d = -d
		if (d > 2 + want / 1000) { print "# zone " k ": " $5 " ns, device_log " want " ns"; bad++ }
		if (d > maxd) maxd = d
		seen[k]++
	}
	END {
		for (k in cyc) if (seen[k] != 1) { print "# zone " k ": " seen[k] + 0 " slices"; bad++ }
		printf "# zone durations vs device_log cycles: max |diff| %.1f ns\n", maxd
		exit bad > 0 || !length(cyc)
	}' "$OUT/zones.want" "$OUT/zones.got"
tap $? "zone slices = device_log.csv zone pairs per op, core, RISC and zone; durations match ($(wc -l <"$OUT/zones.want") pairs)"
awk '$1 == "slice" { s[$3 " " $2] = $4; e[$3 " " $2] = $4 + $5 }
	$1 == "zone" {
		k = $3 " " int(($2 - 1000000) / 10)
		if (!(k in s) || $4 + 0 < s[k] + 0 || $4 + $5 > e[k] + 0) { print "# zone outside its op slice: " $0; bad++ }
		t = $3 " " $2
		if (t == last && $4 != lastend) { print "# zone not back to back: " $0 " after end " lastend; bad++ }
		last = t; lastend = sprintf("%.0f", $4 + $5)
	}
	END { exit bad > 0 }' "$S"
tap $? "zone slices lie inside their op's slice on their core, back to back per RISC"

# ---- the size-bounding option --------------------------------------------------------
G=16
"$K" report "$D" -o "$OUT/g" --trace-group $G >"$OUT/g.out" 2>&1
tap $? "kprofctl report --trace-group $G exit status"
awk -f "$E2E/e2e_trace.awk" "$OUT/g/trace.json" >"$OUT/g.txt"
awk -v g="$G" -v nc="$cores" '$1 == "track" && $2 == 1 {
	n++
	want = "cores_" $3 * g "-" $3 * g + g - 1
	if ($4 != want) { print "# track " $3 ": " $4 ", expected " want; bad++ }
} END { exit bad > 0 || n != int((nc + g - 1) / g) }' "$OUT/g.txt"
tap $? "--trace-group $G: $(grep -c '^track 1 ' "$OUT/g.txt") 'cores A-B' tracks for $cores cores"
# one slice per op and group: earliest start to latest end of its cores
awk -v g="$G" '$1 == "slice" {
	k = $3 " " int($2 / g); e = $4 + $5
	if (!(k in s) || $4 + 0 < s[k] + 0) s[k] = $4
	if (!(k in f) || e > f[k] + 0) f[k] = e
} END { for (k in s) printf "%s %.0f %.0f\n", k, s[k], f[k] }' "$S" | sort >"$OUT/g.want"
awk '$1 == "slice" { printf "%s %s %s %.0f\n", $3, $2, $4, $4 + $5 }' "$OUT/g.txt" | sort >"$OUT/g.got"
cmp -s "$OUT/g.want" "$OUT/g.got"
tap $? "--trace-group $G: one slice per op and group spanning its cores' slices ($(wc -l <"$OUT/g.got"))"
awk '$1 == "counter" && $2 == "busy" { n++; if ($4 < 0 || $4 > 100) bad++; last = $4 }
	END { exit !(n > 0 && !bad && last == 0) }' "$OUT/g.txt"
tap $? "--trace-group $G: busy counter within 0..100 %, ends at 0"
eq "$(grep -c '^zone ' "$OUT/g.txt")/$(awk '$1 == "meta" { print $3 }' "$OUT/g.txt")" \
	"0/omitted:_cores_grouped_by_$G" "--trace-group $G: no zone slices, the head says why"
a=$(wc -c <"$T") b=$(wc -c <"$OUT/g/trace.json")
echo "# sizes: a1 trace.json $a bytes ($(grep -c '^slice ' "$S") op slices, $(grep -c '^zone ' "$S") zone slices, $(grep -c '^counter busy' "$S") busy samples); --trace-group $G $b bytes ($(grep -c '^slice ' "$OUT/g.txt") op slices, $(grep -c '^counter busy' "$OUT/g.txt") busy samples)"
[ "$b" -lt "$a" ]
tap $? "--trace-group $G: trace.json smaller ($b bytes, per core $a)"

# ---- re-made byte for byte -----------------------------------------------------------
"$K" report "$D" -o "$OUT/again" >"$OUT/again.out" 2>&1
tap $? "kprofctl report DIR -o OUT exit status"
cmp "$T" "$OUT/again/trace.json"
tap $? "re-made trace.json is byte-identical"
eq "$(jget "$D/params.json" config.trace_group)" 1 "capture a1: params.json config.trace_group"

# ---- kprofctl capture --trace-group ----------------------------------------------------
D2=$OUT/a2
eq "$(jget "$D2/params.json" config.trace_group)" "$G" "capture --trace-group $G: params.json config.trace_group"
awk -f "$E2E/e2e_trace.awk" "$D2/trace.json" >"$OUT/a2.txt"
eq "$(awk '$1 == "track" && $2 == 1 { n++; if ($4 !~ /^cores_/) bad++ } END { print n + 0 " " bad + 0 }' "$OUT/a2.txt")" \
	"$(( (cores + G - 1) / G )) 0" "capture --trace-group $G: 'cores A-B' tracks only"
eq "$(grep -c '^zone ' "$OUT/a2.txt")" 0 "capture --trace-group $G: no zone slices"
"$K" report "$D2" -o "$OUT/again2" >"$OUT/again2.out" 2>&1
tap $? "kprofctl report A2 -o OUT exit status"
cmp "$D2/trace.json" "$OUT/again2/trace.json"
tap $? "report A2 re-makes the --trace-group $G trace.json byte for byte"
"$K" report "$D2" -o "$OUT/percore2" --trace-group 1 >"$OUT/percore2.out" 2>&1
tap $? "kprofctl report A2 --trace-group 1 exit status"
# grep, not e2e_trace.awk again: the layout was checked above, and busybox
# awk takes about 100 s over this file under TCG
nt=$(grep '^{"ph":"M","pid":1,"tid":[0-9]\{1,6\},"name":"thread_name",' \
	"$OUT/percore2/trace.json" | wc -l)
nz=$(grep -c '^{"ph":"X","cat":"zone",' "$OUT/percore2/trace.json")
[ "$nt" = "$cores" ] && [ "$nz" -gt 0 ]
tap $? "report A2 --trace-group 1: per-core tracks and zone slices again ($nt tracks, $nz zone slices)"

# ---- kprofctl diff -------------------------------------------------------------------
# FLAG is the last CSV field; METRIC the second (no commas in either)
"$K" diff "$OUT/a1" "$OUT/a2" --csv "$OUT/same.csv" >"$OUT/same.txt" 2>&1
tap $? "kprofctl diff A1 A2 exit status"
sed 's/^/# /' "$OUT/same.txt"
eq "$(head -n 1 "$OUT/same.csv")" \
	"OP CODE,METRIC,N A,N B,MEAN A,MEAN B,MEDIAN A,MEDIAN B,TOTAL A,TOTAL B,CHANGE [%],NOISE [%],FLAG" \
	"diff CSV header"
nkinds() {
	awk -F, 'NR > 1 { k[$1] = 1 } END { n = 0; for (x in k) n++; print n }' "$1"
}
eq "$(nkinds "$OUT/same.csv")" "$(nkinds "$OUT/a1/ops.csv")" "diff A1 A2: a row group per op kind of A1's ops.csv"
# host [ns] (launch ioctl time) depends on the host's load, not the
# workload: shown, not asserted
flagged=$(awk -F, 'NR > 1 && $2 != "host [ns]" && ($NF == "UP" || $NF == "DOWN") { print $1 "/" $2 }' "$OUT/same.csv")
[ -z "$flagged" ]
tap $? "diff A1 A2 (same workload, same clock): no device metric flagged ($(echo $flagged))"
awk -F, '$2 == "host [ns]" && $NF != "" { print "# host metric flag: " $0 }' "$OUT/same.csv"

"$K" diff "$OUT/a1" "$OUT/b" --csv "$OUT/changed.csv" >"$OUT/changed.txt" 2>&1
tap $? "kprofctl diff A1 B exit status"
sed 's/^/# /' "$OUT/changed.txt"
for k in matmul conv2d; do
	row=$(awk -F, -v k="$k" '$1 == k && $2 == "kernel [ns]"' "$OUT/changed.csv")
	echo "$row" | awk -F, '{ exit !($NF == "UP" && $11 >= 20 && $11 <= 30) }'
	tap $? "diff A1 B (800 MHz): $k kernel flagged UP by 20-30% ($row)"
	grep -q -E "^$k +kernel \[ns\] .* UP$" "$OUT/changed.txt"
	tap $? "diff A1 B: the terminal table shows $k kernel UP"
done
for k in eltwise_add softmax layernorm; do
	row=$(awk -F, -v k="$k" '$1 == k && $2 == "kernel [ns]"' "$OUT/changed.csv")
	echo "$row" | awk -F, '{ exit !(NF == 13 && $NF == "") }'
	tap $? "diff A1 B: $k (memory-bound) kernel not flagged ($row)"
done
finish
