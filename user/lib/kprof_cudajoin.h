/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Joins launch calls seen by the libcuda uprobes (tid, entry, exit; no
 * CUPTI correlation id) to CUPTI's kernel records (correlation id, GPU
 * start; no thread), per process. The reasoning is in
 * docs/architecture.md, "Host times from uprobes": CUPTI hands out
 * correlation ids in API-call order, one per call, inside the call; so
 * the k-th successful launch call of a process, by entry, launched the
 * kernels of the k-th correlation id, by value, exactly when every launch
 * went through a probed function, nothing was lost, and the call did not
 * overlap another thread's (then either order was possible: counted as
 * ambiguous). What cannot be joined is counted, never dropped.
 */
#ifndef KPROF_CUDAJOIN_H
#define KPROF_CUDAJOIN_H

#include <stddef.h>
#include <stdint.h>

#define KPROF_CJ_AMBIGUOUS	(1U << 0)	/* overlapped another thread's call */

struct kprof_cj_call {
	uint64_t enter_ns, exit_ns;
	uint32_t tid;
	uint32_t corr;			/* out: the correlation id joined, 0: none */
	uint32_t flags;			/* out: KPROF_CJ_* */
	uint32_t index;			/* the caller's, kept through the sort */
};

struct kprof_cj_kernel {
	uint32_t corr;			/* CUPTI correlation id (> 0) */
	uint64_t start_ns;		/* GPU start, on the calls' clock */
};

struct kprof_cj_stats {
	uint64_t calls;			/* successful launch calls */
	uint64_t launches;		/* distinct correlation ids of the kernels */
	uint64_t matched;		/* launches joined to a call */
	uint64_t ambiguous;		/* of those, joined to an overlapping call */
	uint64_t kernels_unmatched;	/* launches without a call: no host times */
	uint64_t causal_skips;		/* of those, started before the next call entered */
	uint64_t calls_unmatched;	/* calls without a launch */
};

/*
 * Sorts calls by entry and kernels by correlation id (both in place,
 * kernels compacted to one per id, the earliest start), then pairs them
 * in order: a launch that started on the GPU before the next unpaired
 * call entered cannot be that call's and is left without one
 * (causal_skips). Sets each call's corr and flags; fills st.
 */
void kprof_cudajoin(struct kprof_cj_call *calls, size_t ncalls, struct kprof_cj_kernel *kernels,
		    size_t nkernels, struct kprof_cj_stats *st);

#endif /* KPROF_CUDAJOIN_H */
