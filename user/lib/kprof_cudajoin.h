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
 *
 * The join streams: both inputs arrive nearly sorted (calls by entry as
 * the BPF ring hands them over, kernels in CUPTI's buffer order), so each
 * goes through a reorder window of `window` records, a min-heap that lets
 * its smallest record go only when it holds more than `window` (or its
 * input ended); a joined call waits in a FIFO (window calls at most)
 * only while a later call may still overlap it. Memory is a few times
 * window records, whatever the capture's length. A record smaller than
 * one already let go arrived later than the window: it is counted
 * (late_calls, late_kernels) and left out; the joins next to it may be
 * off by one, as with a lost record. A call the full FIFO lets go before
 * an overlap is seen misses KPROF_CJ_AMBIGUOUS; st.ambiguous counts it.
 *
 * Usage: kprof_cj_new(), then call kprof_cj_next() until KPROF_CJ_END:
 * on KPROF_CJ_NEED_CALL push one call (or say kprof_cj_calls_end()), on
 * KPROF_CJ_NEED_KERNEL one kernel (or kprof_cj_kernels_end()); on
 * KPROF_CJ_OUT *out is the next call, by entry, with its join.
 */
#ifndef KPROF_CUDAJOIN_H
#define KPROF_CUDAJOIN_H

#include <stddef.h>
#include <stdint.h>

#define KPROF_CJ_AMBIGUOUS	(1U << 0)	/* out: overlapped another thread's call */
#define KPROF_CJ_OTHER		(1U << 1)	/* in: not a successful launch: kept in
						 * entry order with the others, not joined
						 */

/* Records each reorder window holds: far more than the launches in flight. */
#define KPROF_CJ_WINDOW		32768

struct kprof_cj_call {
	uint64_t enter_ns, exit_ns;
	uint64_t user;			/* the caller's, carried through */
	uint32_t tid;
	uint32_t corr;			/* out: the correlation id joined, 0: none */
	uint32_t flags;			/* KPROF_CJ_* */
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
	uint64_t calls_unmatched;	/* calls without a launch (late ones included) */
	uint64_t late_calls;		/* calls (any) after the window: left out */
	uint64_t late_kernels;		/* kernel records after the window: left out */
};

enum {
	KPROF_CJ_OUT,			/* *out is the next call */
	KPROF_CJ_NEED_CALL,		/* push a call or end the calls */
	KPROF_CJ_NEED_KERNEL,		/* push a kernel or end the kernels */
	KPROF_CJ_END,			/* all out; the stats are final */
};

struct kprof_cj;

/* window 0: KPROF_CJ_WINDOW. NULL: out of memory. */
struct kprof_cj *kprof_cj_new(size_t window);
void kprof_cj_free(struct kprof_cj *j);
/*
 * Calls are ordered by entry, then thread; a launch that started on the
 * GPU before the next unjoined call entered cannot be that call's and is
 * left without one (causal_skips). Push only when asked (0, or -ENOBUFS).
 */
int kprof_cj_push_call(struct kprof_cj *j, const struct kprof_cj_call *c);
int kprof_cj_push_kernel(struct kprof_cj *j, const struct kprof_cj_kernel *k);
void kprof_cj_calls_end(struct kprof_cj *j);
void kprof_cj_kernels_end(struct kprof_cj *j);
int kprof_cj_next(struct kprof_cj *j, struct kprof_cj_call *out);
const struct kprof_cj_stats *kprof_cj_stats(const struct kprof_cj *j);

#endif /* KPROF_CUDAJOIN_H */
