/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Definitions shared by both BPF programs (kprof_ioctl.bpf.c,
 * kprof_cuda.bpf.c, through kprof_common.bpf.h) and both loaders
 * (user/lib/kprof_bpf.c, kprof_bpf_cuda.c) that are not part of the
 * spooled record format.
 */
#ifndef _KPROF_BPF_COMMON_H
#define _KPROF_BPF_COMMON_H

/*
 * The counters every program's per-CPU "stats" array starts with, one
 * __u64 each; a program's own ones follow from KPROF_STAT_COMMON_NR.
 */
enum kprof_common_stat {
	KPROF_STAT_EVENTS,		/* records submitted to the ring */
	KPROF_STAT_RESERVE_FAILED,	/* ring full: record lost */
	KPROF_STAT_UNMATCHED_EXIT,	/* exit or return without its entry */
	KPROF_STAT_COMMON_NR,
};

#endif /* _KPROF_BPF_COMMON_H */
