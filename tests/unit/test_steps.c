// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_steps: op classes (NCCL collectives, copies, compute), the class
 * times per device, and the slowest device per step (the one whose step
 * marker starts last), against figures computed here from the same ops.
 */
#include "kt.h"

#include <math.h>

#include "kprof_steps.h"

static void classes(void)
{
	KT_CHECK(kprof_op_class("ncclKernel_AllReduce_RING_LL_Sum_float") ==
		 KPROF_OPC_COLLECTIVE, "ncclKernel_");
	KT_CHECK(kprof_op_class("ncclDevKernel_AllReduce_Sum_f32_RING_LL") ==
		 KPROF_OPC_COLLECTIVE, "ncclDevKernel_");
	KT_CHECK(kprof_op_class("[memcpy HtoD]") == KPROF_OPC_COPY, "memcpy");
	KT_CHECK(kprof_op_class("[memset]") == KPROF_OPC_COPY, "memset");
	KT_CHECK(kprof_op_class("ampere_sgemm_128x64_nn") == KPROF_OPC_COMPUTE, "gemm");
	KT_CHECK(kprof_op_class("my_ncclKernel_x") == KPROF_OPC_COMPUTE, "prefix only");
	KT_CHECK(kprof_op_class("matmul") == KPROF_OPC_COMPUTE, "sim op");
}

/*
 * Two devices, 200 steps each: compute then an all-reduce; which device
 * arrives last varies by a pseudo-random draw, ops are fed out of time
 * order. The class sums and each step's slowest and lateness are checked
 * against what was drawn.
 */
static void two_devices(void)
{
	enum { N = 200 };
	struct kprof_steps *s = kprof_steps_new(2, NULL);
	double arrive[2][N], compute[2] = { 0, 0 }, coll[2] = { 0, 0 };
	uint64_t seed = 7;
	char *md = NULL;
	size_t len = 0;
	FILE *f;

	KT_CHECK(s, "new");
	for (int k = 0; k < N; k++) {
		double base = 1e6 * k;

		for (int d = 0; d < 2; d++) {
			double c = (double)(1000 + kt_xorshift(&seed) % 5000);

			arrive[d][k] = base + c;
			compute[d] += c;
		}
	}
	/* the newest first: the k-th marker is the k-th by time, not by row */
	for (int k = N - 1; k >= 0; k--) {
		for (int d = 0; d < 2; d++) {
			double end = fmax(arrive[0][k], arrive[1][k]) + 500;
			double cl = end - arrive[d][k];

			KT_CHECK(!kprof_steps_op(s, (unsigned int)d, "gemm", 1e6 * k,
						 arrive[d][k] - 1e6 * k), "op");
			KT_CHECK(!kprof_steps_op(s, (unsigned int)d,
						 "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
						 arrive[d][k], cl), "op");
			KT_CHECK(!kprof_steps_op(s, (unsigned int)d, "[memcpy DtoH]", NAN, 10),
				 "op");
			coll[d] += cl;
		}
	}
	for (unsigned int d = 0; d < 2; d++) {
		KT_NEAR(kprof_steps_class_ns(s, d, KPROF_OPC_COMPUTE), compute[d], 1e-3);
		KT_NEAR(kprof_steps_class_ns(s, d, KPROF_OPC_COLLECTIVE), coll[d], 1e-3);
		KT_NEAR(kprof_steps_class_ns(s, d, KPROF_OPC_COPY), 10.0 * N, 0);
		KT_EQ_U64(kprof_steps_markers(s, d), N);
	}
	KT_EQ_U64(kprof_steps_count(s), N);
	for (int k = 0; k < N; k++) {
		int want = arrive[1][k] > arrive[0][k] ? 1 : 0;
		double late = -1;

		KT_EQ_U64(kprof_steps_slowest(s, (size_t)k, &late), want);
		KT_NEAR(late, fabs(arrive[1][k] - arrive[0][k]), 1e-6);
	}
	KT_CHECK(kprof_steps_slowest(s, N, NULL) == -1, "past the last step");

	f = open_memstream(&md, &len);
	kprof_steps_md(f, s, (const char *const[]){ "nvidia:0", "nvidia:1" });
	fclose(f);
	KT_CHECK(strstr(md, "## Collectives and compute"), "classes section:\n%s", md);
	KT_CHECK(strstr(md, "an op matching nccl\\*AllReduce\\* starts"),
		 "the step pattern named:\n%s", md);
	KT_CHECK(strstr(md, "Markers per device: nvidia:0 200, nvidia:1 200."), "markers:\n%s", md);
	KT_CHECK(strstr(md, "Over 200 steps"), "summary:\n%s", md);
	free(md);

	/* one more marker on device 1: compared up to the least count, said */
	KT_CHECK(!kprof_steps_op(s, 1, "ncclKernel_AllReduce_x", 1e9, 1), "op");
	KT_EQ_U64(kprof_steps_count(s), N);
	md = NULL;
	f = open_memstream(&md, &len);
	kprof_steps_md(f, s, (const char *const[]){ "0", "1" });
	fclose(f);
	KT_CHECK(strstr(md, "different marker counts: the first 200"), "counts differ:\n%s", md);
	free(md);
	kprof_steps_free(s);
}

/* A user's pattern; a device without markers: nothing compared, said. */
static void no_steps(void)
{
	struct kprof_steps *s = kprof_steps_new(2, "matmul*");
	char *md = NULL;
	size_t len = 0;
	FILE *f;

	KT_CHECK(!kprof_steps_op(s, 0, "matmul_a", 5, 1), "op");
	KT_CHECK(!kprof_steps_op(s, 1, "add", 5, 1), "op");
	KT_CHECK(!kprof_steps_op(s, 1, "matmul_b", NAN, 1), "op without a start");
	KT_EQ_U64(kprof_steps_count(s), 0);
	KT_EQ_U64(kprof_steps_markers(s, 0), 1);
	KT_EQ_U64(kprof_steps_markers(s, 1), 0);
	f = open_memstream(&md, &len);
	kprof_steps_md(f, s, (const char *const[]){ "0", "1" });
	fclose(f);
	KT_CHECK(strstr(md, "No step to compare"), "none:\n%s", md);
	free(md);
	kprof_steps_free(s);
}

int main(void)
{
	classes();
	two_devices();
	no_steps();
	return kt_done("test_steps");
}
