// SPDX-License-Identifier: GPL-2.0
/*
 * The join of uprobe launch calls to CUPTI kernel records
 * (kprof_cudajoin.c): exact in order, graph launches, launches the
 * uprobes did not see, calls without kernels, overlapping threads; the
 * streaming join against the batch join it replaced (kept here as the
 * reference) on generated captures, with reorder windows as tight as
 * their disorder; late records counted and left out.
 */
#include "kt.h"
#include "kprof_cudajoin.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static struct kprof_cj_call call(uint64_t enter, uint64_t exit, uint32_t tid, uint32_t index)
{
	return (struct kprof_cj_call){ .enter_ns = enter, .exit_ns = exit, .tid = tid,
				       .user = index };
}

/* the corr joined to the caller's call index i (sorted away from i) */
static uint32_t corr_of(const struct kprof_cj_call *c, size_t n, uint32_t index)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].user == index)
			return c[i].corr;
	return ~0U;
}

/*
 * The streaming join fed c and k in their order, as asked; what comes
 * out (by entry) is written back over c. Returns how many came out.
 */
static size_t stream_join(struct kprof_cj_call *c, size_t nc, const struct kprof_cj_kernel *k,
			  size_t nk, size_t window, struct kprof_cj_stats *st)
{
	struct kprof_cj *j = kprof_cj_new(window);
	struct kprof_cj_call *out = calloc(nc ? nc : 1, sizeof(*out));
	struct kprof_cj_call o;
	size_t ic = 0, ik = 0, no = 0;
	int r, bad = 0;

	if (!j || !out) {
		KT_CHECK(0, "out of memory");
		kprof_cj_free(j);
		free(out);
		memset(st, 0, sizeof(*st));
		return 0;
	}
	while ((r = kprof_cj_next(j, &o)) != KPROF_CJ_END) {
		if (r == KPROF_CJ_OUT && no < nc)
			out[no++] = o;
		else if (r == KPROF_CJ_OUT)
			bad = 1;
		else if (r == KPROF_CJ_NEED_CALL && ic < nc)
			bad |= kprof_cj_push_call(j, &c[ic++]) != 0;
		else if (r == KPROF_CJ_NEED_CALL)
			kprof_cj_calls_end(j);
		else if (ik < nk)
			bad |= kprof_cj_push_kernel(j, &k[ik++]) != 0;
		else
			kprof_cj_kernels_end(j);
	}
	KT_CHECK(!bad, "the join took every record it asked for, gave no more than it took");
	*st = *kprof_cj_stats(j);
	memcpy(c, out, no * sizeof(*c));
	kprof_cj_free(j);
	free(out);
	return no;
}

static void join_all(struct kprof_cj_call *c, size_t nc, struct kprof_cj_kernel *k,
		     size_t nk, struct kprof_cj_stats *st)
{
	KT_EQ_U64(stream_join(c, nc, k, nk, 0, st), nc);
}

/* The batch join as it was: every call and kernel in memory, sorted. */
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

static void batch_join(struct kprof_cj_call *calls, size_t ncalls, struct kprof_cj_kernel *kernels,
		       size_t nkernels, struct kprof_cj_stats *st)
{
	size_t c = 0, g = 0, ng = 0, last = 0;

	memset(st, 0, sizeof(*st));
	qsort(calls, ncalls, sizeof(*calls), cmp_call);
	qsort(kernels, nkernels, sizeof(*kernels), cmp_kernel);
	for (size_t i = 0; i < nkernels; i++)
		if (!ng || kernels[ng - 1].corr != kernels[i].corr)
			kernels[ng++] = kernels[i];
	for (size_t i = 0; i < ncalls; i++) {
		calls[i].corr = 0;
		calls[i].flags = 0;
		if (i && calls[i].enter_ns < calls[last].exit_ns &&
		    calls[i].tid != calls[last].tid) {
			calls[i].flags |= KPROF_CJ_AMBIGUOUS;
			calls[last].flags |= KPROF_CJ_AMBIGUOUS;
		}
		if (!i || calls[i].exit_ns > calls[last].exit_ns)
			last = i;
	}
	st->calls = ncalls;
	st->launches = ng;
	while (c < ncalls && g < ng) {
		if (kernels[g].start_ns < calls[c].enter_ns) {
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

static void test_in_order(void)
{
	/* ids with gaps (other API calls take ids too), given shuffled */
	struct kprof_cj_call c[5] = {
		call(400, 410, 1, 3), call(100, 110, 1, 0), call(500, 510, 1, 4),
		call(200, 210, 1, 1), call(300, 310, 1, 2),
	};
	struct kprof_cj_kernel k[5] = {
		{ 12, 1000 }, { 3, 150 }, { 20, 1100 }, { 8, 900 }, { 7, 800 },
	};
	static const uint32_t want[5] = { 3, 7, 8, 12, 20 };
	struct kprof_cj_stats st;

	join_all(c, 5, k, 5, &st);
	for (uint32_t i = 0; i < 5; i++)
		KT_EQ_U64(corr_of(c, 5, i), want[i]);
	KT_EQ_U64(st.calls, 5);
	KT_EQ_U64(st.launches, 5);
	KT_EQ_U64(st.matched, 5);
	KT_EQ_U64(st.ambiguous + st.kernels_unmatched + st.calls_unmatched, 0);
}

static void test_graph(void)
{
	/* a graph launch: three kernels of one call, one id */
	struct kprof_cj_call c[2] = { call(100, 110, 1, 0), call(200, 210, 1, 1) };
	struct kprof_cj_kernel k[4] = { { 9, 400 }, { 5, 300 }, { 5, 120 }, { 5, 200 } };
	struct kprof_cj_stats st;

	join_all(c, 2, k, 4, &st);
	KT_EQ_U64(corr_of(c, 2, 0), 5);
	KT_EQ_U64(corr_of(c, 2, 1), 9);
	KT_EQ_U64(st.launches, 2);
	KT_EQ_U64(st.matched, 2);
	KT_EQ_U64(st.kernels_unmatched + st.calls_unmatched, 0);
}

static void test_unseen_launch(void)
{
	/* id 2 came from a launch function the uprobes do not see (at 200):
	 * it started before the next seen call (300) entered
	 */
	struct kprof_cj_call c[2] = { call(100, 110, 1, 0), call(300, 310, 1, 1) };
	struct kprof_cj_kernel k[3] = { { 1, 150 }, { 2, 250 }, { 3, 350 } };
	struct kprof_cj_stats st;

	join_all(c, 2, k, 3, &st);
	KT_EQ_U64(corr_of(c, 2, 0), 1);
	KT_EQ_U64(corr_of(c, 2, 1), 3);
	KT_EQ_U64(st.matched, 2);
	KT_EQ_U64(st.kernels_unmatched, 1);
	KT_EQ_U64(st.causal_skips, 1);
	KT_EQ_U64(st.calls_unmatched, 0);
}

static void test_leftovers(void)
{
	struct kprof_cj_call c[3] = {
		call(100, 110, 1, 0), call(200, 210, 1, 1), call(300, 310, 1, 2),
	};
	struct kprof_cj_kernel k[4] = { { 1, 150 }, { 2, 250 }, { 3, 350 }, { 4, 450 } };
	struct kprof_cj_stats st;

	/* a call whose kernel record is missing (a CUPTI drop): counted */
	join_all(c, 3, k, 2, &st);
	KT_EQ_U64(st.matched, 2);
	KT_EQ_U64(st.calls_unmatched, 1);
	KT_EQ_U64(corr_of(c, 3, 2), 0);
	/* a kernel past the last call: counted */
	c[0] = call(100, 110, 1, 0);
	c[1] = call(200, 210, 1, 1);
	c[2] = call(300, 310, 1, 2);
	join_all(c, 3, k, 4, &st);
	KT_EQ_U64(st.matched, 3);
	KT_EQ_U64(st.kernels_unmatched, 1);
	KT_EQ_U64(st.causal_skips, 0);
	/* no calls at all (BPF not there): every launch counted */
	join_all(c, 0, k, 4, &st);
	KT_EQ_U64(st.kernels_unmatched, 4);
}

static void test_overlap(void)
{
	/* thread 2's call inside thread 1's: either order was possible */
	struct kprof_cj_call c[4] = {
		call(100, 200, 1, 0), call(150, 160, 2, 1), call(300, 310, 1, 2),
		call(320, 330, 1, 3),
	};
	struct kprof_cj_kernel k[4] = { { 1, 400 }, { 2, 410 }, { 3, 420 }, { 4, 430 } };
	struct kprof_cj_stats st;

	join_all(c, 4, k, 4, &st);
	KT_EQ_U64(st.matched, 4);
	KT_EQ_U64(st.ambiguous, 2);
	for (size_t i = 0; i < 4; i++)
		KT_EQ_U64(!!(c[i].flags & KPROF_CJ_AMBIGUOUS), c[i].user < 2);
}

static void test_many(void)
{
	enum { N = 100000 };
	struct kprof_cj_call *c = calloc(N, sizeof(*c));
	struct kprof_cj_kernel *k = calloc(N, sizeof(*k));
	struct kprof_cj_stats st;
	uint64_t seed = 42, t = 1000, bad = 0;

	if (!c || !k) {
		KT_CHECK(0, "out of memory");
		free(c);
		free(k);
		return;
	}
	for (uint32_t i = 0; i < N; i++) {
		t += 1 + kt_xorshift(&seed) % 5000;
		c[i] = call(t, t + 3000, 1 + (uint32_t)(kt_xorshift(&seed) % 4), i);
		/* calls do not overlap: each ends before the next enters */
		t += 3000;
		k[i] = (struct kprof_cj_kernel){ 2 * i + 1, t + kt_xorshift(&seed) % 100000 };
	}
	/* shuffle the kernels, as CUPTI's buffers of several streams may,
	 * within runs of 4096 (in flight together)
	 */
	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j = i - (uint32_t)(kt_xorshift(&seed) % (i % 4096 + 1));
		struct kprof_cj_kernel x = k[i];

		k[i] = k[j];
		k[j] = x;
	}
	join_all(c, N, k, N, &st);
	for (uint32_t i = 0; i < N; i++)
		bad += c[i].corr != 2 * c[i].user + 1;
	KT_EQ_U64(bad, 0);
	KT_EQ_U64(st.matched, N);
	KT_EQ_U64(st.ambiguous + st.kernels_unmatched + st.calls_unmatched, 0);
	free(c);
	free(k);
}

static int call_gt(const struct kprof_cj_call *x, const struct kprof_cj_call *y)
{
	return x->enter_ns != y->enter_ns ? x->enter_ns > y->enter_ns : x->tid > y->tid;
}

static int kernel_gt(const struct kprof_cj_kernel *x, const struct kprof_cj_kernel *y)
{
	return x->corr != y->corr ? x->corr > y->corr : x->start_ns > y->start_ns;
}

/*
 * The window a generated capture needs: no record may come after more
 * than window larger ones (a heap of window records lets go only
 * records smaller than what is still to come), and a call's FIFO may
 * hold every call that enters while it runs.
 */
static size_t window_needed(const struct kprof_cj_call *c, size_t nc,
			    const struct kprof_cj_kernel *k, size_t nk)
{
	size_t w = 1;

	for (size_t i = 0; i < nc; i++) {
		size_t larger = 0, inside = 0;

		for (size_t j = 0; j < nc; j++) {
			larger += j < i && call_gt(&c[j], &c[i]);
			inside += c[j].enter_ns >= c[i].enter_ns && c[j].enter_ns <= c[i].exit_ns;
		}
		w = larger > w ? larger : w;
		w = inside + 2 > w ? inside + 2 : w;
	}
	for (size_t i = 0; i < nk; i++) {
		size_t larger = 0;

		for (size_t j = 0; j < i; j++)
			larger += kernel_gt(&k[j], &k[i]);
		w = larger > w ? larger : w;
	}
	return w;
}

static uint64_t arrival_key;	/* 0: calls by exit, 1: kernels by jittered start */

static int cmp_arrival(const void *a, const void *b)
{
	uint64_t x, y;

	if (!arrival_key) {
		x = ((const struct kprof_cj_call *)a)->exit_ns;
		y = ((const struct kprof_cj_call *)b)->exit_ns;
	} else {
		/* completion order: the start and up to 255 ns more */
		x = ((const struct kprof_cj_kernel *)a)->start_ns;
		y = ((const struct kprof_cj_kernel *)b)->start_ns;
		x += (x * 2654435761U) >> 7 & 0xff;
		y += (y * 2654435761U) >> 7 & 0xff;
	}
	return (x > y) - (x < y);
}

/*
 * Generated captures: threads whose calls interleave and overlap, syncs
 * among the launches, ids with gaps, graph launches, calls the uprobes
 * lost, kernels CUPTI dropped; calls handed over by exit (as the BPF
 * ring does), kernels by start with jitter (as CUPTI's buffers). The
 * streaming join, with a window just as large as the disorder, must give
 * what the batch join gives, call for call.
 */
static void test_against_batch(void)
{
	enum { RUNS = 200, MAXN = 300 };
	struct kprof_cj_call *c = calloc(2 * MAXN, sizeof(*c)), *b = calloc(2 * MAXN, sizeof(*c));
	struct kprof_cj_kernel *k = calloc(4 * MAXN, sizeof(*k));
	struct kprof_cj_kernel *bk = calloc(4 * MAXN, sizeof(*k));
	uint64_t seed = 7, differ = 0, tight = 0;

	if (!c || !b || !k || !bk) {
		KT_CHECK(0, "out of memory");
		goto out;
	}
	for (int run = 0; run < RUNS; run++) {
		size_t n = 1 + kt_xorshift(&seed) % MAXN, nc = 0, nb = 0, nk = 0, no, others = 0, w;
		uint32_t threads = 1 + (uint32_t)(kt_xorshift(&seed) % 4), corr = 0;
		uint64_t t = 1000;
		struct kprof_cj_stats sb, ss;

		for (size_t i = 0; i < n; i++) {
			uint64_t r = kt_xorshift(&seed), dur = r % 8 ? r / 8 % 50 : r / 8 % 2000;

			t += 1 + kt_xorshift(&seed) % 200;	/* no two at one ns */
			c[nc] = call(t, t + dur, 1 + (uint32_t)(kt_xorshift(&seed) % threads),
				     (uint32_t)i);
			corr += 1;
			if (kt_xorshift(&seed) % 4 == 0)	/* ids of other API calls */
				corr += (uint32_t)(kt_xorshift(&seed) % 3);
			if (kt_xorshift(&seed) % 10 == 0) {
				c[nc++].flags = KPROF_CJ_OTHER;	/* a sync */
				others++;
				continue;
			}
			if (kt_xorshift(&seed) % 20)		/* else lost by the uprobes */
				b[nb++] = c[nc++];
			if (kt_xorshift(&seed) % 20 == 0)	/* dropped by CUPTI */
				continue;
			for (uint64_t g = kt_xorshift(&seed) % 8 ? 1 : 2 + kt_xorshift(&seed) % 3;
			     g; g--)
				k[nk++] = (struct kprof_cj_kernel){ corr,
					t + kt_xorshift(&seed) % 3000 };
		}
		arrival_key = 0;
		qsort(c, nc, sizeof(*c), cmp_arrival);
		arrival_key = 1;
		qsort(k, nk, sizeof(*k), cmp_arrival);
		memcpy(bk, k, nk * sizeof(*k));
		w = window_needed(c, nc, k, nk);
		tight += w < nc || w < nk;
		batch_join(b, nb, bk, nk, &sb);
		no = stream_join(c, nc, k, nk, w, &ss);
		for (size_t i = 0, j = 0; i < no; i++) {
			if (c[i].flags & KPROF_CJ_OTHER) {
				others--;
				continue;
			}
			differ += j >= nb || memcmp(&c[i], &b[j], sizeof(c[i]));
			j++;
		}
		differ += others != 0 || no < nb || memcmp(&sb, &ss, sizeof(sb));
	}
	KT_EQ_U64(differ, 0);
	/* the windows were smaller than the captures: records were held back */
	KT_CHECK(tight > RUNS / 2, "tight windows in %" PRIu64 " runs of %d", tight, RUNS);
out:
	free(c);
	free(b);
	free(k);
	free(bk);
}

static void test_late(void)
{
	/* a call handed over after the window closed past it */
	struct kprof_cj_call c[5] = {
		call(100, 110, 1, 0), call(200, 210, 1, 1), call(300, 310, 1, 2),
		call(400, 410, 1, 3), call(50, 60, 1, 4),
	};
	struct kprof_cj_kernel k[5] = { { 1, 60 }, { 2, 150 }, { 3, 250 }, { 4, 350 }, { 5, 450 } };
	struct kprof_cj_kernel k2[4] = { { 2, 250 }, { 3, 350 }, { 4, 450 }, { 1, 150 } };
	struct kprof_cj_stats st;

	KT_EQ_U64(stream_join(c, 5, k, 5, 2, &st), 4);
	KT_EQ_U64(st.late_calls, 1);
	KT_EQ_U64(st.calls, 5);
	KT_EQ_U64(st.calls_unmatched, 1);
	/* its launch cannot be the next call's (causal): the rest still join */
	KT_EQ_U64(st.matched, 4);
	KT_EQ_U64(st.causal_skips, 1);
	for (uint32_t i = 0; i < 4; i++)
		KT_EQ_U64(corr_of(c, 4, i), i + 2);
	/* a kernel after the window: counted, not a launch */
	for (uint32_t i = 0; i < 4; i++)
		c[i] = call(100 * (i + 1), 100 * (i + 1) + 10, 1, i);
	KT_EQ_U64(stream_join(c, 4, k2, 4, 2, &st), 4);
	KT_EQ_U64(st.late_kernels, 1);
	KT_EQ_U64(st.launches, 3);
	KT_EQ_U64(st.matched + st.calls_unmatched, 4);
}

static void test_window_edge(void)
{
	/* a record after exactly window larger ones is in time; after one
	 * more it is late
	 */
	struct kprof_cj_call c[5];
	struct kprof_cj_kernel k[5];
	struct kprof_cj_stats st;

	for (size_t w = 3; w <= 4; w++) {
		for (uint32_t i = 0; i < 4; i++) {
			c[i] = call(100 * (i + 1), 100 * (i + 1) + 10, 1, i);
			k[i] = (struct kprof_cj_kernel){ i + 2, 1000 + i };
		}
		c[4] = call(50, 60, 1, 4);
		k[4] = (struct kprof_cj_kernel){ 1, 900 };
		stream_join(c, 5, k, 5, w, &st);
		KT_EQ_U64(st.late_calls, w == 3);
		KT_EQ_U64(st.late_kernels, w == 3);
		KT_EQ_U64(st.matched, w == 3 ? 4 : 5);
	}
}

static void test_window_full(void)
{
	/* thread 1's call spans more calls than the window holds: it goes
	 * before the overlap that makes it ambiguous is seen; the count
	 * still has it
	 */
	struct kprof_cj_call c[7], b[7];
	struct kprof_cj_kernel k[7], bk[7];
	struct kprof_cj_stats st, sb;

	c[0] = call(100, 10000, 1, 0);
	for (uint32_t i = 1; i < 6; i++)
		c[i] = call(100 + 100 * i, 150 + 100 * i, 1, i);
	c[6] = call(700, 750, 2, 6);
	for (uint32_t i = 0; i < 7; i++)
		k[i] = (struct kprof_cj_kernel){ i + 1, 20000 + i };
	memcpy(b, c, sizeof(c));
	memcpy(bk, k, sizeof(k));
	batch_join(b, 7, bk, 7, &sb);
	KT_EQ_U64(stream_join(c, 7, k, 7, 4, &st), 7);
	KT_EQ_U64(sb.ambiguous, 2);
	KT_CHECK(!memcmp(&st, &sb, sizeof(st)), "the stats of a full window are the batch's");
	for (uint32_t i = 0; i < 7; i++)
		KT_EQ_U64(c[i].corr, b[i].corr);
}

int main(void)
{
	test_in_order();
	test_graph();
	test_unseen_launch();
	test_leftovers();
	test_overlap();
	test_many();
	test_against_batch();
	test_late();
	test_window_edge();
	test_window_full();
	return kt_done("test_cudajoin");
}
