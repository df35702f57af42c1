#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kprofctl's own end-to-end script (user/kprofctl/test_kprofctl.sh:
# list/info, capture row counts, --op-filter, --paused + resume, report
# byte-identity, EBUSY, ...) as part of the VM suite.
here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(cd "$here/../.." && pwd)}
exec "$here/tap_totals.sh" "$KPROF_ROOT/user/kprofctl/test_kprofctl.sh"
