/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Definitions shared by bpf/kprof_ioctl.bpf.c and its loader
 * (user/lib/kprof_bpf.c) that are not part of the spooled record format.
 */
#ifndef _KPROF_BPF_IOCTL_H
#define _KPROF_BPF_IOCTL_H

#include "kprof_common.h"

/* Indexes into the per-CPU "stats" array after the common ones. */
enum kprof_bpf_stat {
	/* entry not stored: no task storage */
	KPROF_BPF_STAT_INFLIGHT_FULL = KPROF_STAT_COMMON_NR,
	KPROF_BPF_STAT_NR,
};

#endif /* _KPROF_BPF_IOCTL_H */
