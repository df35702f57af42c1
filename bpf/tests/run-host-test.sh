#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs a BPF host test (the binary, then its arguments). tracefs is needed
# by the tracepoint hook; mount it when we may. Exit 77 from the test means
# BPF is not permitted here: say so loudly, and fail anyway when
# KPROF_REQUIRE_BPF=1 (CI runs as root and must really exercise the programs).
set -u
test_bin=$1
shift
if [ ! -d /sys/kernel/tracing/events ] && [ "$(id -u)" = 0 ]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null ||
		echo "run-host-test: could not mount tracefs; the tracepoint hook will fail" >&2
fi
"$test_bin" "$@"
rc=$?
if [ $rc -eq 77 ]; then
	echo "SKIPPED: BPF host test could not load programs (see the SKIP line above)" >&2
	if [ "${KPROF_REQUIRE_BPF:-0}" = 1 ]; then
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
exit $rc
