#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Captures of several devices at once, in the VM (tests/vm/run --exec
# tests/vm/e2e_multi.sh; the VM suite runs it too), on two small sim
# devices this script adds (and removes), of 4 and 2 cores:
#
# 1. `kprofctl capture --device A,B -- CMD`, CMD driving both devices at
#    once: each device's directory holds the files a one-device capture
#    writes, its ops checked against that device's own ground truth
#    (tests/e2e/e2e_ops.awk: one row per op launched on it, host and device
#    times in order, durations within 1%); DIR/trace.json holds each
#    device's events under its own processes, the devices' ops overlapping
#    in host time; report.md's table gives each device's op count and names
#    the busiest device as the slowest; report.html links both.
# 2. `kprofctl report DIR` re-makes every file from the devices' raw/ alone,
#    byte for byte; `report DIR -o OUT` writes the same files into OUT.
# 3. A device already captured (by a one-device capture): a capture of
#    A,B fails, naming device B and its holder's pid and command, and
#    captures nothing (device A is free, DIR is not left behind).
# 4. A device held by a multi-device capture: a one-device capture of it
#    fails naming that kprofctl; the multi-device capture, stopped with
#    SIGINT, still writes its outputs.
#
# Output: TAP plus a kselftest style "# Totals:" line. Env: E2E_OPS_A
# (default 200), E2E_OPS_B (300), E2E_OUT (default /tmp/kprof-e2e-multi).

here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$KPROF_ROOT/build}
E2E=$KPROF_ROOT/tests/e2e
K=$(command -v kprofctl || echo "$BUILD/kprofctl")
W=$BUILD/examples/sim_workload
OPS_A=${E2E_OPS_A:-200}
OPS_B=${E2E_OPS_B:-300}
OUT=${E2E_OUT:-/tmp/kprof-e2e-multi}
DBG=/sys/kernel/debug/kprof_sim
SIM_A=5		# sim ids of the two devices
SIM_B=6

. "$here/tap_lib.sh"

[ -x "$W" ] || { echo "Bail out! $W missing: make examples"; exit 1; }
[ -w /sys/bus/kprof_sim/new_device ] && [ -d "$DBG" ] ||
	{ echo "Bail out! no kprof_sim bus or $DBG: kprof_sim.ko and debugfs needed"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT" || exit 1
echo "TAP version 13"

echo "$SIM_A 4 5" >/sys/bus/kprof_sim/new_device
echo "$SIM_B 2 5" >/sys/bus/kprof_sim/new_device
i=0
while ! B=$(kprof_of_sim $SIM_B) && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
A=$(kprof_of_sim $SIM_A)
if [ -z "$A" ] || [ -z "$B" ]; then
	tap fail "sim$SIM_A and sim$SIM_B have /dev/kprofN"
	e2e_finish e2e_multi
fi
echo "# devices: sim$SIM_A is kprof$A, sim$SIM_B is kprof$B"
holder() {	# holder N: "PID COMM" of device N's capture, "" when free
	h=$(cat "/sys/class/kprof/kprof$1/capture_holder" 2>/dev/null)
	[ "$h" = none ] || echo "$h"
}
wait_holder() {	# wait_holder N: until device N is captured (max 60 s)
	i=0
	while [ -z "$(holder "$1")" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# one ops.csv's and host_events.csv's checks against sim SIM's truth
check_dev() {	# check_dev DIR SIM LO HI LABEL
	cat "$DBG/sim$2/truth" >"$1/truth.txt"
	awk -f "$E2E/e2e_ops.awk" -v lo="$3" -v hi="$4" \
		-v riscs="$(json "$1/params.json" device.riscs_per_core)" \
		-v bound="$(json "$1/params.json" time_sync.fit.error_bound_ns)" \
		-v tol=0.01 -v lost=zero -v reclo=1 -v rechi=0 \
		"$1/truth.txt" FS=, "$1/host_events.csv" "$1/ops.csv" >"$1/check.txt" 2>&1 ||
		echo "FAIL checker ran (exit $?)" >>"$1/check.txt"
	sed -i "s/^PASS /PASS $5: /; s/^FAIL /FAIL $5: /" "$1/check.txt"
	report "$1/check.txt"
}

# ---- 1. two devices, one command -----------------------------------------
D=$OUT/multi
loA=$(simstat $SIM_A ops_launched)
loB=$(simstat $SIM_B ops_launched)
"$K" capture --device "$A,$B" -o "$D" -- sh -c \
	"'$W' --device $SIM_A --ops $OPS_A --quiet & a=\$!; '$W' --device $SIM_B --ops $OPS_B --quiet; b=\$?; wait \$a && [ \$b = 0 ]" \
	>"$OUT/multi.log" 2>&1
st=$?
sed 's/^/# /' "$OUT/multi.log"
eq "$st" 0 "multi: kprofctl capture exit status"
hiA=$(simstat $SIM_A ops_launched)
hiB=$(simstat $SIM_B ops_launched)
eq $((hiA - loA)) "$OPS_A" "multi: sim$SIM_A counted its launched ops"
eq $((hiB - loB)) "$OPS_B" "multi: sim$SIM_B counted its launched ops"

# the one-device file set, for comparison: a short capture of device A
"$K" capture --device "$A" -o "$OUT/one" -- "$W" --device $SIM_A --ops 20 --quiet \
	>"$OUT/one.log" 2>&1 || sed 's/^/# /' "$OUT/one.log"
one=$(cd "$OUT/one" && find . -type f | sort | tr '\n' ' ')
for dv in "$A" "$B"; do
	got=$(cd "$D/dev$dv" && find . -type f | sort | tr '\n' ' ')
	eq "$got" "$one" "multi: dev$dv/ holds a one-device capture's files"
	eq "$(json "$D/dev$dv/params.json" device.device_id)" "$dv" "multi: dev$dv/ is device $dv"
	eq "$(json "$D/dev$dv/params.json" stats.lost_markers)" 0 "multi: dev$dv/ lost no marker"
	eq "$(awk -F, -v c="$(col "$D/dev$dv/ops.csv" 'DEVICE ID')" -v d="$dv" 'NR > 1 && $c != d' \
		"$D/dev$dv/ops.csv" | wc -l)" 0 "multi: every row of dev$dv/ops.csv is of device $dv"
done
eq "$(cd "$D" && find . -maxdepth 1 -type f | sort | tr '\n' ' ')" \
	"./capture.json ./report.html ./report.md ./trace.json " \
	"multi: DIR holds trace.json, report.md, report.html, capture.json"
check_dev "$D/dev$A" $SIM_A "$loA" "$hiA" "multi dev$A"
check_dev "$D/dev$B" $SIM_B "$loB" "$hiB" "multi dev$B"

# trace.json: device A's events under pids 1 (device) and 2 (host), B's
# under 3 and 4; as many op slices and ioctls as each device's own trace
T=$D/trace.json
for dv in "$A" "$B"; do
	case $dv in "$A") dp=1 hp=2 ;; *) dp=3 hp=4 ;; esac
	want=$(grep -c '"cat":"op","pid":1,' "$D/dev$dv/trace.json")
	eq "$(grep -c "\"cat\":\"op\",\"pid\":$dp," "$T")" "$want" \
		"trace.json: device $dv's op slices on pid $dp"
	want=$(grep -c '"cat":"ioctl","pid":2,' "$D/dev$dv/trace.json")
	eq "$(grep -c "\"cat\":\"ioctl\",\"pid\":$hp," "$T")" "$want" \
		"trace.json: device $dv's ioctls on pid $hp"
	eq "$(grep -c "\"pid\":$dp,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"device $dv: " "$T")" 1 \
		"trace.json: pid $dp named device $dv"
	eq "$(grep -c "\"pid\":$hp,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"host (device $dv)\"" "$T")" 1 \
		"trace.json: pid $hp named host (device $dv)"
done
eq "$(grep -vc '"pid":[1-4],' "$T")" 2 "trace.json: every event on pids 1-4 (header and end aside)"
bad=$(awk 'NR > 1 && !/^\{.*\},?$/ && !/^\]\}$/' "$T" | wc -l)
eq "$bad" 0 "trace.json: one event per line"
# same host clock: the two devices' op spans overlap (they ran at once)
span() {	# span OPS_CSV: "first_start last_end" of DEVICE FW START/END TS
	awk -F, -v s="$(col "$1" 'DEVICE FW START TS [ns]')" -v e="$(col "$1" 'DEVICE FW END TS [ns]')" \
		'NR > 1 && $s != "" { if (lo == "" || $s < lo) lo = $s; if ($e > hi) hi = $e }
		 END { printf "%.0f %.0f\n", lo, hi }' "$1"
}
set -- $(span "$D/dev$A/ops.csv") $(span "$D/dev$B/ops.csv")
echo "# device $A ops from $1 to $2 ns, device $B from $3 to $4 ns"
if [ "$1" -lt "$4" ] && [ "$3" -lt "$2" ]; then
	tap ok "trace.json: the devices' ops overlap in host time"
else
	tap fail "trace.json: the devices' ops overlap in host time"
fi

# report.md: each device's row (ops from its ops.csv), the busiest named
R=$D/report.md
sed 's/^/# report.md: /' "$R"
for dv in "$A" "$B"; do
	rows=$(($(wc -l <"$D/dev$dv/ops.csv") - 1))
	eq "$(awk -F' \\| ' -v d="$dv" '$1 ~ "^\\| " d "(:|$)" { print $3; exit }' "$R")" "$rows" \
		"report.md: device $dv's op count"
done
busiest=$(awk -F' \\| ' '/^\| [0-9]+(:| )/ && $4 != "" { if ($4 + 0 > max) { max = $4 + 0; d = $1 } }
	END { sub(/^\| /, "", d); sub(/:.*/, "", d); print d }' "$R")
eq "$(grep -c "^\*\*Slowest device: $busiest\*\*" "$R")" 1 "report.md: the busiest device ($busiest) is the slowest"
for dv in "$A" "$B"; do
	eq "$(grep -c "<a href=\"dev$dv/report.html\">device $dv</a>" "$D/report.html")" 1 \
		"report.html: links device $dv's page"
done

# ---- 2. report DIR re-makes everything from raw/ ----------------------------
mkdir -p "$OUT/before"
for f in trace.json report.md report.html "dev$A/ops.csv" "dev$B/trace.json" "dev$B/report.md"; do
	cp "$D/$f" "$OUT/before/$(echo "$f" | tr / _)"
done
rm -f "$D/trace.json" "$D/report.md" "$D/report.html" "$D/dev$A/ops.csv" "$D/dev$B/trace.json"
"$K" report "$D" >"$OUT/report.log" 2>&1
eq "$?" 0 "report DIR: exit status"
sed 's/^/# /' "$OUT/report.log"
for f in trace.json report.md report.html "dev$A/ops.csv" "dev$B/trace.json" "dev$B/report.md"; do
	if cmp "$OUT/before/$(echo "$f" | tr / _)" "$D/$f" >/dev/null 2>&1; then
		tap ok "report DIR: $f re-made, byte for byte"
	else
		tap fail "report DIR: $f re-made, byte for byte"
	fi
done

# ... and into another directory: OUT/devN and OUT's files, the same bytes
"$K" report "$D" -o "$OUT/re" >"$OUT/report-o.log" 2>&1
eq "$?" 0 "report DIR -o OUT: exit status"
for f in trace.json report.md "dev$A/ops.csv" "dev$B/trace.json"; do
	if cmp "$D/$f" "$OUT/re/$f" >/dev/null 2>&1; then
		tap ok "report DIR -o OUT: $f the same as DIR's"
	else
		tap fail "report DIR -o OUT: $f the same as DIR's"
	fi
done

# ---- 3. a device already captured: nothing captured ----------------------
"$K" capture --device "$B" --no-bpf -o "$OUT/holder1" -- sleep 60 >"$OUT/holder1.log" 2>&1 &
hpid=$!
wait_holder "$B"
"$K" capture --device "$A,$B" -o "$OUT/refused" -- true >"$OUT/refused.log" 2>&1
st=$?
sed 's/^/# /' "$OUT/refused.log"
if [ "$st" != 0 ]; then tap ok "busy: exit status $st"; else tap fail "busy: exit status 0"; fi
eq "$(grep -c "device $B is being captured by pid $hpid (kprofctl)" "$OUT/refused.log")" 1 \
	"busy: names device $B and its holder, pid and command"
eq "$(grep -c "nothing captured: a capture of devices $A,$B takes every one of them or none, and device $B could not be taken" "$OUT/refused.log")" 1 \
	"busy: says nothing was captured, and why"
eq "$(holder "$A")" "" "busy: device $A is not left captured"
if [ -e "$OUT/refused" ]; then tap fail "busy: no capture directory left"; else tap ok "busy: no capture directory left"; fi
kill -INT $hpid
wait $hpid

# ---- 4. held by a multi-device capture -----------------------------------
"$K" capture --device "$A,$B" --no-bpf -o "$OUT/holder2" -- sleep 60 >"$OUT/holder2.log" 2>&1 &
hpid=$!
wait_holder "$A"
wait_holder "$B"
"$K" capture --device "$B" --no-bpf -o "$OUT/refused2" -- true >"$OUT/refused2.log" 2>&1
st=$?
sed 's/^/# /' "$OUT/refused2.log"
if [ "$st" != 0 ]; then tap ok "held by a multi-device capture: exit status $st"; else tap fail "held by a multi-device capture: exit status 0"; fi
eq "$(grep -c "device $B is being captured by pid $hpid (kprofctl)" "$OUT/refused2.log")" 1 \
	"held by a multi-device capture: names its kprofctl"
kill -INT $hpid
wait $hpid
sed 's/^/# /' "$OUT/holder2.log"
for f in trace.json report.md report.html "dev$A/ops.csv" "dev$B/ops.csv"; do
	if [ -s "$OUT/holder2/$f" ]; then tap ok "stopped by SIGINT: $f written"; else tap fail "stopped by SIGINT: $f written"; fi
done
eq "$(holder "$A")$(holder "$B")" "" "every device free at the end"

echo "$SIM_A" >/sys/bus/kprof_sim/del_device
echo "$SIM_B" >/sys/bus/kprof_sim/del_device
e2e_finish e2e_multi
