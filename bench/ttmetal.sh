#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tt-metal import throughput: `kprofctl report --from-ttmetal` on the real
# Wormhole device log (../shared/data/ttmetal) made 1, 20 and 100 times
# larger (data rows repeated, each copy's run host IDs moved past the
# last one's, so every copy adds its own ops), 3 rounds alternated (take
# medians). With BASE=path/to/another/kprofctl the two builds alternate
# on the same files. Prints CPU seconds, markers/s and the ratio to the
# reference figure of tt-metal's process_device_log.py (147 s for 2.7M
# markers, recorded on the development machine).
# Usage: bench/ttmetal.sh [FACTOR...]   Results: docs/performance.md.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
kprofctl=${KPROFCTL:-$root/build/kprofctl}
data=${KPROF_TTMETAL_DATA:-$root/../shared/data/ttmetal}/wormhole_b0_profile_log_device.csv
dir=${KPROF_BENCH_DIR:-/tmp/kprof-ttmetal-bench.$$}
cpu=${KPROF_BENCH_CPU:-0}
factors=${*:-1 20 100}

rm -rf "$dir"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT INT TERM
for n in $factors; do
	# column 8 is "run host ID" in this log's 15-column layout
	awk -F, -v OFS=, -v n="$n" '
		NR <= 2 { print; next }
		{ row[NR] = $0; if ($8 + 0 > max) max = $8 + 0 }
		END {
			for (c = 0; c < n; c++)
				for (i = 3; i <= NR; i++) {
					$0 = row[i]
					$8 = $8 + c * (max + 1)
					print
				}
		}' "$data" >"$dir/x$n.csv"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
one() {	# BUILD FILE
	rows=$(($(wc -l <"$2") - 2))
	/usr/bin/time -f "%U %S %M" -o "$dir/time" taskset -c "$cpu" \
		"$1" report --from-ttmetal "$2" -o "$dir/out" --force >/dev/null
	read -r u s rss <"$dir/time"
	echo "$u $s $rss $rows" | awk -v b="$1" -v f="$(basename "$2")" '{
		cpu = $1 + $2; rate = cpu > 0 ? $4 / cpu : 0
		printf "%s %s: rows %d cpu %.2f s, %.2fM markers/s, %.0fx the reference, peak RSS %d KiB\n",
		       b, f, $4, cpu, rate / 1e6, rate / (2.7e6 / 147), $3 }'
}
for run in 1 2 3; do
	for n in $factors; do
		[ -n "${BASE:-}" ] && one "$BASE" "$dir/x$n.csv"
		one "$kprofctl" "$dir/x$n.csv"
	done
done
