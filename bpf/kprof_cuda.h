/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Definitions shared by bpf/kprof_cuda.bpf.c and its loader
 * (user/lib/kprof_bpf_cuda.c) that are not part of the spooled records.
 */
#ifndef _KPROF_BPF_CUDA_H
#define _KPROF_BPF_CUDA_H

#include "kprof_common.h"

/* Indexes into the per-CPU "stats" array after the common ones. */
enum kprof_cuda_stat {
	/* entry while another was in flight */
	KPROF_CUDA_STAT_NESTED = KPROF_STAT_COMMON_NR,
	KPROF_CUDA_STAT_INFLIGHT_FULL,	/* entry not stored: map full */
	KPROF_CUDA_STAT_TGID_FULL,	/* forked process not added: set full */
	KPROF_CUDA_STAT_NR,
};

#define KPROF_CUDA_MAX_TGIDS	4096	/* processes traced at once */
#define KPROF_CUDA_MAX_INFLIGHT	16384	/* threads inside a traced call at once */

#endif /* _KPROF_BPF_CUDA_H */
