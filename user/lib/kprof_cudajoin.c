// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Uprobe launch calls joined to CUPTI kernel records (kprof_cudajoin.h).
 */
#include "kprof_cudajoin.h"

#include <stdlib.h>
#include <string.h>

static int cmp_call(const void *a, const void *b)
{
	const struct kprof_cj_call *x = a, *y = b;

	if (x->enter_ns != y->enter_ns)
		return x->enter_ns < y->enter_ns ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct kprof_cj_kernel *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* One per correlation id (a graph launch has many kernels): the first. */
static size_t compact(struct kprof_cj_kernel *k, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++)
		if (!out || k[out - 1].corr != k[i].corr)
			k[out++] = k[i];
	return out;
}

/*
 * A call that overlaps a call of another thread: CUPTI may have numbered
 * them either way. The latest-ending earlier call is the one that can
 * overlap this one.
 */
static void mark_overlaps(struct kprof_cj_call *c, size_t n)
{
	size_t last = 0;

	for (size_t i = 0; i < n; i++) {
		c[i].corr = 0;
		c[i].flags = 0;
		if (i && c[i].enter_ns < c[last].exit_ns && c[i].tid != c[last].tid) {
			c[i].flags |= KPROF_CJ_AMBIGUOUS;
			c[last].flags |= KPROF_CJ_AMBIGUOUS;
		}
		if (!i || c[i].exit_ns > c[last].exit_ns)
			last = i;
	}
}

void kprof_cudajoin(struct kprof_cj_call *calls, size_t ncalls, struct kprof_cj_kernel *kernels,
		    size_t nkernels, struct kprof_cj_stats *st)
{
	size_t c = 0, g = 0, ng;

	memset(st, 0, sizeof(*st));
	qsort(calls, ncalls, sizeof(*calls), cmp_call);
	qsort(kernels, nkernels, sizeof(*kernels), cmp_kernel);
	ng = compact(kernels, nkernels);
	mark_overlaps(calls, ncalls);
	st->calls = ncalls;
	st->launches = ng;
	while (c < ncalls && g < ng) {
		if (kernels[g].start_ns < calls[c].enter_ns) {
			/* its launch call was not seen (an unprobed launch
			 * function, a lost event): no call after it is its
			 */
			st->kernels_unmatched++;
			st->causal_skips++;
			g++;
			continue;
		}
		calls[c].corr = kernels[g].corr;
		st->matched++;
		if (calls[c].flags & KPROF_CJ_AMBIGUOUS)
			st->ambiguous++;
		c++;
		g++;
	}
	st->kernels_unmatched += ng - g;
	st->calls_unmatched += ncalls - c;
}
