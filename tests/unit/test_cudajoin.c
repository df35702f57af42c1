// SPDX-License-Identifier: GPL-2.0
/*
 * The join of uprobe launch calls to CUPTI kernel records
 * (kprof_cudajoin.c): exact in order, graph launches, launches the
 * uprobes did not see, calls without kernels, overlapping threads.
 */
#include "kt.h"
#include "kprof_cudajoin.h"

static struct kprof_cj_call call(uint64_t enter, uint64_t exit, uint32_t tid, uint32_t index)
{
	return (struct kprof_cj_call){ .enter_ns = enter, .exit_ns = exit, .tid = tid,
				       .index = index };
}

/* the corr joined to the caller's call index i (sorted away from i) */
static uint32_t corr_of(const struct kprof_cj_call *c, size_t n, uint32_t index)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].index == index)
			return c[i].corr;
	return ~0U;
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

	kprof_cudajoin(c, 5, k, 5, &st);
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

	kprof_cudajoin(c, 2, k, 4, &st);
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

	kprof_cudajoin(c, 2, k, 3, &st);
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
	kprof_cudajoin(c, 3, k, 2, &st);
	KT_EQ_U64(st.matched, 2);
	KT_EQ_U64(st.calls_unmatched, 1);
	KT_EQ_U64(corr_of(c, 3, 2), 0);
	/* a kernel past the last call: counted */
	c[0] = call(100, 110, 1, 0);
	c[1] = call(200, 210, 1, 1);
	c[2] = call(300, 310, 1, 2);
	kprof_cudajoin(c, 3, k, 4, &st);
	KT_EQ_U64(st.matched, 3);
	KT_EQ_U64(st.kernels_unmatched, 1);
	KT_EQ_U64(st.causal_skips, 0);
	/* no calls at all (BPF not there): every launch counted */
	kprof_cudajoin(c, 0, k, 4, &st);
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

	kprof_cudajoin(c, 4, k, 4, &st);
	KT_EQ_U64(st.matched, 4);
	KT_EQ_U64(st.ambiguous, 2);
	for (size_t i = 0; i < 4; i++)
		KT_EQ_U64(!!(c[i].flags & KPROF_CJ_AMBIGUOUS), c[i].index < 2);
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
	/* shuffle the kernels, as CUPTI's buffers of several streams may */
	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(kt_xorshift(&seed) % (i + 1));
		struct kprof_cj_kernel x = k[i];

		k[i] = k[j];
		k[j] = x;
	}
	kprof_cudajoin(c, N, k, N, &st);
	for (uint32_t i = 0; i < N; i++)
		bad += c[i].corr != 2 * c[i].index + 1;
	KT_EQ_U64(bad, 0);
	KT_EQ_U64(st.matched, N);
	KT_EQ_U64(st.ambiguous + st.kernels_unmatched + st.calls_unmatched, 0);
	free(c);
	free(k);
}

int main(void)
{
	test_in_order();
	test_graph();
	test_unseen_launch();
	test_leftovers();
	test_overlap();
	test_many();
	return kt_done("test_cudajoin");
}
