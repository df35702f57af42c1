#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl as root hands out no root (docs/security.md), in the VM as
# root with the users kuser (group kprof) and nobody:
# - under sudo (SUDO_UID/SUDO_GID) the workload runs as the sudo user,
#   with that user's groups, and BPF tracing still sees it; --user NAME
#   does the same without sudo;
# - the workload does not outlive kprofctl: kill -9 of kprofctl (parent
#   death signal), a second Ctrl-C on a workload that ignores SIGINT and
#   SIGTERM, SIGHUP (its whole process group), the device removed
#   mid-capture; the results are still written where kprofctl lives on;
# - report and diff as root on another user's capture run as that user;
# - BPF tracing without root is refused with a message that offers no
#   setcap; KPROF_* variables are ignored as root without --trust-env.
# TAP lines plus the "# Totals:" line the suite runner counts.
#   tests/vm/run --exec tests/vm/e2e_privileges.sh
# Env: KPROFCTL (default: kprofctl on PATH, else $BUILD/kprofctl).
here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$KPROF_ROOT/build}
K=${KPROFCTL:-$(command -v kprofctl || echo "$BUILD/kprofctl")}
W=$BUILD/examples/sim_workload
EXTRA_ID=6	# sim id of the device removed mid-capture
. "$here/tap_lib.sh"

OUT=$(mktemp -d /tmp/kprof-priv.XXXXXX) || exit 1
chmod 1777 "$OUT"	# the workload writes here as other users
kuid=$(id -u kuser)
kgid=$(id -g kuser)
nuid=$(id -u nobody)

as() {		# as USER CMD...: CMD as USER with USER's groups
	u=$1
	shift
	su -s /bin/sh "$u" -c "$*"
}

# gone PID: 0 once PID no longer exists, within 10 s (a limit, not a timing)
gone() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		[ $i -ge 100 ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 0
}

# wait_file F: until F is non-empty, at most 30 s
wait_file() {
	i=0
	while [ ! -s "$1" ]; do
		[ $i -ge 300 ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
}

echo "TAP version 13"

# ---- the workload's user ----
SUDO_UID=$kuid SUDO_GID=$kgid "$K" capture --device 0 -o "$OUT/sudo" -- \
	sh -c "id -u >$OUT/sudo.uid; id -G >$OUT/sudo.groups; '$W' --ops 20 --quiet" \
	>"$OUT/sudo.log" 2>&1
tap $? "capture under sudo (SUDO_UID=$kuid): exit status"
eq "$(cat "$OUT/sudo.uid" 2>/dev/null)" "$kuid" "under sudo the workload runs as the sudo user"
grep -qw 0 "$OUT/sudo.groups" 2>/dev/null
[ $? = 1 ] && [ -s "$OUT/sudo.groups" ]
tap $? "... without root's group ($(cat "$OUT/sudo.groups" 2>/dev/null))"
grep -qw 990 "$OUT/sudo.groups" 2>/dev/null
tap $? "... with the user's own groups (kprof)"
eq "$(($(wc -l <"$OUT/sudo/ops.csv" 2>/dev/null || echo 1) - 1))" 20 "... its 20 ops captured"
h=$(($(wc -l <"$OUT/sudo/host_events.csv" 2>/dev/null || echo 1) - 1))
[ "$h" -gt 0 ]
tap $? "... and its ioctls traced by BPF ($h host events)"
# the outputs are the user's too: the directory, raw/, a spool, an output
own=$(stat -c %u:%g "$OUT/sudo" "$OUT/sudo/raw" "$OUT/sudo/raw/device.kspool" \
	"$OUT/sudo/ops.csv" 2>/dev/null | sort -u)
eq "$own" "$kuid:$kgid" "... and its output directory and files belong to the sudo user"
# what it reads for the user it reads as the user: a peaks file only root
# may read is refused (its numbers would reach params.json)
cp "$KPROF_ROOT/data/peaks/kprof_sim.json" "$OUT/private-peaks.json"
chmod 600 "$OUT/private-peaks.json"
SUDO_UID=$kuid SUDO_GID=$kgid "$K" capture --device 0 --peaks "$OUT/private-peaks.json" \
	-o "$OUT/sudo-peaks" -- true >"$OUT/sudo-peaks.log" 2>&1
st=$?
[ "$st" != 0 ] && grep -q -- '--peaks' "$OUT/sudo-peaks.log" && [ ! -e "$OUT/sudo-peaks/params.json" ]
tap $? "under sudo a --peaks file only root can read is refused (status $st)"

"$K" capture --device 0 --no-bpf --events none --user nobody -o "$OUT/user" -- \
	sh -c "id -u >$OUT/user.uid" >"$OUT/user.log" 2>&1
tap $? "capture --user nobody: exit status"
eq "$(cat "$OUT/user.uid" 2>/dev/null)" "$nuid" "--user nobody: the workload runs as nobody"

# ---- the workload does not outlive kprofctl ----
# kill -9: nothing of kprofctl runs any more; the parent-death signal acts.
"$K" capture --device 0 --no-bpf --events none -o "$OUT/k9" -- \
	sh -c "echo \$\$ >$OUT/k9.pid; exec sleep 600" >"$OUT/k9.log" 2>&1 &
kp=$!
wait_file "$OUT/k9.pid"
wp=$(cat "$OUT/k9.pid" 2>/dev/null)
kill -9 "$kp"
wait "$kp" 2>/dev/null
[ -n "$wp" ] && gone "$wp"
tap $? "kill -9 kprofctl: the workload (pid $wp) is gone"
[ -n "$wp" ] && kill -9 "$wp" 2>/dev/null

# A second Ctrl-C on a workload that ignores SIGINT and SIGTERM: its whole
# group is killed (SIGKILL after the grace period), the results written.
"$K" capture --device 0 --no-bpf --events none -o "$OUT/int2" -- \
	sh -c "trap '' INT TERM; echo \$\$ >$OUT/int2.pid; while :; do sleep 1; done" \
	>"$OUT/int2.log" 2>&1 &
kp=$!
wait_file "$OUT/int2.pid"
wp=$(cat "$OUT/int2.pid" 2>/dev/null)
kill -INT "$kp"
sleep 0.5
kill -INT "$kp"
wait "$kp"
st=$?
sed 's/^/# /' "$OUT/int2.log"
[ -n "$wp" ] && gone "$wp"
tap $? "second SIGINT: the workload (pid $wp) is gone (kprofctl exit $st)"
grep -q "stopping the workload (pid $wp): second SIGINT" "$OUT/int2.log"
tap $? "... kprofctl says so"
[ -f "$OUT/int2/ops.csv" ]
tap $? "... and still writes the results"
[ -n "$wp" ] && kill -9 "$wp" 2>/dev/null

# SIGHUP reaches the workload's whole process group, not just its leader.
"$K" capture --device 0 --no-bpf --events none -o "$OUT/hup" -- \
	sh -c "sleep 600 & echo \$! >$OUT/hup.pid; wait" >"$OUT/hup.log" 2>&1 &
kp=$!
wait_file "$OUT/hup.pid"
wp=$(cat "$OUT/hup.pid" 2>/dev/null)
kill -HUP "$kp"
wait "$kp"
st=$?
[ -n "$wp" ] && gone "$wp"
tap $? "SIGHUP to kprofctl: the workload's child (pid $wp) is gone too (exit $st)"
[ -f "$OUT/hup/ops.csv" ]
tap $? "... results written"
[ -n "$wp" ] && kill -9 "$wp" 2>/dev/null

# The device goes away mid-capture: the workload is stopped, data kept.
echo "$EXTRA_ID 2" >/sys/bus/kprof_sim/new_device
sleep 1		# mdev -d makes the node asynchronously
kn=
for d in /sys/class/kprof/kprof*; do
	[ "$(basename "$(readlink -f "$d/device")")" = "sim$EXTRA_ID" ] &&
		kn=$(basename "$d" | tr -dc 0-9)
done
if [ -n "$kn" ]; then
	"$K" capture --device "$kn" --no-bpf --events none -o "$OUT/gone" -- \
		sh -c "echo \$\$ >$OUT/gone.pid; exec sleep 600" >"$OUT/gone.log" 2>&1 &
	kp=$!
	wait_file "$OUT/gone.pid"
	wp=$(cat "$OUT/gone.pid" 2>/dev/null)
	echo $EXTRA_ID >/sys/bus/kprof_sim/del_device
	wait "$kp"
	st=$?
	sed 's/^/# /' "$OUT/gone.log"
	[ -n "$wp" ] && gone "$wp"
	tap $? "device removed: the workload (pid $wp) is gone (kprofctl exit $st)"
	grep -q "stopping the workload (pid $wp): device $kn was removed" "$OUT/gone.log"
	tap $? "... kprofctl says why"
	[ "$st" != 0 ] && [ -f "$OUT/gone/ops.csv" ]
	tap $? "... exit status non-zero, results written"
	[ -n "$wp" ] && kill -9 "$wp" 2>/dev/null
else
	tap fail "cannot find the kprof node of sim$EXTRA_ID"
	echo $EXTRA_ID >/sys/bus/kprof_sim/del_device
fi

# ---- report and diff as root on kuser's captures run as kuser ----
"$K" capture --device 0 --no-bpf -o "$OUT/rep" -- "$W" --ops 20 --quiet >/dev/null 2>&1
cp -r "$OUT/rep" "$OUT/rep2"
chown -R kuser:kuser "$OUT/rep" "$OUT/rep2"
rm -f "$OUT/rep/ops.csv"
"$K" report "$OUT/rep" >"$OUT/rep.log" 2>&1
tap $? "report as root on kuser's capture: exit status"
eq "$(stat -c %u "$OUT/rep/ops.csv" 2>/dev/null)" "$kuid" "... the ops.csv it writes is kuser's"
"$K" diff "$OUT/rep" "$OUT/rep2" --csv "$OUT/rep2/diff.csv" >"$OUT/diff.log" 2>&1
tap $? "diff as root on kuser's captures: exit status"
eq "$(stat -c %u "$OUT/rep2/diff.csv" 2>/dev/null)" "$kuid" "... the CSV it writes is kuser's"

# ---- BPF without root; KPROF_* as root ----
# kprof.paranoid=0 lets kuser past the device's own check (a capture needs
# CAP_PERFMON by default), so that what is refused is the BPF tracing.
echo 0 >/sys/module/kprof/parameters/paranoid
as kuser "$K capture --device 0 --events none -o $OUT/kb -- true" >"$OUT/kb.log" 2>&1
st=$?
echo 1 >/sys/module/kprof/parameters/paranoid
sed 's/^/# /' "$OUT/kb.log"
[ $st != 0 ] && grep -q 'host ioctl tracing needs root' "$OUT/kb.log" &&
	! grep -q setcap "$OUT/kb.log"
tap $? "kuser: BPF tracing refused, saying root is needed, no setcap hint"

KPROF_DEV_DIR=/nonexistent "$K" info --device 0 >"$OUT/env.log" 2>&1
tap $? "as root KPROF_DEV_DIR is ignored (info still finds /dev/kprof0)"
grep -q 'KPROF_DEV_DIR is ignored' "$OUT/env.log"
tap $? "... with a warning naming --trust-env"
KPROF_DEV_DIR=/nonexistent "$K" --trust-env info --device 0 >"$OUT/env2.log" 2>&1
[ $? != 0 ] && grep -q /nonexistent/kprof0 "$OUT/env2.log"
tap $? "... and honoured with --trust-env"

e2e_finish privileges
