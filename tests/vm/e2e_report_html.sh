#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# report.html and `kprofctl diff` on real captures (runs in the VM):
# two captures of examples/sim_workload, report.html present and
# self-contained, re-made byte for byte by `kprofctl report`, and diff of
# a capture against itself flags nothing. The first capture is copied to
# $BUILD/tests/html/capture (device_log.csv left out) for the host-side
# Chromium check (tests/html/check.sh). TAP lines plus the "# Totals:"
# line the suite runner counts. Env: HTML_OPS (default 300).
here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$KPROF_ROOT/build}
K=$(command -v kprofctl || echo "$BUILD/kprofctl")
W=$BUILD/examples/sim_workload
OPS=${HTML_OPS:-300}
OUT=$(mktemp -d /tmp/kprof-html.XXXXXX) || exit 1
pass=0 fail=0 n=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
		pass=$((pass + 1))
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
	fi
}

echo "TAP version 13"
for c in a b; do
	"$K" capture --device 0 -o "$OUT/$c" -- "$W" --ops "$OPS" --quiet \
		>"$OUT/$c.log" 2>&1
	st=$?
	sed 's/^/# /' "$OUT/$c.log"
	ok "$st" "capture $c exit status"
done
H=$OUT/a/report.html
test -s "$H"
ok $? "capture writes report.html"
# self-contained: no URL a browser would fetch (the SVG namespace is a name)
bad=$(grep -o -i -E '(src|href|url\() *=? *"?(https?:)?//[^" )]*' "$H" | head -n3)
test -z "$bad"
ok $? "report.html fetches nothing ($bad)"
rows=$(($(wc -l <"$OUT/a/ops.csv") - 1))
grep -q "<p>$rows ops in ops.csv" "$H"
ok $? "report.html counts the $rows ops of ops.csv"
"$K" report "$OUT/a" -o "$OUT/again" >"$OUT/again.log" 2>&1
ok $? "kprofctl report re-makes the outputs"
cmp "$H" "$OUT/again/report.html"
ok $? "re-made report.html is byte-identical"
# the same spool reported twice is the same capture: nothing flagged
"$K" diff "$OUT/a" "$OUT/again" --csv "$OUT/same.csv" >"$OUT/same.log" 2>&1
ok $? "kprofctl diff A A' exit status"
flagged=$(awk -F, 'NR > 1 && $NF != "" { n++ } END { print n + 0 }' "$OUT/same.csv")
test "$flagged" = 0
ok $? "diff of a capture with its re-made report flags nothing ($flagged flagged)"
# two runs of the same workload: same op kinds and counts on both sides
"$K" diff "$OUT/a" "$OUT/b" >"$OUT/ab.log" 2>&1
st=$?
sed 's/^/# /' "$OUT/ab.log"
ok "$st" "kprofctl diff A B exit status"
kinds=$(awk -F, 'NR > 1 { k[$1] = 1 } END { print length(k) }' "$OUT/a/ops.csv")
only=$(grep -c 'only in' "$OUT/ab.log")
test "$kinds" -gt 0 && test "$only" = 0
ok $? "diff A B: $kinds op kinds on both sides, none 'only in'"

rm -rf "$BUILD/tests/html/capture"
mkdir -p "$BUILD/tests/html" && cp -r "$OUT/a" "$BUILD/tests/html/capture" &&
	rm -f "$BUILD/tests/html/capture/device_log.csv"
ok $? "capture copied to $BUILD/tests/html/capture"
rm -rf "$OUT"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
test "$fail" = 0
