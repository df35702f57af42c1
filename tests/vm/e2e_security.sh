#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Security checks (tests/fuzz/security.sh: node mode and group, refusal
# outside the group, no clock changes without CAP_SYS_ADMIN, read-only
# mappings, no kernel addresses in sysfs/debugfs/dmesg) in the VM suite.
here=$(cd "$(dirname "$0")" && pwd)
KPROF_ROOT=${KPROF_ROOT:-$(cd "$here/../.." && pwd)}
export KPROF_ROOT
exec "$here/tap_totals.sh" "$KPROF_ROOT/tests/fuzz/security.sh"
