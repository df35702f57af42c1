#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ioctl fuzzing in the test VM:
#   make -C tests/fuzz && tests/vm/run --timeout 3600 --exec tests/fuzz/ioctl_fuzz.sh [ARGS]
# ARGS go to ioctl_fuzz (--seed N --calls N --workers N --no-chaos); the
# default is 1M calls. ioctl_fuzz fails on an anomaly (a writable or
# executable mapping, one a forked child inherited, an unload with fds
# open) and when the ring pages held beyond the device caches (debugfs
# kprof/pages - kprof/pages_cached) differ after the run from before it.
# The runner checks dmesg afterwards (KASAN, lockdep, WARNING, ...) and
# that kprof.ko still unloads.
set -u
BIN=${BUILD:-/kprof/build}/fuzz/ioctl_fuzz
[ -x "$BIN" ] || { echo "ioctl_fuzz.sh: $BIN missing: run 'make -C tests/fuzz'"; exit 1; }

start=$(date +%s)
"$BIN" "$@"
rc=$?
end=$(date +%s)
echo "ioctl_fuzz.sh: exit $rc after $((end - start)) s"
grep -q '^kprof ' /proc/modules || { echo "ioctl_fuzz.sh: kprof.ko is no longer loaded"; rc=1; }
ls -l /dev/kprof* 2>&1
exit $rc
