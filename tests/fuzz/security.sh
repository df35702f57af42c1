#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Security checks, in the VM:
#   tests/vm/run --exec tests/fuzz/security.sh
# 1. device nodes come out root:kprof 0660 (mdev here, mirroring
#    udev/99-kprof.rules), also for a device added later;
# 2. a user outside the kprof group (nobody) is refused by kprofctl info and
#    capture with a message naming the group, exit status non-zero;
# 3. a member of the group (kuser) can capture, cannot change the device
#    clock (kprofctl lock-clock says why; the clock is unchanged);
# 4. the ring and counters mappings stay read-only: kprof_security_test
#    (kselftest) maps them as a group member, tries mprotect and
#    /proc/self/mem writes;
# 5. no kernel addresses reach user space: every readable file of the kprof
#    class, the kprof_sim bus and the sim's debugfs, and every dmesg line
#    mentioning kprof, is searched for 0xffff... values, hashed %p
#    pointers (00000000 + 8 hex digits) and "ptrval".
# Output: TAP lines and "N passed, N failed"; exit 1 on any failure.

KPROF_ROOT=${KPROF_ROOT:-/kprof}
BUILD=${BUILD:-$KPROF_ROOT/build}
K=$(command -v kprofctl || echo "$BUILD/kprofctl")
W=$BUILD/examples/sim_workload
T=$BUILD/tests/kselftest/kprof_security_test
OUT=/tmp/kprof-sec
EXTRA_ID=5	# sim id of a device added during the test

n=0 npass=0 nfail=0
ok() { n=$((n + 1)); npass=$((npass + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n - $*"; }
check() {	# check COND-STATUS "what" [detail]
	if [ "$1" = 0 ]; then ok "$2"; else bad "$2${3:+: $3}"; fi
}
as() {		# as USER CMD...: run CMD as USER with USER's groups
	u=$1
	shift
	su -s /bin/sh "$u" -c "$*"
}

rm -rf "$OUT"
mkdir -p "$OUT"
chmod 1777 "$OUT"

# ---- 1. node owner and mode ----
mode_of() { stat -c '%U:%G %a' "$1" 2>/dev/null || echo "missing"; }
for node in /dev/kprof0 /dev/kprof_sim0; do
	m=$(mode_of $node)
	[ "$m" = "root:kprof 660" ]
	check $? "$node is root:kprof 0660" "got '$m'"
done
echo "$EXTRA_ID 2" >/sys/bus/kprof_sim/new_device
sleep 1		# mdev -d handles the uevent asynchronously
extra=
for d in /sys/class/kprof/kprof*; do	# the class device's parent is simN
	[ "$(basename "$(readlink -f "$d/device")")" = "sim$EXTRA_ID" ] &&
		extra=$(basename "$d" | tr -dc 0-9)
done
m=$(mode_of /dev/kprof_sim$EXTRA_ID)
[ "$m" = "root:kprof 660" ]
check $? "hotplugged /dev/kprof_sim$EXTRA_ID is root:kprof 0660" "got '$m'"
if [ -n "$extra" ]; then
	m=$(mode_of /dev/kprof$extra)
	[ "$m" = "root:kprof 660" ]
	check $? "hotplugged /dev/kprof$extra is root:kprof 0660" "got '$m'"
else
	bad "cannot find the kprof node of sim$EXTRA_ID"
fi
echo $EXTRA_ID >/sys/bus/kprof_sim/del_device

# ---- 2. outside the group ----
id nobody
as nobody "$K info --device 0" >$OUT/nobody_info.txt 2>&1
st=$?
cat $OUT/nobody_info.txt
[ $st -ne 0 ] && grep -q 'permission denied.*group kprof' $OUT/nobody_info.txt
check $? "nobody: kprofctl info refused with a message naming group kprof" "exit $st"
as nobody "$K capture --device 0 --no-bpf --events none -o $OUT/nobody -- $W --ops 10" \
	>$OUT/nobody_capture.txt 2>&1
st=$?
cat $OUT/nobody_capture.txt
[ $st -ne 0 ] && grep -q 'permission denied.*group kprof' $OUT/nobody_capture.txt
check $? "nobody: kprofctl capture refused with a message naming group kprof" "exit $st"
[ ! -e $OUT/nobody/ops.csv ]
check $? "nobody: no outputs written"

# ---- 3. a member of the group ----
id kuser
as kuser "$K capture --device 0 --no-bpf --events none -o $OUT/kuser -- $W --ops 50 --quiet" \
	>$OUT/kuser_capture.txt 2>&1
st=$?
tail -n 5 $OUT/kuser_capture.txt
rows=$(($(wc -l <$OUT/kuser/ops.csv 2>/dev/null || echo 1) - 1))
[ $st -eq 0 ] && [ "$rows" -eq 50 ]
check $? "kuser: capture works (50 ops in ops.csv)" "exit $st, $rows rows"

# The sim's clock moves by itself (DVFS) until locked: compare the mode
# ("dvfs" or "locked ...") and the saved state, not the frequency.
clock_mode() { $K info --device 0 2>&1 | sed -n 's/^ *\(clock\|saved[^:]*\): *\([a-z]*\).*/\1 \2/p'; }
before=$(clock_mode)
as kuser "$K lock-clock --device 0 --max" >$OUT/kuser_lock.txt 2>&1
st=$?
cat $OUT/kuser_lock.txt
[ $st -ne 0 ] && grep -q 'CAP_SYS_ADMIN' $OUT/kuser_lock.txt
check $? "kuser: lock-clock refused, saying CAP_SYS_ADMIN is needed" "exit $st"
as kuser "$K reset-clock --device 0" >$OUT/kuser_reset.txt 2>&1
st=$?
[ $st -ne 0 ] && grep -q 'CAP_SYS_ADMIN' $OUT/kuser_reset.txt
check $? "kuser: reset-clock refused" "exit $st: $(cat $OUT/kuser_reset.txt)"
after=$(clock_mode)
[ -n "$before" ] && [ "$before" = "$after" ]
check $? "kuser: device clock mode unchanged" "before '$before' after '$after'"

# ---- 4. read-only mappings (kselftest, run as root; it drops privileges) ----
if [ -x "$T" ]; then
	"$T" >$OUT/kselftest.txt 2>&1
	st=$?
	cat $OUT/kselftest.txt
	check $st "kprof_security_test"
else
	bad "$T missing: make kselftest"
fi

# ---- 5. kernel addresses ----
# Busy the device first so every counter and state file has content.
$W --ops 20 --quiet >/dev/null 2>&1
# raw kernel pointers; %p hashes (64-bit: 8 zero digits + a 32-bit hash)
LEAK='(0x)?ffff[0-9a-f]{12}|\b00000000[0-9a-f]{8}\b|ptrval'
files=$(find /sys/class/kprof/ /sys/bus/kprof_sim/ /sys/kernel/debug/kprof_sim/ \
	-follow -maxdepth 4 -type f 2>/dev/null | grep -v '/power/\|/uevent$' | sort -u)
nf=0
: >$OUT/leaks.txt
for f in $files; do
	[ -r "$f" ] || continue
	nf=$((nf + 1))
	timeout 5 cat "$f" 2>/dev/null | grep -Ei "$LEAK" | sed "s|^|$f: |" >>$OUT/leaks.txt
done
dmesg | grep -i kprof | grep -Ei "$LEAK" | sed 's|^|dmesg: |' >>$OUT/leaks.txt
cat $OUT/leaks.txt
[ "$nf" -gt 10 ] && [ ! -s $OUT/leaks.txt ]
check $? "no kernel addresses in $nf sysfs/debugfs files or kprof dmesg lines" \
	"$(wc -l <$OUT/leaks.txt) suspicious lines"

echo "$npass passed, $nfail failed"
[ $nfail -eq 0 ]
