#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-nvidia: kprof on a host with an NVIDIA GPU, as root.
#  1. nvml_decl_check.c against the real nvml.h: kprof's NVML declarations
#     (user/lib/kprof_nvml_api.h) equal NVIDIA's;
#  2. nvml_record: records what NVML returns for kprof's calls into the
#     playback file of the GPU-less tests ($RECORD; the one in the tree is
#     tests/nvidia/data/h100.nvml);
#  3. kprofctl end to end on GPU 0: list, info (text, --json, by UUID)
#     checked against nvidia-smi; lock-clock --mhz F, then nvidia-smi's SM
#     clock under a small PyTorch load must be F (and was not F unlocked);
#     --mem-mhz current, --base, --max; reset-clock and its state file;
#     reset without state, --force; a non-root lock (NVML: no permission);
#  4. capture: cupti_decl_check.c against the real cupti.h; the CUPTI agent
#     built here (make -C user agent); with the SM clock locked at F,
#     kprofctl capture --device nvidia:0 of spin.cu (nvcc): each spin
#     kernel's duration within 0.5 % of what the GPU's own timer
#     (%globaltimer, read in the kernel) says (cycles / F is printed too:
#     a lock is not always the clock the SMs run at), no kernel starts
#     before its launch
#     call entered, no covering sync returns before its kernel ended,
#     nothing dropped; the same through CUPTI's own clock and the fit;
#     causality.py over 200k tiny kernels with a sync every 100 (default
#     host times, api), over 200k with --host-times callback, with
#     uprobes and with --host-times queued; --counters: each spin kernel's
#     sm__cycles_elapsed.max within 0.5 % above the cycles it spun, every
#     kernel's metrics joined, a refused metric named.
#  5. multi_check.sh: captures of several GPUs (two processes on GPU 0;
#     with two GPUs or more, a DDP loop with NCCL all-reduce on two).
# Needs no libbpf, json-c or libpfm there: KPROFCTL names a `make static`
# kprofctl built elsewhere. The clock is reset when the script ends,
# however it ends (trap). Prints TAP lines and "N passed, N failed".
#
# Env: KPROFCTL (default build/static/kprofctl), RECORD (playback file to
# write; default build/tests/nvidia/record.nvml), LOCK_MHZ (1200),
# CUDA_INC (directory of nvml.h; default: found under /usr/local/cuda*).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
K=${KPROFCTL:-$root/build/static/kprofctl}
RECORD=${RECORD:-$root/build/tests/nvidia/record.nvml}
F=${LOCK_MHZ:-1200}
CC=${CC:-gcc}
tmp=$(mktemp -d /tmp/kprof-nvidia.XXXXXX)
chmod 755 "$tmp"
export KPROF_RUN_DIR=$tmp/run
. "$here/tap_lib.sh"

cleanup() {
	# kprof's own reset first; nvidia-smi's in case kprof could not
	"$K" reset-clock --device nvidia:0 --force >/dev/null 2>&1
	nvidia-smi -rgc >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM


has() { grep -q -- "$1" "$tmp/out" || { echo "# output lacks: $1"; return 1; }; }

smi() { nvidia-smi -i 0 --query-gpu="$1" --format=csv,noheader,nounits | sed 's/ *$//'; }


eq() { [ "$1" = "$2" ] || { echo "# got '$1', expected '$2'"; return 1; }; }

# SM clock samples (nvidia-smi) while a matmul loop runs on GPU 0: taken
# once the loop is on the GPU (the Python side says so with a file).
load_samples() {
	rm -f "$tmp/busy"
	python3 - "$tmp/busy" <<'EOF' &
import sys, time, torch
a = torch.randn(4096, 4096, device="cuda")
b = a @ a
torch.cuda.synchronize()
open(sys.argv[1], "w").close()
t = time.time()
while time.time() - t < 6:
    b = a @ a
    torch.cuda.synchronize()
EOF
	lp=$!
	i=0
	while [ ! -e "$tmp/busy" ] && kill -0 $lp 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
	s=
	for _ in 1 2 3 4 5; do
		s="$s $(smi clocks.sm)"
		sleep 0.4
	done
	wait $lp && [ -e "$tmp/busy" ] || s="load-failed"
	echo $s
}

if [ -z "${CUDA_INC:-}" ]; then
	for d in /usr/local/cuda/include /usr/local/cuda*/targets/x86_64-linux/include /usr/include; do
		[ -f "$d/nvml.h" ] && { CUDA_INC=$d; break; }
	done
fi
echo "# kprofctl: $K; nvml.h: ${CUDA_INC:-none}; lock at $F MHz"
nvidia-smi -L | sed 's/^/# /'

# ---- declarations and the playback record ----
check "nvml.h found" test -f "${CUDA_INC:-/nonexistent}/nvml.h"
check "kprof's NVML declarations match nvml.h (nvml_decl_check.c)" \
	$CC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Werror=incompatible-pointer-types \
	-Wno-error=deprecated-declarations \
	-isystem "${CUDA_INC:-/nonexistent}" -I"$root/user/lib" -c -o "$tmp/decl.o" \
	"$here/nvml_decl_check.c"
check "nvml_record builds" $CC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-Wno-error=deprecated-declarations \
	-isystem "${CUDA_INC:-/nonexistent}" -o "$tmp/nvml_record" "$here/nvml_record.c" -ldl
mkdir -p "$(dirname "$RECORD")"
check "nvml_record --lock-mhz $F writes $RECORD" sh -c "'$tmp/nvml_record' --lock-mhz $F >'$RECORD'"
check "the record has the probe lock" grep -q "^nvmlDeviceSetGpuLockedClocks 0 $F $F = 0" "$RECORD"

# ---- kprofctl ----
check "kprofctl needs only glibc" "$here/static-check.sh" "$K"
# As root kprofctl honours KPROF_RUN_DIR only with --trust-env
# (docs/security.md); the state checks below read $tmp/run.
K_BIN=$K
K=$tmp/kprofctl-trusted
printf '#!/bin/sh\nexec "%s" --trust-env "$@"\n' "$K_BIN" >"$K"
chmod 755 "$K"
uuid=$(smi uuid)
check "list shows nvidia:0 with its UUID" sh -c "'$K' list >'$tmp/out' 2>&1 && grep -q '^nvidia:0 .*$uuid' '$tmp/out'"
sed 's/^/# /' "$tmp/out"
"$K" list --json >"$tmp/list.json"
check "list --json: kind nvidia, id nvidia:0" \
	eq "$(json '[(d["kind"], d["id"]) for d in j if d["kind"] == "nvidia"][0]' "$tmp/list.json")" \
	"('nvidia', 'nvidia:0')"
check "info --device nvidia:0" run 0 "$K" info --device nvidia:0
check "... name, UUID and PCI bus id as nvidia-smi says" \
	sh -c "grep -qF '$(smi name)' '$tmp/out' && grep -qF '$uuid' '$tmp/out' && grep -qiF '$(smi pci.bus_id)' '$tmp/out'"
check "... lock unknown (nothing locked by kprof)" has "unknown: NVML cannot read a lock set by another tool"
"$K" info --device nvidia:0 --json >"$tmp/info.json"
check "info --json: max SM clock = nvidia-smi clocks.max.sm" \
	eq "$(json 'j["clock"]["max_sm_mhz"]' "$tmp/info.json")" "$(smi clocks.max.sm)"
check "info --json: default applications clock = nvidia-smi's" \
	eq "$(json 'j["clock"]["default_app_sm_mhz"]' "$tmp/info.json")" \
	"$(smi clocks.default_applications.graphics)"
check "info --json: driver version = nvidia-smi's" \
	eq "$(json 'j["driver_version"]' "$tmp/info.json")" "$(smi driver_version)"
check "info --json: $F MHz within the supported SM range" \
	eq "$(json "j['clock']['supported_sm']['min_mhz'] <= $F <= j['clock']['supported_sm']['max_mhz']" "$tmp/info.json")" True
check "info --device nvidia:$uuid names nvidia:0" \
	sh -c "'$K' info --device 'nvidia:$uuid' --json | grep -q '\"id\":\"nvidia:0\"'"

unlocked=$(load_samples)
echo "# SM clock under load, unlocked: $unlocked"
check "lock-clock --device nvidia:0 --mhz $F" run 0 "$K" lock-clock --device nvidia:0 --mhz "$F"
state=$KPROF_RUN_DIR/nvidia-$uuid.json
check "... state file records sm_locked_mhz $F" eq "$(json 'j["gpu"]["sm_locked_mhz"]' "$state")" "$F"
check "... NVML reads $F MHz back (info --json)" \
	eq "$("$K" info --device nvidia:0 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["clock"]["sm_mhz"])')" "$F"
check "... info: locked by kprof at $F MHz" \
	sh -c "'$K' info --device nvidia:0 | grep -q 'locked by kprof at $F MHz (state file'"
locked=$(load_samples)
echo "# SM clock under load, locked at $F: $locked"
check "nvidia-smi clocks.sm under load is $F MHz in every sample" \
	sh -c "for s in $locked; do [ \"\$s\" = $F ] || exit 1; done"
check "... and was not $F MHz unlocked (the lock did it)" \
	sh -c "for s in $unlocked; do [ \"\$s\" = $F ] && exit 1; done; [ -n '$unlocked' ]"

check "lock-clock --mem-mhz current: SM lock stands either way" \
	run 0 "$K" lock-clock --device nvidia:0 --mhz "$F" --mem-mhz current
memlocked=$(json 'j["gpu"]["mem_locked_mhz"]' "$state")
if [ "$memlocked" = None ]; then
	check "... memory refused: said, not recorded" has "memory clock not locked: this GPU does not support it"
else
	check "... memory locked: recorded at nvidia-smi clocks.mem" eq "$memlocked" "$(smi clocks.mem)"
fi
check "... the first lock's 'before' is kept" \
	eq "$(json 'j["gpu"]["before"]["sm_mhz"] is not None' "$state")" True

check "lock-clock --base" run 0 "$K" lock-clock --device nvidia:0 --base
check "... at the default applications clock" \
	eq "$(json 'j["gpu"]["sm_locked_mhz"]' "$state")" "$(smi clocks.default_applications.graphics)"
check "lock-clock --max" run 0 "$K" lock-clock --device nvidia:0 --max
check "... at the max SM clock" eq "$(json 'j["gpu"]["sm_locked_mhz"]' "$state")" "$(smi clocks.max.sm)"
check "lock-clock --mhz 99999 refused" run 1 "$K" lock-clock --device nvidia:0 --mhz 99999
check "... naming the supported range" has "outside the supported SM clocks"

check "reset-clock --device nvidia:0" run 0 "$K" reset-clock --device nvidia:0
check "... says it released the lock" has "SM clock lock released (nvmlDeviceResetGpuLockedClocks)"
check "... state file removed" test ! -e "$state"
check "... info: lock unknown again" \
	sh -c "'$K' info --device nvidia:0 | grep -q 'unknown: NVML cannot read'"
check "reset-clock without state changes nothing" run 0 "$K" reset-clock --device nvidia:0
check "... and says how to release another tool's lock" has "reset-clock --device nvidia:0 --force"
check "reset-clock --force" run 0 "$K" reset-clock --device nvidia:0 --force
check "... says so" has "without a kprof record"

# Not root: NVML refuses; the message names what is missing.
if command -v setpriv >/dev/null; then
	# a state directory nobody may write: NVML itself must refuse
	cp "$K_BIN" "$tmp/kprofctl"
	chmod 755 "$tmp/kprofctl"
	# nobody's own (a run directory others may write is refused first)
	mkdir -m 755 "$tmp/run-nobody"
	chown 65534:65534 "$tmp/run-nobody"
	check "lock-clock as nobody fails" run 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		env KPROF_RUN_DIR="$tmp/run-nobody" "$tmp/kprofctl" lock-clock --device nvidia:0 --mhz "$F"
	check "... NVML's no permission, saying root is needed" \
		has "nvmlDeviceSetGpuLockedClocks: .*changing GPU clocks needs root"
	check "... leaving no state file" test ! -e "$tmp/run-nobody/nvidia-$uuid.json"
fi

# ---- capture: the CUPTI agent ----
check "kprof's CUPTI declarations match cupti.h (cupti_decl_check.c)" \
	$CC -std=gnu11 -fsyntax-only -isystem "${CUDA_INC:-/nonexistent}" -I"$root/user/lib" \
	-I"$root/include" -I"$root/include/uapi" "$here/cupti_decl_check.c"
# C++: cupti_profiler_host.h includes <string>
check "kprof's range profiler declarations match CUPTI's (cupti_prof_decl_check.c)" \
	${CXX:-g++} -x c++ -std=c++17 -fsyntax-only -isystem "${CUDA_INC:-/nonexistent}" \
	-I"$root/user/lib" "$here/cupti_prof_decl_check.c"
check "the agent builds (make -C user agent)" \
	sh -c "make -s -C '$root/user' agent BUILD='$tmp/build' >'$tmp/out' 2>&1"
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
check "spin.cu builds (nvcc)" "${NVCC:-nvcc}" -O2 -o "$tmp/spin" "$here/spin.cu"
check "lock-clock --mhz $F for the captures" run 0 "$K" lock-clock --device nvidia:0 --mhz "$F"
cycles=$((F * 10000))	# 10 ms
for mode in monotonic cupti; do
	env=
	[ $mode = cupti ] && env="KPROF_AGENT_CUPTI_CLOCK=1"
	check "capture --device nvidia:0 -- spin ($mode clock)" \
		run 0 env $env "$K" capture --device nvidia:0 --agent "$tmp/build/libkprof_cupti.so" \
		-o "$tmp/cap-$mode" -- "$tmp/spin" "$cycles" 10 2000 67108864
	cp "$tmp/out" "$tmp/spin-$mode.out"
	check "... 10 spin kernels within 0.5 % of the GPU's own timer, causal, nothing dropped" \
		python3 "$here/spin_check.py" "$tmp/cap-$mode" "$cycles" "$F" "$tmp/spin-$mode.out"
done
# causality over 200k kernels, syncs interleaved (the default host times:
# the launch calls' activity records), the same with the launch calls'
# callbacks, with BPF uprobes on libcuda, and with CUPTI's latency
# timestamps (queued; no memcpy/memset records there: docs/performance.md)
for c in api:200000 callback:200000 uprobe:200000 queued:200000; do
	ht=${c%%:*}
	nk=${c#*:}
	check "capture --host-times $ht -- spin: $nk tiny kernels, a sync every 100" \
		run 0 timeout 300 "$K" capture --device nvidia:0 --agent "$tmp/build/libkprof_cupti.so" \
		--host-times $ht --no-device-log -o "$tmp/cap-c-$ht" -- "$tmp/spin" 0 0 $nk 4096 100
	check "... params.json says host_times $ht" \
		eq "$(json 'j["gpu"]["host_times"]' "$tmp/cap-c-$ht/params.json")" "$ht"
	check "... no kernel before its launch, no sync before its kernels (causality.py)" \
		python3 "$here/causality.py" "$tmp/cap-c-$ht" $nk
done
# counters (--counters): CUPTI's range profiler, a range per kernel,
# kernel replay; sm__cycles_elapsed.max of each spin kernel against the
# cycles it spun (counters_check.py); a metric CUPTI refuses is named
M=sm__cycles_elapsed.max,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum
check "capture --counters $M -- spin" \
	run 0 "$K" capture --device nvidia:0 --agent "$tmp/build/libkprof_cupti.so" \
	--counters "$M" -o "$tmp/cap-cnt" -- "$tmp/spin" "$cycles" 4 20 4096
check "... every kernel's metrics joined to its op; spin sm__cycles_elapsed.max within 0.5 % above the cycles spun" \
	python3 "$here/counters_check.py" "$tmp/cap-cnt" "$cycles" 4 20 "$M"
check "... summary.txt says the replay mode and its cost" \
	grep -q "replay: kernel: CUPTI runs each kernel" "$tmp/cap-cnt/summary.txt"
check "capture --counters with a metric CUPTI does not know" \
	run 0 "$K" capture --device nvidia:0 --agent "$tmp/build/libkprof_cupti.so" \
	--counters sm__cycles_elapsed.max,kprof__no_such_metric.sum -o "$tmp/cap-cnt2" -- \
	"$tmp/spin" 1000 1 1 4096
check "... names it and says what to do" \
	has "metric kprof__no_such_metric.sum refused (CUPTI error [0-9]*): CUPTI does not know this metric"
check "... the other metric still has values (3 kernels: spin.cu's warm-up, 1 spin, 1 tiny)" \
	eq "$(json 'j["gpu"]["counters"]["kernels_with_values"]' "$tmp/cap-cnt2/params.json")" 3
check "... without --counters: no counters in params.json" \
	eq "$(json '"counters" in j["gpu"]' "$tmp/cap-monotonic/params.json")" False
check "reset-clock after the captures" run 0 "$K" reset-clock --device nvidia:0
# several GPUs (two processes on GPU 0 anywhere; the DDP run with 2+ GPUs)
check "multi_check.sh: captures of several GPUs (tests/nvidia/multi_check.sh)" \
	run 0 env KPROFCTL="$K" AGENT="$tmp/build/libkprof_cupti.so" "$here/multi_check.sh"

tap_end

