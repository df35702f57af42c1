#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl end-to-end checks. Host part (always): usage errors, host clock
# lock/reset/--forget against a fake cpufreq tree, tt-metal report; as
# root also the privilege rules (docs/security.md): KPROF_* ignored
# without --trust-env, report working as the files' owner, set-id refused.
# Device part
# (when /dev/kprof0 exists, as root, e.g. in the VM:
# `tests/vm/run --exec user/kprofctl/test_kprofctl.sh`): list/info,
# lock/reset, capture row counts and exit status, --force starting from an
# empty raw/, --op-filter, --paused + SIGUSR1, report byte-identity, EBUSY,
# command not found.
#
# Env: KPROFCTL (default: kprofctl on PATH, else $BUILD/kprofctl),
# WORKLOAD (default $BUILD/examples/sim_workload), TTMETAL_LOG,
# HOST_ONLY=1 (the host part only, as `make check-unit` runs it),
# DEVICE_ONLY=1 (the device part only, as the debug-kernel lane runs it).
# Prints "ok N - what" / "not ok N - what"; exit status 1 if any failed.

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
K=${KPROFCTL:-$(command -v kprofctl || echo "$BUILD/kprofctl")}
W=${WORKLOAD:-$BUILD/examples/sim_workload}
TT=${TTMETAL_LOG:-$root/../shared/data/ttmetal/wormhole_b0_profile_log_device.csv}
tmp=$(mktemp -d /tmp/kprofctl-test.XXXXXX)
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
		failed=1
	fi
}

status_is() {	# status_is WANT command...
	st_want=$1
	shift
	"$@" >"$tmp/out" 2>&1
	st_got=$?
	[ "$st_got" -eq "$st_want" ] ||
		{ echo "# exit $st_got, expected $st_want: $*"; sed 's/^/# /' "$tmp/out"; return 1; }
}

rows() { echo $(($(wc -l <"$1") - 1)); }

# rows whose device data exists (MARKERS > 0); paused ops keep host rows
device_rows() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "MARKERS") m = i; next }
		 m && $m > 0 { n++ } END { print n + 0 }' "$1"
}

eq() {		# eq GOT WANT
	[ "$1" -eq "$2" ] || { echo "# got $1, expected $2"; return 1; }
}

# ---- host part ----
# (a function: DEVICE_ONLY=1 skips it, as the debug-kernel lane does,
# where every kprofctl run is slow and this part touches no device)
host_part() {
check "no command is a usage error" status_is 2 "$K"
check "--version" status_is 0 "$K" --version
check "unknown command" status_is 2 "$K" frobnicate
check "info without --device" status_is 2 "$K" info
check "capture without a command or --duration" status_is 2 "$K" capture --device 0
check "capture --ring-size not a power of two" status_is 2 "$K" capture -d 0 --ring-size 100000 -- true
check "lock-clock with two targets" status_is 2 "$K" lock-clock -d 0 --max --base
check "report without input" status_is 2 "$K" report
for c in list info capture report lock-clock reset-clock; do
	check "$c --help" status_is 0 "$K" "$c" --help
done

# Host clock against a fake cpufreq tree: every file back byte for byte.
sys=$tmp/sys
cf=$sys/devices/system/cpu/cpufreq
for p in 0 4; do
	mkdir -p "$cf/policy$p"
	printf 'schedutil\n' >"$cf/policy$p/scaling_governor"
	printf '%s\n' 800000 >"$cf/policy$p/scaling_min_freq"
	printf '%s\n' 3200000 >"$cf/policy$p/scaling_max_freq"
	printf '%s\n' 400000 >"$cf/policy$p/cpuinfo_min_freq"
	printf '%s\n' 3600000 >"$cf/policy$p/cpuinfo_max_freq"
done
printf '1\n' >"$cf/boost"
cp -a "$sys" "$tmp/sys.orig"
# As root KPROF_* count only with --trust-env (this fake tree is the test's own).
KT() { "$K" --trust-env "$@"; }
export KPROF_SYSFS_ROOT=$sys KPROF_RUN_DIR=$tmp/run
check "host lock" status_is 0 KT lock-clock --host --mhz 2000
check "host lock pins min=max" grep -qx 2000000 "$cf/policy4/scaling_min_freq"
check "host lock turns boost off" grep -qx 0 "$cf/boost"
check "info --host shows the saved state" sh -c "'$K' --trust-env info --host | grep -q 'saved state: $tmp/run/host-clock.json'"
if [ "$(id -u)" = 0 ]; then
	# sudo -E must not point root at another run directory or sysfs
	check "as root, KPROF_RUN_DIR is ignored without --trust-env" \
		sh -c "'$K' info --host 2>'$tmp/env.err' | grep -q 'saved state' && ! '$K' info --host 2>/dev/null | grep -q '$tmp/run'"
	check "... and says so" grep -q 'KPROF_RUN_DIR is ignored.*--trust-env' "$tmp/env.err"
fi
check "host reset" status_is 0 KT reset-clock --host
check "host reset restores every file" diff -r "$tmp/sys.orig" "$sys"
check "host lock out of range refused" status_is 1 KT lock-clock --host --mhz 9000
check "refused lock leaves the tree" diff -r "$tmp/sys.orig" "$sys"
check "no cpufreq is reported, not fatal" status_is 0 \
	env KPROF_SYSFS_ROOT="$tmp/nosys" KPROF_RUN_DIR="$tmp/run2" "$K" --trust-env lock-clock --host
# A state that cannot be restored any more is discarded by --forget,
# which changes no clock.
check "host lock (to forget)" status_is 0 KT lock-clock --host --mhz 2000
printf '{ "version": 1' >"$tmp/run/host-clock.json"	# damaged
check "a damaged state fails reset, naming --forget" status_is 1 KT reset-clock --host
check "... the message names --forget" grep -q -- '--forget' "$tmp/out"
check "reset-clock --host --forget" status_is 0 KT reset-clock --host --forget
check "... removes the state" [ ! -e "$tmp/run/host-clock.json" ]
check "... changes no clock" grep -qx 2000000 "$cf/policy4/scaling_min_freq"
check "reset after --forget: nothing to restore" status_is 0 KT reset-clock --host
check "reset-clock --device N --forget is a usage error" status_is 2 KT reset-clock --device 0 --forget
check "... saying the device's state is the kernel's" grep -q "state is the kernel's" "$tmp/out"
check "capture --step with one device is a usage error" status_is 2 "$K" capture --device 0 --step 'x*' -- true
check "... saying --step compares several devices" grep -q -- "--step compares several devices" "$tmp/out"
check "capture --step with one GPU is a usage error" status_is 2 "$K" capture --device nvidia:0 --step 'x*' -- true
check "report --step '' is a usage error" status_is 2 "$K" report --step '' "$tmp"
# the options every device kind takes are read and checked in one place
for d in 0 nvidia:0; do
	check "capture -d $d --op-filter '' is a usage error" \
		status_is 2 "$K" capture -d "$d" --op-filter '' -- true
	check "... saying it is empty" grep -q -- "empty --op-filter" "$tmp/out"
	check "capture -d $d --trace-group 0 is a usage error" \
		status_is 2 "$K" capture -d "$d" --trace-group 0 -- true
	check "... giving the range" grep -q -- "--trace-group wants a count 1..65536" "$tmp/out"
	check "capture -d $d -o '' is a usage error" status_is 2 "$K" capture -d "$d" -o '' -- true
done
cp -a "$tmp/sys.orig/." "$sys/"
# The kernel may show other values than restored (rounded, limited): said,
# and the state is gone, so that later resets do not fail on it for ever.
check "host lock (to adjust)" status_is 0 KT lock-clock --host --mhz 2000
rm "$cf/policy4/scaling_max_freq"
ln -s /dev/null "$cf/policy4/scaling_max_freq"	# keeps nothing written
check "a restore the kernel adjusts succeeds with a warning" status_is 0 KT reset-clock --host
check "... naming what differs" grep -q 'warning: .*adjusted.*policy4 scaling_max_freq' "$tmp/out"
check "... and the next reset has nothing to restore" status_is 0 KT reset-clock --host
check "... (said so)" grep -q 'nothing to restore' "$tmp/out"
rm "$cf/policy4/scaling_max_freq"
cp -a "$tmp/sys.orig/." "$sys/"
unset KPROF_SYSFS_ROOT KPROF_RUN_DIR

if [ -f "$TT" ]; then
	check "report --from-ttmetal" status_is 0 "$K" report --from-ttmetal "$TT" -o "$tmp/tt"
	check "tt-metal ops.csv has one row per run host ID" [ "$(rows "$tmp/tt/ops.csv")" -gt 0 ]
	check "report refuses a non-empty -o" status_is 1 "$K" report --from-ttmetal "$TT" -o "$tmp/tt"
fi

# Privileges (as root, with user nobody): report needs none, and set-id or
# file capabilities are refused. $pub: a directory nobody can reach.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	pub=$(mktemp -d /tmp/kprofctl-pub.XXXXXX)
	chmod 755 "$pub"
	nuid=$(id -u nobody)
	if [ -f "$TT" ]; then
		mkdir "$pub/nb"
		cp "$TT" "$pub/nb/log.csv"
		chown -R nobody "$pub/nb"
		check "report as root on nobody's files" status_is 0 \
			"$K" report --from-ttmetal "$pub/nb/log.csv" -o "$pub/nb/out"
		check "... runs as nobody (says so)" grep -q 'running as nobody' "$tmp/out"
		check "... its outputs are nobody's" \
			[ "$(stat -c %u "$pub/nb/out/ops.csv" 2>/dev/null)" = "$nuid" ]
	fi
	# Under sudo report runs as the sudo user whoever owns the files, and
	# neither --trust-env nor another --user is accepted.
	if [ -f "$TT" ]; then
		# a copy nobody can read: the tree may sit where only root can
		# reach it (/root/kprof on a fresh machine)
		mkdir -m 1777 "$pub/open"
		cp "$TT" "$pub/open/log.csv"
		chmod 644 "$pub/open/log.csv"
		check "report under sudo (SUDO_UID=nobody)" status_is 0 env SUDO_UID="$nuid" \
			"$K" report --from-ttmetal "$pub/open/log.csv" -o "$pub/open/out"
		check "... runs as the sudo user: its outputs are nobody's" \
			[ "$(stat -c %u "$pub/open/out/ops.csv" 2>/dev/null)" = "$nuid" ]
	fi
	check "--trust-env under sudo is refused" status_is 1 env SUDO_UID="$nuid" "$K" --trust-env --version
	check "... saying why" grep -q 'trust-env is refused under sudo' "$tmp/out"
	check "capture --user root under sudo is refused" status_is 1 env SUDO_UID="$nuid" \
		"$K" capture --device 0 --user root -- true
	check "... saying why" grep -q 'under sudo the command runs as the user who ran sudo' "$tmp/out"
	# a group nobody is not in, owning nothing: set-group-ID to it gains nothing
	cp "$K" "$pub/kprofctl-sgid"
	chown 0:4000003 "$pub/kprofctl-sgid"
	chmod 2755 "$pub/kprofctl-sgid"
	check "set-group-ID kprofctl refuses to run" status_is 1 \
		su -s /bin/sh nobody -c "'$pub/kprofctl-sgid' --version"
	check "... saying why" grep -q 'set-user-ID, set-group-ID or with file capabilities' "$tmp/out"
	rm -rf "$pub"
fi
}
if [ "${DEVICE_ONLY:-0}" = 1 ]; then
	echo "# host part skipped (DEVICE_ONLY=1; make check-unit runs it)"
else
	host_part
fi

# ---- device part ----
if [ "${HOST_ONLY:-0}" = 1 ]; then
	rm -rf "$tmp"
	echo "1..$n"
	exit $failed
fi
if [ ! -c /dev/kprof0 ] || [ "$(id -u)" != 0 ] || [ ! -x "$W" ]; then
	echo "# device part skipped (needs /dev/kprof0, root and $W)"
	rm -rf "$tmp"
	echo "1..$n"
	exit $failed
fi

check "list" status_is 0 "$K" list
check "info --json" status_is 0 "$K" info -d 0 --json
check "no such device" status_is 1 "$K" info -d 63
check "no such device message" grep -q "kprofctl list shows devices" "$tmp/out"
check "lock-clock --mhz" status_is 0 "$K" lock-clock -d 0 --base
check "info shows the lock" sh -c "'$K' info -d 0 | grep -q 'clock: *locked'"

check "capture 200 ops" status_is 0 "$K" capture -d 0 -o "$tmp/c1" -- "$W" --ops 200 --quiet
check "one ops.csv row per op" eq "$(rows "$tmp/c1/ops.csv")" 200
cp "$tmp/c1/ops.csv" "$tmp/ops1.csv"
check "report DIR" status_is 0 "$K" report "$tmp/c1"
check "report DIR gives the same ops.csv" cmp -s "$tmp/ops1.csv" "$tmp/c1/ops.csv"
check "non-empty -o refused" status_is 1 "$K" capture -d 0 -o "$tmp/c1" -- true

# --force starts from an empty raw/: an older capture's host spool and
# peaks are neither merged into a --no-bpf capture nor reused.
cp -r "$tmp/c1" "$tmp/cf"
cp "$root/tests/fuzz/corpus/spool/demo_host.kspool" "$tmp/cf/raw/host.kspool"
sed 's/"device": *"[^"]*"/"device": "STALE-PEAKS"/' "$tmp/c1/raw/peaks.json" >"$tmp/cf/raw/peaks.json"
check "capture --force --no-bpf into an older capture" \
	status_is 0 "$K" capture -d 0 -o "$tmp/cf" --force --no-bpf -- "$W" --ops 5 --quiet
check "--force: the older host spool is gone" [ ! -e "$tmp/cf/raw/host.kspool" ]
check "--force: no host events of the older capture" eq "$(rows "$tmp/cf/host_events.csv")" 0
check "--force: the older peaks are not reused" sh -c "! grep -rq STALE-PEAKS '$tmp/cf'"

check "exit status is the command's" status_is 3 "$K" capture -d 0 -o "$tmp/c2" -- sh -c "'$W' --ops 5 --quiet; exit 3"
check "command not found is 127" status_is 127 "$K" capture -d 0 -o "$tmp/c3" -- /nonexistent/cmd
check "command not found keeps a report" [ -f "$tmp/c3/ops.csv" ]

# --op-filter: only matching op codes in ops.csv, all of them kept raw.
first=$(sed -n 2p "$tmp/c1/ops.csv" | cut -d, -f1)
want=$(tail -n +2 "$tmp/c1/ops.csv" | cut -d, -f1 | grep -cx "$first")
check "capture --op-filter" status_is 0 "$K" capture -d 0 -o "$tmp/f" --op-filter "$first" -- "$W" --ops 200 --quiet
check "--op-filter keeps only $first ($want rows)" eq "$(rows "$tmp/f/ops.csv")" "$want"
check "--op-filter rows all match" sh -c "! tail -n +2 '$tmp/f/ops.csv' | cut -d, -f1 | grep -vqx '$first'"
check "report --op-filter '*' brings all back" status_is 0 "$K" report "$tmp/f" -o "$tmp/f2" --op-filter '*'
check "... 200 rows" eq "$(rows "$tmp/f2/ops.csv")" 200

# --paused: the command resumes the capture itself (SIGUSR1 to its parent,
# kprofctl) between two batches, so only the second batch is recorded.
check "capture --paused + SIGUSR1" status_is 0 "$K" capture -d 0 -o "$tmp/p" --paused -- \
	sh -c "'$W' --ops 30 --quiet; kill -USR1 \$PPID; sleep 1; '$W' --ops 40 --quiet"
check "paused ops have no device data, resumed ones do" eq "$(device_rows "$tmp/p/ops.csv")" 40

# Exclusive: a second capture names the holder.
"$K" capture -d 0 -o "$tmp/b1" --duration 6 >/dev/null 2>&1 &
holder=$!
i=0
while [ $i -lt 50 ] && ! "$K" info -d 0 | grep -q 'held by pid'; do sleep 0.2; i=$((i + 1)); done
check "second capture is refused" status_is 1 "$K" capture -d 0 -o "$tmp/b2" --duration 1
check "... naming the holder" grep -q "being captured by pid $holder (kprofctl)" "$tmp/out"
kill -TERM $holder
wait $holder
check "SIGTERM on a --duration capture still writes results" [ -f "$tmp/b1/ops.csv" ]

check "reset-clock" status_is 0 "$K" reset-clock -d 0
check "info shows dvfs again" sh -c "'$K' info -d 0 | grep -q 'clock: *dvfs'"

rm -rf "$tmp"
echo "1..$n"
exit $failed
