#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/clock_fidelity's part inside the VM. The capture and the comparison
# are bench/collector_timesync_vm.sh (LIBK's); this part makes sure the clock
# is unlocked (DVFS on) and says how much it moved.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kprofctl reset-clock --device 0 >/dev/null
if ! kprofctl info --device 0 | grep -q 'clock: *dvfs'; then
	echo "clock_fidelity: device 0 clock is locked by someone else; the bench needs DVFS on" >&2
	kprofctl info --device 0 >&2
	exit 1
fi
echo "# kernel $(uname -r) under qemu TCG, $(nproc) vCPUs; device clock: dvfs"
"$here/collector_timesync_vm.sh" "$@"
