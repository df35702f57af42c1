#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-html`: report.html of a real capture, rendered by headless
# Chromium (Debian's chromium package) on the host.
#  1. tests/vm/run --exec tests/vm/e2e_report_html.sh makes a capture of
#     examples/sim_workload in the VM (its own, every run: no dependence on
#     what earlier lanes left in build/) and leaves it in
#     $BUILD/tests/html/capture.
#  2. Chromium loads report.html (file://, no network: the page's CSP
#     forbids every fetch) and dumps the DOM after its JS ran.
#  3. The DOM must hold one top-ops row per op kind of ops.csv with that
#     kind's op count (counted here with awk, not by the page), the op
#     total, the timeline and the slowest-ops table. A second render with
#     JavaScript off must NOT have those rows: the check can fail.
#  4. The same checks on the report.html of `kprofctl report
#     --from-ttmetal` of the real Wormhole device log
#     ($KPROF_TTMETAL_DATA, default ../shared/data/ttmetal as for the unit
#     tests): no host lanes there (the log has no host data).
# A Chromium that does not start is diagnosed (exit status, its stderr),
# never retried. Prints ok/not ok lines and "N passed, N failed" last.
# Env: HTML_CAPTURE=DIR skips step 1 and checks DIR (must have
# report.html, ops.csv); CHROMIUM (default chromium); HTML_OPS.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=$BUILD/tests/html
CHROMIUM=${CHROMIUM:-chromium}
pass=0 fail=0

ok() {
	if [ "$1" = 0 ]; then
		echo "ok - $2"
		pass=$((pass + 1))
	else
		echo "not ok - $2"
		fail=$((fail + 1))
	fi
}

finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}

mkdir -p "$OUT"
if [ -z "${HTML_CAPTURE:-}" ]; then
	rm -rf "$OUT/capture"
	HTML_OPS=${HTML_OPS:-300} "$ROOT/tests/vm/run" --exec tests/vm/e2e_report_html.sh \
		>"$OUT/vm.log" 2>&1
	st=$?
	sed 's/^/# vm: /' "$OUT/vm.log"
	ok "$st" "VM capture and report.html checks (tests/vm/e2e_report_html.sh, status $st)"
	HTML_CAPTURE=$OUT/capture
fi
CAP=$HTML_CAPTURE
if [ ! -s "$CAP/report.html" ] || [ ! -s "$CAP/ops.csv" ]; then
	ok 1 "capture $CAP has report.html and ops.csv"
	finish
fi

if ! command -v "$CHROMIUM" >/dev/null; then
	ok 1 "'$CHROMIUM' is installed (apt-get install chromium; scripts/deps.sh lists it)"
	finish
fi

# render URL DOMFILE [extra flags]: one Chromium run, diagnosed on failure
render() {
	local url=$1 dom=$2 prof st
	shift 2
	prof=$(mktemp -d) || return 1
	# no network, no first-run, no updater; root needs --no-sandbox;
	# a small /dev/shm in containers crashes the renderer without
	# --disable-dev-shm-usage
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-dev-shm-usage --user-data-dir="$prof" \
		--virtual-time-budget=5000 "$@" --dump-dom "$url" >"$dom" 2>"$dom.err"
	st=$?
	rm -rf "$prof"
	if [ "$st" != 0 ] || [ ! -s "$dom" ]; then
		echo "# chromium failed: exit status $st$([ "$st" = 124 ] && echo ' (timeout)'), DOM ${dom} $(wc -c <"$dom") bytes; its stderr:"
		grep -v -E 'dbus|Failed to connect to the bus' "$dom.err" | tail -n 20 | sed 's/^/#   /'
		return 1
	fi
	return 0
}

# check_page CAP TAG HOST: render CAP/report.html and check the DOM against
# CAP/ops.csv; HOST=1: it must have host launch and sync lanes, 0: none
check_page() {
	local CAP=$1 T=$2 host=$3 URL D kind line
	D=$OUT/$T
	mkdir -p "$D"
	URL="file://$(cd "$CAP" && pwd)/report.html"
	render "$URL" "$D/dom.html"
	ok $? "$T: chromium renders $URL"
	# the same page without its closing script (the one that builds the table)
	awk '/^<script>$/ { skip = 1 } !skip { print } /^<\/script>$/ { skip = 0 }' \
		"$CAP/report.html" >"$D/nojs.html"
	render "file://$D/nojs.html" "$D/dom-nojs.html"
	ok $? "$T: chromium renders it without the page's script"
	# a screenshot for people (not checked)
	local prof st total nkinds rects slow exp nojs
	prof=$(mktemp -d)
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --user-data-dir="$prof" --window-size=1300,1600 \
		--screenshot="$D/report.png" "$URL" >/dev/null 2>&1
	rm -rf "$prof"

	# expected: per op kind, its row count, from ops.csv (the sim's op names
	# have no commas or quotes, so the first field is the OP CODE)
	awk -F, 'NR > 1 { n[$1]++ } END { for (k in n) print k "\t" n[k] }' \
		"$CAP/ops.csv" | sort >"$D/expect.tsv"
	total=$(($(wc -l <"$CAP/ops.csv") - 1))
	nkinds=$(wc -l <"$D/expect.tsv")
	test "$nkinds" -gt 0 && test "${total:-0}" -gt 0
	ok $? "$T: ops.csv has ops ($total ops, $nkinds kinds)"

	# the rows the page's JS made: <tr class="kind" data-op="K" data-n="N">
	grep -o '<tr class="kind" data-op="[^"]*" data-n="[0-9]*"' "$D/dom.html" |
		sed -E 's/.*data-op="([^"]*)" data-n="([0-9]*)"/\1\t\2/' | sort >"$D/got.tsv"
	diff -u "$D/expect.tsv" "$D/got.tsv" >"$D/kinds.diff"
	st=$?
	sed 's/^/# /' "$D/kinds.diff"
	ok "$st" "$T: rendered top-ops table: one row per op kind with its ops.csv count"
	grep -q "id=\"js-status\" class=\"note\">$nkinds op kinds, $total ops<" "$D/dom.html"
	ok $? "$T: rendered status line: $nkinds op kinds, $total ops"
	# (not IFS=tab read: a tab is IFS white space, so an empty OP CODE
	# would vanish and the count be taken for the kind)
	while IFS= read -r line; do
		kind=${line%%$'\t'*}
		# the page shows an empty OP CODE (tt-metal logs) as "(no OP CODE)"
		grep -q "<td>${kind:-(no OP CODE)}</td>" "$D/dom.html"
		ok $? "$T: op kind '${kind:-(no OP CODE)}' shown in a table cell"
	done <"$D/expect.tsv"
	rects=$(grep -o '<rect ' "$D/dom.html" | wc -l)
	test "$rects" -gt 0
	ok $? "$T: timeline SVG has slices ($rects rects)"
	if [ "$host" = 1 ]; then
		grep -q '<text class="lane"[^>]*>launch ' "$D/dom.html" &&
			grep -q '<text class="lane"[^>]*>sync ' "$D/dom.html"
		ok $? "$T: timeline has host launch and sync lanes"
	else
		! grep -q -E '<text class="lane"[^>]*>(launch|sync) ' "$D/dom.html"
		ok $? "$T: timeline has no host lanes (no host data)"
	fi
	# device lanes are core tracks; trace.json's per-RISC zone tracks
	# ("core N (x,y) BRISC") must not take lanes
	zl=$(grep -c -E '<text class="lane"[^>]*>[^<]*(BRISC|NCRISC|TRISC)' "$D/dom.html")
	test "$zl" = 0
	ok $? "$T: no device lane is a zone (RISC) track ($zl)"
	slow=$(sed -n '/<table id="slowest">/,/<\/table>/p' "$D/dom.html" | grep -c '<tr><td>')
	exp=$((total < 20 ? total : 20))
	test "$slow" = "$exp"
	ok $? "$T: slowest-ops table has $exp rows ($slow)"
	# the roofline chart: one point per kind with FLOPs and bytes (at most
	# 40), a table row per kind with time, from roofline.csv (counted here)
	if [ -s "$CAP/roofline.csv" ]; then
		local rl_pts rl_rows got_pts got_rows
		read -r rl_pts rl_rows < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["TIME [ns]"] > 0 { t[$c["OP CODE"]] = 1; f[$c["OP CODE"]] += $c["FLOPS"];
				b[$c["OP CODE"]] += $c["BYTES"] }
			END { for (k in t) { n++; if (f[k] > 0 && b[k] > 0) p++ }
				print (p > 40 ? 40 : p) + 0, n + 0 }' "$CAP/roofline.csv")
		got_pts=$(grep -o '<g class="rl-kind"' "$D/dom.html" | wc -l)
		got_rows=$(sed -n '/<table id="roofline">/,/<\/table>/p' "$D/dom.html" | grep -c '<tr><td>')
		test "$got_pts" = "$rl_pts" && test "$got_rows" = "$rl_rows" &&
			grep -q '<svg id="roofline-chart"' "$D/dom.html" &&
			grep -q '<polyline class="roof"' "$D/dom.html"
		ok $? "$T: roofline chart has $rl_pts kind points ($got_pts) and roofs, table $rl_rows rows ($got_rows)"
	fi
	# report.md rendered as HTML: headings, the verdict, its op-kind table
	if [ -s "$CAP/report.md" ]; then
		grep -q '<div id="verdict">' "$D/dom.html" && grep -q '<h4>Verdict</h4>' "$D/dom.html" &&
			grep -q '<table class="md">' "$D/dom.html" && ! grep -q '<pre id="report-md"' "$D/dom.html" &&
			! grep -q '^## ' "$D/dom.html"
		ok $? "$T: report.md rendered as HTML (headings, verdict, tables), not a text box"
	fi
	# no table makes the page wider than a 1280-pixel window: a page of ours
	# frames the report and reads its scroll width
	cat >"$D/width.html" <<-EOF
	<!DOCTYPE html><html><body><iframe id="f" src="$URL" style="width:1280px;height:800px;border:0"></iframe>
	<pre id="w"></pre><script>document.getElementById('f').onload=function(){
	var d=this.contentDocument.documentElement;
	document.getElementById('w').textContent='width '+d.scrollWidth+' '+d.clientWidth;};</script></body></html>
	EOF
	render "file://$D/width.html" "$D/dom-width.html" --allow-file-access-from-files --window-size=1400,900
	local w
	w=$(grep -o 'width [0-9]* [0-9]*' "$D/dom-width.html")
	set -- $w
	test -n "$w" && test "$2" -le "$3"
	ok $? "$T: no horizontal scrolling in a 1280-pixel window (scroll width ${2:-?}, window ${3:-?})"
	# without the script the kind rows are absent: the checks above see its work
	nojs=$(grep -c '<tr class="kind"' "$D/dom-nojs.html")
	test "$nojs" = 0 && grep -q '<table id="top-ops"></table>' "$D/dom-nojs.html"
	ok $? "$T: without the page's script the op-kind rows are absent ($nojs)"
}

check_page "$CAP" capture 1

# 4. the page of a tt-metal device log (made here, on the host)
TT=${KPROF_TTMETAL_DATA:-$ROOT/../shared/data/ttmetal}/wormhole_b0_profile_log_device.csv
rm -rf "$OUT/ttmetal"
"$BUILD/kprofctl" report --from-ttmetal "$TT" -o "$OUT/ttmetal" >"$OUT/ttmetal.log" 2>&1
st=$?
sed 's/^/# /' "$OUT/ttmetal.log"
ok "$st" "kprofctl report --from-ttmetal $TT -o $OUT/ttmetal"
if [ -s "$OUT/ttmetal/report.html" ]; then
	check_page "$OUT/ttmetal" ttmetal 0
else
	ok 1 "ttmetal: report.html written"
fi
finish
