#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl capture --device nvidia:0,nvidia:1 without a GPU, through
# stand-ins: NVML (tests/nvidia/nvml_standin.c) presents two GPUs made
# from the one H100 it recorded (KPROF_NVML_STANDIN_GPUS=2: same answers,
# the second GPU's UUID differs), and each CUDA process is fake_cuda with
# the real agent injected, playing a recording made on that H100
# (cupti_standin.c), its ops set to a CUDA device ordinal
# (KPROF_STANDIN_DEVICE) whose UUID fake_cuda answers
# (KPROF_STANDIN_GPUS, as CUDA_VISIBLE_DEVICES would renumber). A stand-in
# for a 2-GPU host, not a recording of one (tests/nvidia/multi_check.sh
# is the real run). Checks: each process's ops land in its GPU's
# directory (as many, and the same kinds, as a one-GPU capture of the
# same recording), DIR's report and trace across the GPUs, the routing
# counts in params.json, ops of a GPU not captured counted and left out,
# nvidia:all, a GPU already being captured refused naming its holder
# (also when it is one GPU of a multi-GPU capture), `kprofctl report DIR`
# re-making the same outputs, and usage errors.
# Usage: nvidia_multi.sh BUILD
set -u
B=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
D=$here/../nvidia/data
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kprof-nvidia-multi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LD_LIBRARY_PATH=$B/tests/nvidia KPROF_NVML_STANDIN_DATA=$D/h100.nvml
export KPROF_NVML_STANDIN_LOG=$tmp/nvml.log KPROF_NVML_STANDIN_GPUS=3
U0=$(awk '/^nvmlDeviceGetUUID 0 = 0 /{print $5}' "$D/h100.nvml")
U1=${U0%??}01
U2=${U0%??}02
FAKE=$B/tests/nvidia/fake_cuda
. "$here/../nvidia/tap_lib.sh"

# cap WANT DIR DEVICES CMD...: a capture with the stand-in CUPTI, log in DIR.log
cap() {
	want=$1 dir=$2 devs=$3
	shift 3
	"$B/kprofctl" capture --device "$devs" --agent "$B/libkprof_cupti.so" \
		--cupti "$B/tests/nvidia/libcupti_standin.so" -o "$dir" -- "$@" >"$dir.log" 2>&1
	got=$?
	[ "$got" -eq "$want" ] ||
		{ echo "# exit $got, expected $want: capture --device $devs"; sed 's/^/# /' "$dir.log"; return 1; }
}

# rows CSV: data rows; kinds CSV: the sorted OP CODE column
rows() { [ -f "$1" ] && echo $(($(wc -l <"$1") - 1)) || echo missing; }
kinds() { python3 -c 'import csv,sys; print(sorted(r["OP CODE"] for r in csv.DictReader(open(sys.argv[1]))))' "$1" 2>/dev/null; }
jget() { python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["config"]; print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }

# One GPU each, for what the routed ones must hold.
cap 0 "$tmp/one_spin" nvidia:0 env KPROF_STANDIN_DATA="$D/spin.cuptirec" "$FAKE"
tap $? "one-GPU capture of the spin recording"
cap 0 "$tmp/one_torch" nvidia:1 env KPROF_STANDIN_DATA="$D/torch.cuptirec" "$FAKE"
tap $? "one-GPU capture of the torch recording"

# Two processes, one per GPU; the second sees only the second GPU (its ordinal 0).
cap 0 "$tmp/two" nvidia:0,nvidia:1 sh -c "
	KPROF_STANDIN_DATA=$D/spin.cuptirec KPROF_STANDIN_GPUS=$U0,$U1 KPROF_STANDIN_DEVICE=0 $FAKE &
	KPROF_STANDIN_DATA=$D/torch.cuptirec KPROF_STANDIN_GPUS=$U1 KPROF_STANDIN_DEVICE=0 $FAKE
	wait"
tap $? "capture --device nvidia:0,nvidia:1 of two processes"
for d in nvidia0 nvidia1; do
	for f in ops.csv trace.json report.md params.json summary.txt raw/device.kspool; do
		[ -f "$tmp/two/$d/$f" ] || { echo "# $d/$f missing"; false; }
	done
	tap $? "$d/ holds a whole one-GPU capture"
done
[ "$(rows "$tmp/two/nvidia0/ops.csv")" = "$(rows "$tmp/one_spin/ops.csv")" ] &&
	[ "$(kinds "$tmp/two/nvidia0/ops.csv")" = "$(kinds "$tmp/one_spin/ops.csv")" ]
tap $? "nvidia0/ops.csv: the first process's ops, no other ($(rows "$tmp/two/nvidia0/ops.csv") rows)"
[ "$(rows "$tmp/two/nvidia1/ops.csv")" = "$(rows "$tmp/one_torch/ops.csv")" ] &&
	[ "$(kinds "$tmp/two/nvidia1/ops.csv")" = "$(kinds "$tmp/one_torch/ops.csv")" ]
tap $? "nvidia1/ops.csv: the second process's ops, by UUID through its own ordinal 0"
[ "$(jget "$tmp/two/nvidia1/params.json" 'c["routing"]["ops_this_gpu"]')" = \
  "$(rows "$tmp/one_torch/ops.csv")" ] &&
	[ "$(jget "$tmp/two/nvidia1/params.json" 'c["routing"]["ops_gpus_not_captured"]')" = 0 ]
tap $? "params.json: the ops routed to the GPU, none elsewhere"
ls "$tmp/two/raw/"gpu-*.kspool >/dev/null 2>&1
tap $? "DIR/raw keeps the agents' spools as written"
grep -q '| nvidia:0: .* | nvidia0/ |' "$tmp/two/report.md" &&
	grep -q '| nvidia:1: .* | nvidia1/ |' "$tmp/two/report.md" &&
	grep -q '## Collectives and compute' "$tmp/two/report.md" &&
	grep -q '## Steps' "$tmp/two/report.md"
tap $? "report.md compares the GPUs (busy, collectives vs compute, steps)"
python3 - "$tmp/two/trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
ok = any("nvidia:0" in x for x in names) and any("nvidia:1" in x for x in names)
sys.exit(0 if ok else 1)
PY
tap $? "trace.json: a track group per GPU on one timeline"

# kprofctl report DIR re-makes every GPU's and DIR's outputs
"$B/kprofctl" report "$tmp/two" -o "$tmp/again" >"$tmp/again.log" 2>&1 &&
	cmp -s "$tmp/two/nvidia0/ops.csv" "$tmp/again/nvidia0/ops.csv" &&
	cmp -s "$tmp/two/nvidia1/ops.csv" "$tmp/again/nvidia1/ops.csv" &&
	cmp -s "$tmp/two/report.md" "$tmp/again/report.md"
tap $? "kprofctl report DIR re-makes the same outputs"

# The step pattern is the capture's: report DIR without --step keeps it.
step() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step"])' "$1" 2>/dev/null; }
[ "$(step "$tmp/two/capture.json")" = 'nccl*AllReduce*' ]
tap $? "capture.json: the default step pattern"
"$B/kprofctl" report "$tmp/two" --step 'kprof_spin*' >"$tmp/step1.log" 2>&1 &&
	"$B/kprofctl" report "$tmp/two" -o "$tmp/step2" >"$tmp/step2.log" 2>&1 &&
	[ "$(step "$tmp/two/capture.json")" = 'kprof_spin*' ] &&
	[ "$(step "$tmp/step2/capture.json")" = 'kprof_spin*' ] &&
	cmp -s "$tmp/two/report.md" "$tmp/step2/report.md" &&
	! cmp -s "$tmp/two/report.md" "$tmp/again/report.md"
tap $? "report DIR --step P, then report DIR without --step: P again, the same report.md"

# A process's ops on a GPU not captured: counted, said, left out.
cap 0 "$tmp/foreign" nvidia:0,nvidia:1 sh -c "
	KPROF_STANDIN_DATA=$D/spin.cuptirec KPROF_STANDIN_GPUS=$U0 KPROF_STANDIN_DEVICE=0 $FAKE &
	KPROF_STANDIN_DATA=$D/torch.cuptirec KPROF_STANDIN_GPUS=$U2 KPROF_STANDIN_DEVICE=0 $FAKE
	wait"
tap $? "capture where a process ran on a third GPU"
grep -q "ran on GPUs this capture does not take ($U2)" "$tmp/foreign.log" &&
	[ "$(jget "$tmp/foreign/nvidia0/params.json" 'c["routing"]["ops_gpus_not_captured"]')" = \
	  "$(rows "$tmp/one_torch/ops.csv")" ] &&
	[ ! -f "$tmp/foreign/nvidia1/raw/gpu-"*.kspool ]
tap $? "... its ops counted and named, in no GPU's outputs"
grep -q "^\*\*Not compared\*\*: $(rows "$tmp/one_torch/ops.csv") kernels/copies ran on GPUs this capture did not take" \
	"$tmp/foreign/report.md"
tap $? "... and said in DIR's report.md"

# nvidia:all: every GPU NVML sees
KPROF_NVML_STANDIN_GPUS=2 cap 0 "$tmp/all" nvidia:all env KPROF_STANDIN_DATA="$D/spin.cuptirec" \
	KPROF_STANDIN_GPUS="$U1" KPROF_STANDIN_DEVICE=0 "$FAKE" &&
	[ "$(rows "$tmp/all/nvidia1/ops.csv")" = "$(rows "$tmp/one_spin/ops.csv")" ] &&
	[ -f "$tmp/all/nvidia0/ops.csv" ]
tap $? "--device nvidia:all takes both GPUs"

# One GPU, two processes on it (the case a one-GPU host can run for real):
# nvidia:all still gives DIR/nvidia0/, both processes' ops routed there.
KPROF_NVML_STANDIN_GPUS=1 cap 0 "$tmp/one" nvidia:all sh -c "
	KPROF_STANDIN_DATA=$D/spin.cuptirec KPROF_STANDIN_GPUS=$U0 KPROF_STANDIN_DEVICE=0 $FAKE &
	KPROF_STANDIN_DATA=$D/torch.cuptirec KPROF_STANDIN_GPUS=$U0 KPROF_STANDIN_DEVICE=0 $FAKE
	wait" &&
	[ "$(jget "$tmp/one/nvidia0/params.json" 'c["routing"]["ops_this_gpu"]')" = \
	  $(($(rows "$tmp/one_spin/ops.csv") + $(rows "$tmp/one_torch/ops.csv"))) ] &&
	[ "$(ls "$tmp/one/nvidia0/raw/"gpu-*.kspool | wc -l)" = 2 ]
tap $? "nvidia:all on one GPU: DIR/nvidia0/, both processes' ops routed to it"

# The report of a GPU with two processes takes the larger; --pid picks the other.
pj() { python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["gpu"]; print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
P=$tmp/one/nvidia0/params.json
big=$(pj "$P" '[s["pid"] for s in g["spools"] if s["aggregated"]][0]')
small=$(pj "$P" '[s["pid"] for s in g["spools"] if not s["aggregated"]][0]')
[ "$(pj "$P" 'g["spool_picked_by"]')" = most_records ] &&
	[ "$(kinds "$tmp/one/nvidia0/ops.csv")" = "$(kinds "$tmp/one_spin/ops.csv")" ] &&
	grep -q "raw/gpu-$big.kspool (the process with the most records)" "$tmp/one/nvidia0/summary.txt" &&
	grep -q "other CUDA processes, not in these outputs .*--pid PID.*: $small (" \
		"$tmp/one/nvidia0/summary.txt" &&
	grep -q "2 CUDA processes: .*kprofctl report $tmp/one/nvidia0 --pid PID -o NEWDIR" "$tmp/one.log"
tap $? "two processes on one GPU: the larger reported (pid $big), the other ($small) named with how to report it"
"$B/kprofctl" report "$tmp/one/nvidia0" --pid "$small" -o "$tmp/pick" >"$tmp/pick.log" 2>&1 &&
	[ "$(rows "$tmp/pick/ops.csv")" = "$(rows "$tmp/one_torch/ops.csv")" ] &&
	[ "$(kinds "$tmp/pick/ops.csv")" = "$(kinds "$tmp/one_torch/ops.csv")" ] &&
	[ "$(pj "$tmp/pick/params.json" 'g["spool_picked_by"]')" = pid ] &&
	[ "$(pj "$tmp/pick/params.json" '[s["pid"] for s in g["spools"] if s["aggregated"]]')" = "[$small]" ] &&
	grep -q "raw/gpu-$small.kspool (picked with --pid)" "$tmp/pick/summary.txt" &&
	grep -q "other CUDA processes, not in these outputs .*: $big (" "$tmp/pick/summary.txt"
tap $? "report --pid $small: that process's ops (the torch recording's $(rows "$tmp/pick/ops.csv") rows), summary and params.json say so"
"$B/kprofctl" report "$tmp/one/nvidia0" --pid "$big" -o "$tmp/pick_big" >/dev/null 2>&1 &&
	cmp -s "$tmp/pick_big/ops.csv" "$tmp/one/nvidia0/ops.csv"
tap $? "report --pid of the larger process: the same ops.csv as without --pid"
"$B/kprofctl" report "$tmp/one/nvidia0" --pid 4000000000 -o "$tmp/nopid" >"$tmp/nopid.log" 2>&1
st=$?
[ $st -ne 0 ] && [ ! -e "$tmp/nopid/ops.csv" ] &&
	grep -q -- "--pid 4000000000: no agent spool of that process in .*its CUDA processes: " "$tmp/nopid.log" &&
	grep -q "$small" "$tmp/nopid.log" && grep -q "$big" "$tmp/nopid.log"
tap $? "report --pid of no process there: exit $st, no ops.csv, the processes named"
"$B/kprofctl" report "$tmp/one" --pid "$small" -o "$tmp/multipid" >"$tmp/multipid.log" 2>&1
st=$?
[ $st -ne 0 ] && grep -q -- "--pid works on one GPU's capture directory" "$tmp/multipid.log"
tap $? "report --pid on the capture of several GPUs: exit $st, pointed at DIR/nvidiaN"
"$B/kprofctl" report "$tmp/one/nvidia0" --pid 0 >"$tmp/pid0.log" 2>&1
st=$?
[ $st -eq 2 ] && grep -q -- "--pid wants a process id" "$tmp/pid0.log"
tap $? "report --pid 0: usage error (exit $st)"

# Holders: a capture waits on a FIFO while others try its GPUs.
mkfifo "$tmp/go"
"$B/kprofctl" capture --device nvidia:1 --agent "$B/libkprof_cupti.so" -o "$tmp/held" -- \
	sh -c "touch $tmp/ready; read x <$tmp/go" >"$tmp/held.log" 2>&1 &
holder=$!
i=0
while [ ! -f "$tmp/ready" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
cap 1 "$tmp/busy" nvidia:0,nvidia:1 true
grep -q "nvidia:1 is being captured by pid $holder (kprofctl)" "$tmp/busy.log" &&
	grep -q "nothing captured" "$tmp/busy.log" && [ ! -e "$tmp/busy" ]
tap $? "a GPU being captured: the multi-GPU capture refused, naming the holder, nothing made"
timeout 60 sh -c "echo >$tmp/go"	# no reader (a refused capture): no hang
wait $holder
tap $? "... the holding capture ends well"
"$B/kprofctl" capture --device nvidia:0,nvidia:1 --agent "$B/libkprof_cupti.so" -o "$tmp/held2" -- \
	sh -c "touch $tmp/ready2; read x <$tmp/go" >"$tmp/held2.log" 2>&1 &
holder=$!
i=0
while [ ! -f "$tmp/ready2" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
cap 1 "$tmp/busy2" nvidia:1 true
grep -q "nvidia:1 is being captured by pid $holder (kprofctl)" "$tmp/busy2.log"
tap $? "one GPU of a multi-GPU capture: a one-GPU capture of it refused, naming the holder"
timeout 60 sh -c "echo >$tmp/go"	# no reader (a refused capture): no hang
wait $holder
tap $? "... the multi-GPU capture ends well"

# Usage errors
cap 1 "$tmp/same" "nvidia:0,nvidia:$U0" true && grep -q "are the same GPU" "$tmp/same.log" &&
	[ ! -e "$tmp/same" ]
tap $? "one GPU named twice (index and UUID): refused, nothing made"
cap 2 "$tmp/mixed" 0,nvidia:1 true && grep -q "cannot be captured together" "$tmp/mixed.log"
tap $? "kprof.ko devices and GPUs in one list: a usage error"
"$B/kprofctl" capture --device nvidia:0,nvidia:1 --host-times uprobe -- true >"$tmp/up.log" 2>&1
[ $? -eq 2 ] && grep -q "takes one GPU" "$tmp/up.log" && [ ! -e "$tmp/up" ]
tap $? "--host-times uprobe with several GPUs: a usage error"

[ ! -f "$tmp/nvml.log" ] || ! grep -q UNRECORDED "$tmp/nvml.log"
tap $? "every NVML call was in the recording"
echo "nvidia_multi: $n checks"
[ "$fail" -eq 0 ]
