/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Definitions shared by bpf/kprof_ioctl.bpf.c and its loader
 * (user/lib/kprof_bpf.c) that are not part of the spooled record format.
 */
#ifndef _KPROF_BPF_IOCTL_H
#define _KPROF_BPF_IOCTL_H

/* Indexes into the per-CPU "stats" array, one __u64 each. */
enum kprof_bpf_stat {
	KPROF_BPF_STAT_EVENTS,		/* records submitted to the ring */
	KPROF_BPF_STAT_RESERVE_FAILED,	/* ring full: record lost */
	KPROF_BPF_STAT_UNMATCHED_EXIT,	/* handler exit without its entry */
	KPROF_BPF_STAT_INFLIGHT_FULL,	/* entry not stored: no task storage */
	KPROF_BPF_STAT_NR,
};

#endif /* _KPROF_BPF_IOCTL_H */
