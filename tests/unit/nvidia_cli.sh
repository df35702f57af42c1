#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl on an NVIDIA GPU, without one: the stand-in libnvidia-ml.so.1
# (tests/nvidia/nvml_standin.c) plays back what the real NVML returned on
# an H100 (tests/nvidia/data/h100.nvml) and logs the set/reset calls
# kprofctl makes. Checks list, info (text, --json, by UUID), lock-clock
# --mhz/--base/--max/--mem-mhz, reset-clock (with state, without, --force),
# NO_PERMISSION and NOT_SUPPORTED answers, the state file, and exactly
# which NVML calls each command made. Expected figures come from the
# recording itself. Any call the recording does not cover fails the test.
# Usage: nvidia_cli.sh BUILD/kprofctl BUILD/tests/nvidia/libnvidia-ml.so.1
set -u
K=$1
here=$(cd "$(dirname "$0")" && pwd)
DATA=${NVML_DATA:-$here/../nvidia/data/h100.nvml}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kprof-nvidia-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/lib" "$tmp/nolib" "$tmp/dev" "$tmp/sys"
cp "$2" "$tmp/lib/libnvidia-ml.so.1"
LOG=$tmp/calls.log
RUN=$tmp/run
# No kprof module here: an empty device directory and sysfs.
# kprofctl honours these as root only with --trust-env (docs/security.md);
# every run below passes it, so nothing here reaches /run/kprof or /sys.
export KPROF_DEV_DIR=$tmp/dev KPROF_SYSFS_ROOT=$tmp/sys KPROF_RUN_DIR=$RUN
export KPROF_NVML_STANDIN_DATA=$DATA KPROF_NVML_STANDIN_LOG=$LOG
. "$(dirname "$0")/../nvidia/tap_lib.sh"

# kp WANT args...: kprofctl with the stand-in, output in $tmp/out
kp() {
	want=$1
	shift
	LD_LIBRARY_PATH=$tmp/lib "$K" --trust-env "$@" >"$tmp/out" 2>&1
	got=$?
	[ "$got" -eq "$want" ] ||
		{ echo "# exit $got, expected $want: kprofctl $*"; sed 's/^/# /' "$tmp/out"; return 1; }
}

# kpx WANT "VAR=VAL ..." args...: kp with more environment
kpx() {
	want=$1
	vars=$2
	shift 2
	# shellcheck disable=SC2086 # vars is split on purpose
	env LD_LIBRARY_PATH="$tmp/lib" $vars "$K" --trust-env "$@" >"$tmp/out" 2>&1
	got=$?
	[ "$got" -eq "$want" ] ||
		{ echo "# exit $got, expected $want: $vars kprofctl $*"; sed 's/^/# /' "$tmp/out"; return 1; }
}

has() { grep -q -- "$1" "$tmp/out" || { echo "# output lacks: $1"; sed 's/^/# /' "$tmp/out"; return 1; }; }
lacks() { ! grep -q -- "$1" "$tmp/out" || { echo "# output has: $1"; return 1; }; }
eq() { [ "$1" = "$2" ] || { echo "# got '$1', expected '$2'"; return 1; }; }

# rec KEY: the recorded value of a successful call ("KEY = 0 VALUE")
rec() { sed -n "s/^$1 = 0 //p" "$DATA"; }

# calls: the lines logged since the last `fresh` (the stand-in keeps the
# GPU's lock state in the whole log, so it is never cut)
mark=0
calls() { tail -n +$((mark + 1)) "$LOG" 2>/dev/null; }
fresh() { mark=$(cat "$LOG" 2>/dev/null | wc -l); }

uuid=$(rec "nvmlDeviceGetUUID 0")
name=$(rec "nvmlDeviceGetName 0")
pci=$(rec "nvmlDeviceGetPciInfo_v3 0" | cut -d' ' -f1)
driver=$(rec "nvmlSystemGetDriverVersion")
sm_now=$(rec "nvmlDeviceGetClockInfo 0 SM")
mem_now=$(rec "nvmlDeviceGetClockInfo 0 MEM")
sm_max=$(rec "nvmlDeviceGetMaxClockInfo 0 SM")
sm_defapp=$(rec "nvmlDeviceGetDefaultApplicationsClock 0 SM")
sup=$(rec "nvmlDeviceGetSupportedGraphicsClocks 0 $mem_now")
sup_n=$(echo $sup | wc -w)
sup_lo=$(echo $sup | tr ' ' '\n' | sort -n | head -1)
sup_hi=$(echo $sup | tr ' ' '\n' | sort -n | tail -1)
mem_rc=$(sed -n "s/^nvmlDeviceSetMemoryLockedClocks 0 [0-9]* [0-9]* = //p" "$DATA")
F=$(sed -n "s/^nvmlDeviceSetGpuLockedClocks 0 \([0-9]*\) .*/\1/p" "$DATA")
state=$RUN/nvidia-$uuid.json
check "the recording names a GPU, its clocks and a probe lock" \
	test -n "$uuid" -a -n "$sm_now" -a -n "$sm_max" -a -n "$sup" -a -n "$F"

# ---- list and info ----
check "list: nvidia:0 with name, UUID, PCI bus id (no kprof module)" kp 0 list
check "... row" grep -q "^nvidia:0 *$name *$uuid *$pci *$sm_now *$mem_now *unknown" "$tmp/out"
check "list --json" kp 0 list --json
check "... kind nvidia, id nvidia:0, the UUID" \
	eq "$(json '[(d["kind"], d["id"], d["uuid"]) for d in j]' "$tmp/out")" "[('nvidia', 'nvidia:0', '$uuid')]"
check "info --device nvidia:0" kp 0 info --device nvidia:0
check "... header" has "^nvidia:0: $name$"
check "... uuid, PCI, driver" sh -c "grep -q 'uuid: *$uuid' '$tmp/out' && grep -q 'pci bus id: *$pci' '$tmp/out' && grep -q 'driver: *$driver' '$tmp/out'"
check "... SM clock now, max, default applications" \
	has "SM clock: *$sm_now MHz now; max $sm_max MHz, default applications $sm_defapp MHz"
check "... supported SM range" has "supported SM: *$sup_lo..$sup_hi MHz ($sup_n clocks at memory $mem_now MHz)"
check "... clock events decoded" \
	has "clock events: *gpu_idle ($(rec 'nvmlDeviceGetCurrentClocksEventReasons 0'))"
check "... lock: unknown, never guessed" has "lock: *unknown: NVML cannot read a lock set by another tool"
check "info --json" kp 0 info --device nvidia:0 --json
cp "$tmp/out" "$tmp/info.json"
check "... kind, id, uuid, pci, driver" \
	eq "$(json '(j["kind"], j["id"], j["uuid"], j["pci_bus_id"], j["driver_version"])' "$tmp/info.json")" \
	"('nvidia', 'nvidia:0', '$uuid', '$pci', '$driver')"
check "... clocks" \
	eq "$(json '[j["clock"][k] for k in ("sm_mhz", "mem_mhz", "max_sm_mhz", "default_app_sm_mhz")]' "$tmp/info.json")" \
	"[$sm_now, $mem_now, $sm_max, $sm_defapp]"
check "... supported SM" eq "$(json 'j["clock"]["supported_sm"]' "$tmp/info.json")" \
	"{'min_mhz': $sup_lo, 'max_mhz': $sup_hi, 'count': $sup_n}"
check "... event reasons" eq "$(json 'j["clock"]["event_reasons"]["reasons"]' "$tmp/info.json")" "['gpu_idle']"
check "... lock by unknown" eq "$(json 'j["clock"]["lock"]["by"]' "$tmp/info.json")" unknown
check "info --device nvidia:<uuid> is nvidia:0" kp 0 info --device "nvidia:$uuid" --json
check "... id nvidia:0" eq "$(json 'j["id"]' "$tmp/out")" nvidia:0
check "info --device nvidia:1: no such GPU" kp 1 info --device nvidia:1
check "... says how many there are" has "no nvidia:1: this machine has 1 NVIDIA GPU; kprofctl list shows them"
check "info of an unknown UUID" kp 1 info --device nvidia:GPU-12345678-1234-1234-1234-123456789abc
check "... says so" has "no NVIDIA GPU has this UUID"
check "a bad name is a usage error" kp 2 info --device nvidia:x
check "... listing the forms" has "give nvidia:N (NVML index, at most 63) or nvidia:GPU-<uuid>"

# ---- lock-clock / reset-clock ----
fresh
check "lock-clock --mhz $F" kp 0 lock-clock --device nvidia:0 --mhz "$F"
check "... one call: nvmlDeviceSetGpuLockedClocks($F, $F)" \
	eq "$(calls)" "nvmlDeviceSetGpuLockedClocks 0 $F $F = 0"
check "... says so" has "SM clock locked at $F MHz (nvmlDeviceSetGpuLockedClocks $F..$F)"
check "... and where the state is" has "state in $state; kprofctl reset-clock --device nvidia:0 releases the lock"
check "... state: sm_locked_mhz $F, no memory lock, before = the readings" \
	eq "$(json '(j["gpu"]["uuid"], j["gpu"]["sm_locked_mhz"], j["gpu"]["mem_locked_mhz"], j["gpu"]["before"]["sm_mhz"], j["gpu"]["before"]["mem_mhz"])' "$state")" \
	"('$uuid', $F, None, $sm_now, $mem_now)"
check "info shows kprof's lock" kp 0 info --device nvidia:0
check "... from the state file" has "lock: *locked by kprof at $F MHz (state file $state)"
check "list shows it" kp 0 list
check "... LOCK column" grep -q "^nvidia:0 .* kprof $F MHz$" "$tmp/out"
fresh
check "lock-clock --max over it" kp 0 lock-clock --device nvidia:0 --max
check "... at the max SM clock" eq "$(calls)" "nvmlDeviceSetGpuLockedClocks 0 $sm_max $sm_max = 0"
check "... keeps the first lock's 'before'" \
	eq "$(json '(j["gpu"]["sm_locked_mhz"], j["gpu"]["before"]["sm_mhz"])' "$state")" "($sm_max, $sm_now)"
fresh
check "reset-clock" kp 0 reset-clock --device nvidia:0
check "... one call: nvmlDeviceResetGpuLockedClocks, no memory reset" \
	eq "$(calls)" "nvmlDeviceResetGpuLockedClocks 0 = 0"
check "... state file removed" test ! -e "$state"
check "... and says so" has "removed $state"
fresh
check "reset-clock without state" kp 0 reset-clock --device nvidia:0
check "... makes no call" eq "$(calls)" ""
check "... says kprof holds none, NVML cannot tell, and how to force" \
	sh -c "grep -q 'kprof holds no clock lock on this GPU' '$tmp/out' && grep -q 'NVML cannot tell whether another tool' '$tmp/out' && grep -q 'reset-clock --device nvidia:0 --force' '$tmp/out'"
fresh
check "reset-clock --force" kp 0 reset-clock --device nvidia:0 --force
check "... resets SM and memory, and says it had no record" \
	eq "$(calls | tr '\n' '|')" "nvmlDeviceResetGpuLockedClocks 0 = 0|nvmlDeviceResetMemoryLockedClocks 0 = $(sed -n 's/^nvmlDeviceResetMemoryLockedClocks 0 = //p' "$DATA")|"
check "... says so" has "without a kprof record"

# --mhz rounding and range
fresh
check "lock-clock --mhz $((F + 3)): rounded" kp 0 lock-clock --device nvidia:0 --mhz $((F + 3))
check "... to the nearest supported clock, said" \
	has "$((F + 3)) MHz (requested) is not a supported SM clock; using $F MHz, the nearest"
check "... and locked there" eq "$(calls)" "nvmlDeviceSetGpuLockedClocks 0 $F $F = 0"
kp 0 reset-clock --device nvidia:0 >/dev/null
fresh
check "lock-clock --mhz 99999 refused" kp 1 lock-clock --device nvidia:0 --mhz 99999
check "... naming the range" has "99999 MHz (requested) is outside the supported SM clocks $sup_lo..$sup_hi MHz"
check "... no call, no state" sh -c "[ -z '$(calls)' ] && [ ! -e '$state' ]"

# --base is the default applications clock: tell it from --max with a
# recording whose default differs from the max.
defapp=$(echo $sup | tr ' ' '\n' | sort -n | sed -n 2p)
sed "s/^\(nvmlDeviceGetDefaultApplicationsClock 0 SM = 0\) .*/\1 $defapp/" "$DATA" >"$tmp/base.nvml"
fresh
check "lock-clock --base" kpx 0 "KPROF_NVML_STANDIN_DATA=$tmp/base.nvml" \
	lock-clock --device nvidia:0 --base
check "... at the default applications SM clock" eq "$(calls)" "nvmlDeviceSetGpuLockedClocks 0 $defapp $defapp = 0"
kp 0 reset-clock --device nvidia:0 >/dev/null

# Memory: refused as recorded (Not Supported on the H100), then accepted.
fresh
check "lock-clock --mem-mhz current" kp 0 lock-clock --device nvidia:0 --mhz "$F" --mem-mhz current
check "... tries the current memory clock after the SM lock" \
	eq "$(calls | tr '\n' '|')" "nvmlDeviceSetGpuLockedClocks 0 $F $F = 0|nvmlDeviceSetMemoryLockedClocks 0 $mem_now $mem_now = $mem_rc|"
if [ "$mem_rc" = 3 ]; then
	check "... Not Supported: said; the SM lock stands; exit 0" \
		has "memory clock not locked: this GPU does not support it (nvmlDeviceSetMemoryLockedClocks: Not Supported); the SM lock stands"
	check "... memory not recorded as locked" \
		eq "$(json '(j["gpu"]["sm_locked_mhz"], j["gpu"]["mem_locked_mhz"])' "$state")" "($F, None)"
fi
fresh
kp 0 reset-clock --device nvidia:0
check "... reset undoes the SM lock only" eq "$(calls)" "nvmlDeviceResetGpuLockedClocks 0 = 0"
fresh
check "lock-clock --mem-mhz current where the GPU accepts it" \
	kpx 0 "KPROF_NVML_STANDIN_RC=nvmlDeviceSetMemoryLockedClocks=0" \
	lock-clock --device nvidia:0 --mhz "$F" --mem-mhz current
check "... recorded" eq "$(json 'j["gpu"]["mem_locked_mhz"]' "$state")" "$mem_now"
fresh
check "... reset undoes both" kpx 0 "KPROF_NVML_STANDIN_RC=nvmlDeviceResetMemoryLockedClocks=0" \
	reset-clock --device nvidia:0
check "... both calls" eq "$(calls | tr '\n' '|')" \
	"nvmlDeviceResetGpuLockedClocks 0 = 0|nvmlDeviceResetMemoryLockedClocks 0 = 0|"
check "... state removed" test ! -e "$state"
fresh
check "a memory lock failing otherwise is an error" \
	kp 1 lock-clock --device nvidia:0 --mhz "$F" --mem-mhz 99999
check "... before any call (outside the supported memory clocks)" \
	sh -c "[ -z '$(calls)' ] && grep -q 'memory clock 99999 MHz is outside' '$tmp/out'"

# Not root: NVML answers NO_PERMISSION.
fresh
check "lock-clock refused by NVML (no permission)" \
	kpx 1 "KPROF_NVML_STANDIN_RC=nvmlDeviceSetGpuLockedClocks=4" lock-clock --device nvidia:0 --mhz "$F"
check "... names what is missing" \
	has "nvidia:0: nvmlDeviceSetGpuLockedClocks: Insufficient Permissions: changing GPU clocks needs root: run kprofctl as root; no clock was changed"
check "... leaves no state file" test ! -e "$state"
fresh
check "an unwritable state directory is refused" \
	kpx 1 "KPROF_RUN_DIR=/proc/kprof-none" lock-clock --device nvidia:0 --mhz "$F"
check "... before any call" eq "$(calls)" ""

# A damaged state file: lock refuses and points at --force; --force clears it.
mkdir -p "$RUN"
echo garbage >"$state"
check "lock-clock with a damaged state file refused" kp 1 lock-clock --device nvidia:0 --mhz "$F"
check "... pointing at --force" has "reset-clock --device nvidia:0 --force"
check "info says the state file is damaged, not 'no lock'" kp 1 info --device nvidia:0
check "reset-clock --force clears it" kp 0 reset-clock --device nvidia:0 --force
check "... removed" test ! -e "$state"

# Usage
check "--force is for reset-clock" kp 2 lock-clock --device nvidia:0 --force
check "--mem-mhz needs a device" kp 2 lock-clock --host --mem-mhz current
check "--mem-mhz takes MHz or 'current'" kp 2 lock-clock --device nvidia:0 --mem-mhz fast
check "lock-clock --help names the forms" kp 0 lock-clock --help
check "... nvidia:N" has "nvidia:N (NVML index) or nvidia:GPU-<uuid>"

# No NVIDIA driver: no NVIDIA devices, said only when one is asked for.
if ! LD_LIBRARY_PATH=$tmp/nolib "$K" --trust-env info --device nvidia:0 >"$tmp/out" 2>&1 &&
   grep -q "libnvidia-ml.so.1 not found" "$tmp/out"; then
	tap 0 "no library: info --device nvidia:0 says no NVIDIA driver is installed"
	LD_LIBRARY_PATH=$tmp/nolib "$K" --trust-env list >"$tmp/out" 2>&1
	check "no library: list says nothing of NVIDIA" lacks "NVIDIA\|nvidia:\|libnvidia"
	check "... only that kprof.ko is not loaded" has "load the module: insmod kprof.ko"
elif ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so.1; then
	echo "# SKIP no-library checks: this machine has an NVIDIA driver"
else
	sed 's/^/# /' "$tmp/out"
	tap 1 "no library: info --device nvidia:0 says no NVIDIA driver is installed"
fi

check "every call kprofctl made was in the recording" sh -c "! grep UNRECORDED '$LOG'"
echo "nvidia_cli: $n checks"
[ "$fail" -eq 0 ]
