// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Uprobe launch calls joined to CUPTI kernel records (kprof_cudajoin.h),
 * as a stream: two reorder heaps, the pairing of their smallest records,
 * and a FIFO of joined calls whose ambiguity may still change.
 */
#include "kprof_cudajoin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cj_ent {
	struct kprof_cj_call c;
	uint64_t seq;			/* arrival: ties kept in input order */
};

struct kprof_cj {
	size_t w;
	struct cj_ent *ch;		/* call heap, w + 1 */
	size_t nch;
	struct kprof_cj_kernel *kh;	/* kernel heap, w + 1 */
	size_t nkh;
	int calls_ended, kernels_ended;
	uint64_t seq;
	/* the last call let go of the heap: smaller ones are late */
	int have_rel;
	uint64_t rel_enter;
	uint32_t rel_tid;
	/* the last distinct kernel let go: smaller ones are late, equal ones
	 * (a graph launch's other kernels) are not new launches
	 */
	int have_relk;
	struct kprof_cj_kernel relk;
	/* the smallest unjoined launch, and the call waiting for it */
	int have_g, have_p, p_last;
	struct kprof_cj_kernel g;
	struct kprof_cj_call p;
	/*
	 * The latest-ending call so far: the one a later call can overlap
	 * (as it is still in the FIFO at position last_pos, or as it went).
	 */
	int have_last;
	struct kprof_cj_call last;
	uint64_t last_pos, max_enter;
	/* joined calls, in entry order, w of them from position out_pos */
	struct kprof_cj_call *out;
	size_t nout;
	uint64_t out_pos;
	struct kprof_cj_stats st;
};

static int call_less(const void *a, const void *b)
{
	const struct cj_ent *x = a, *y = b;

	if (x->c.enter_ns != y->c.enter_ns)
		return x->c.enter_ns < y->c.enter_ns;
	if (x->c.tid != y->c.tid)
		return x->c.tid < y->c.tid;
	return x->seq < y->seq;
}

static int kernel_less(const void *a, const void *b)
{
	const struct kprof_cj_kernel *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr;
	return x->start_ns < y->start_ns;
}

/* A binary min-heap of n elements of sz bytes at h, ordered by less(). */
typedef int (*cj_less)(const void *x, const void *y);

static void *at(void *h, size_t i, size_t sz)
{
	return (char *)h + i * sz;
}

static void heap_push(void *h, size_t *n, size_t sz, const void *v, cj_less less)
{
	size_t i = (*n)++;

	while (i && less(v, at(h, (i - 1) / 2, sz))) {
		memcpy(at(h, i, sz), at(h, (i - 1) / 2, sz), sz);
		i = (i - 1) / 2;
	}
	memcpy(at(h, i, sz), v, sz);
}

/* The smallest into out; the last element sifts down from the top. */
static void heap_pop(void *h, size_t *n, size_t sz, void *out, cj_less less)
{
	size_t i = 0, c;
	const void *last;

	memcpy(out, h, sz);
	last = at(h, --*n, sz);
	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && less(at(h, c + 1, sz), at(h, c, sz)))
			c++;
		if (!less(at(h, c, sz), last))
			break;
		memcpy(at(h, i, sz), at(h, c, sz), sz);
		i = c;
	}
	memcpy(at(h, i, sz), last, sz);
}

struct kprof_cj *kprof_cj_new(size_t window)
{
	struct kprof_cj *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->w = window ? window : KPROF_CJ_WINDOW;
	j->ch = calloc(j->w + 1, sizeof(*j->ch));
	j->kh = calloc(j->w + 1, sizeof(*j->kh));
	j->out = calloc(j->w, sizeof(*j->out));
	if (!j->ch || !j->kh || !j->out) {
		kprof_cj_free(j);
		return NULL;
	}
	return j;
}

void kprof_cj_free(struct kprof_cj *j)
{
	if (!j)
		return;
	free(j->ch);
	free(j->kh);
	free(j->out);
	free(j);
}

const struct kprof_cj_stats *kprof_cj_stats(const struct kprof_cj *j)
{
	return &j->st;
}

void kprof_cj_calls_end(struct kprof_cj *j)
{
	j->calls_ended = 1;
}

void kprof_cj_kernels_end(struct kprof_cj *j)
{
	j->kernels_ended = 1;
}

int kprof_cj_push_call(struct kprof_cj *j, const struct kprof_cj_call *c)
{
	struct cj_ent e = { *c, j->seq++ };

	if (j->calls_ended || j->nch > j->w)
		return -ENOBUFS;
	if (!(c->flags & KPROF_CJ_OTHER))
		j->st.calls++;
	if (j->have_rel && (c->enter_ns < j->rel_enter ||
			    (c->enter_ns == j->rel_enter && c->tid < j->rel_tid))) {
		j->st.late_calls++;
		if (!(c->flags & KPROF_CJ_OTHER))
			j->st.calls_unmatched++;
		return 0;
	}
	heap_push(j->ch, &j->nch, sizeof(e), &e, call_less);
	return 0;
}

int kprof_cj_push_kernel(struct kprof_cj *j, const struct kprof_cj_kernel *k)
{
	if (j->kernels_ended || j->nkh > j->w)
		return -ENOBUFS;
	if (j->have_relk && kernel_less(k, &j->relk)) {
		j->st.late_kernels++;
		return 0;
	}
	if (j->have_relk && k->corr == j->relk.corr)
		return 0;	/* a later kernel of a launch already let go */
	heap_push(j->kh, &j->nkh, sizeof(*k), k, kernel_less);
	return 0;
}

/* The next distinct launch into j->g: 1, 0 (push a kernel), -1 (none left). */
static int next_launch(struct kprof_cj *j)
{
	struct kprof_cj_kernel k;

	for (;;) {
		if (!j->nkh)
			return j->kernels_ended ? -1 : 0;
		if (!j->kernels_ended && j->nkh <= j->w)
			return 0;
		heap_pop(j->kh, &j->nkh, sizeof(k), &k, kernel_less);
		if (j->have_relk && k.corr == j->relk.corr)
			continue;	/* one per id (a graph launch): the earliest */
		j->have_relk = 1;
		j->relk = k;
		j->st.launches++;
		j->g = k;
		j->have_g = 1;
		return 1;
	}
}

/*
 * A call that overlaps a call of another thread: CUPTI may have numbered
 * them either way. The latest-ending earlier call is the one that can
 * overlap this one; its flag may change only while it stays that.
 */
static void mark(struct kprof_cj *j, struct kprof_cj_call *c)
{
	c->corr = 0;
	c->flags = 0;
	if (j->have_last && c->enter_ns < j->last.exit_ns && c->tid != j->last.tid) {
		c->flags |= KPROF_CJ_AMBIGUOUS;
		if (!(j->last.flags & KPROF_CJ_AMBIGUOUS)) {
			j->last.flags |= KPROF_CJ_AMBIGUOUS;
			if (j->last.corr)
				j->st.ambiguous++;
			if (j->last_pos >= j->out_pos)
				j->out[j->last_pos % j->w].flags |= KPROF_CJ_AMBIGUOUS;
		}
	}
	j->p_last = !j->have_last || c->exit_ns > j->last.exit_ns;
	if (c->enter_ns > j->max_enter)
		j->max_enter = c->enter_ns;
}

/* Joins j->p to the next launch it can have: 1 done, 0 push a kernel. */
static int join(struct kprof_cj *j)
{
	for (;;) {
		int r = j->have_g ? 1 : next_launch(j);

		if (!r)
			return 0;
		if (r < 0) {
			j->st.calls_unmatched++;
			return 1;
		}
		if (j->g.start_ns < j->p.enter_ns) {
			/* its launch call was not seen (an unprobed launch
			 * function, a lost event): no call after it is its
			 */
			j->st.kernels_unmatched++;
			j->st.causal_skips++;
			j->have_g = 0;
			continue;
		}
		j->p.corr = j->g.corr;
		j->st.matched++;
		if (j->p.flags & KPROF_CJ_AMBIGUOUS)
			j->st.ambiguous++;
		j->have_g = 0;
		return 1;
	}
}

static void put_out(struct kprof_cj *j, const struct kprof_cj_call *c)
{
	j->out[(j->out_pos + j->nout) % j->w] = *c;
	j->nout++;
}

static int get_out(struct kprof_cj *j, struct kprof_cj_call *out)
{
	*out = j->out[j->out_pos % j->w];
	j->out_pos++;
	j->nout--;
	return KPROF_CJ_OUT;
}

/* The FIFO's head can no longer be marked ambiguous. */
static int head_final(const struct kprof_cj *j)
{
	if (j->calls_ended && !j->nch && !j->have_p)
		return 1;
	return !j->have_last || j->last_pos != j->out_pos ||
	       j->max_enter >= j->out[j->out_pos % j->w].exit_ns;
}

int kprof_cj_next(struct kprof_cj *j, struct kprof_cj_call *out)
{
	struct cj_ent e;

	for (;;) {
		if (j->nout && head_final(j))
			return get_out(j, out);
		if (j->have_p) {
			if (!join(j))
				return KPROF_CJ_NEED_KERNEL;
			if (j->p_last) {
				j->have_last = 1;
				j->last = j->p;
				j->last_pos = j->out_pos + j->nout;
			}
			put_out(j, &j->p);
			j->have_p = 0;
			continue;
		}
		/* a call overlapping so many later ones goes as it is now */
		if (j->nout == j->w)
			return get_out(j, out);
		if (j->nch && (j->calls_ended || j->nch > j->w)) {
			heap_pop(j->ch, &j->nch, sizeof(e), &e, call_less);
			j->have_rel = 1;
			j->rel_enter = e.c.enter_ns;
			j->rel_tid = e.c.tid;
			if (e.c.flags & KPROF_CJ_OTHER) {
				put_out(j, &e.c);
			} else {
				j->p = e.c;
				mark(j, &j->p);
				j->have_p = 1;
			}
			continue;
		}
		if (!j->calls_ended)
			return KPROF_CJ_NEED_CALL;
		/* every call is out: the launches left had no call */
		if (j->have_g) {
			j->st.kernels_unmatched++;
			j->have_g = 0;
		}
		switch (next_launch(j)) {
		case 0:
			return KPROF_CJ_NEED_KERNEL;
		case -1:
			return KPROF_CJ_END;
		}
	}
}
