/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Definitions shared by bpf/kprof_cuda.bpf.c and its loader
 * (user/lib/kprof_bpf_cuda.c) that are not part of the spooled records.
 */
#ifndef _KPROF_BPF_CUDA_H
#define _KPROF_BPF_CUDA_H

/* Indexes into the per-CPU "stats" array, one __u64 each. */
enum kprof_cuda_stat {
	KPROF_CUDA_STAT_EVENTS,		/* records submitted to the ring */
	KPROF_CUDA_STAT_RESERVE_FAILED,	/* ring full: record lost */
	KPROF_CUDA_STAT_UNMATCHED_EXIT,	/* return without its entry */
	KPROF_CUDA_STAT_NESTED,		/* entry while another was in flight */
	KPROF_CUDA_STAT_INFLIGHT_FULL,	/* entry not stored: map full */
	KPROF_CUDA_STAT_TGID_FULL,	/* forked process not added: set full */
	KPROF_CUDA_STAT_NR,
};

#define KPROF_CUDA_MAX_TGIDS	4096	/* processes traced at once */
#define KPROF_CUDA_MAX_INFLIGHT	16384	/* threads inside a traced call at once */

#endif /* _KPROF_BPF_CUDA_H */
