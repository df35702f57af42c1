// SPDX-License-Identifier: GPL-2.0
/* kprof_median: exact medians in bounded memory, against sorting. */
#include "kt.h"
#include "kprof_median.h"

#include <errno.h>
#include <float.h>

#define NG 5

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	return kt_xorshift(&rng);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median by sorting a copy. */
static double ref_median(const double *v, size_t n)
{
	double *c = malloc(n * sizeof(*c)), r;

	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp);
	if (n % 2)
		r = c[n / 2];
	else if (isfinite(c[n / 2 - 1] + c[n / 2]))
		r = (c[n / 2 - 1] + c[n / 2]) / 2;
	else	/* the mean of two values near DBL_MAX is finite */
		r = c[n / 2 - 1] / 2 + c[n / 2] / 2;
	free(c);
	return r;
}

/*
 * Groups g of values vals[g][0..counts[g]) through kprof_median with a
 * budget; every median must equal the sorted one exactly.
 */
static void check(const char *what, double **vals, const uint64_t *counts, size_t budget,
		  unsigned int max_passes)
{
	struct kprof_err err = { 0 };
	struct kprof_median *m = kprof_median_new(NG, counts, budget, &err);

	KT_CHECK(m, "%s: new: %s", what, err.msg);
	if (!m)
		return;
	while (!kprof_median_done(m)) {
		/* the values in a different order each pass, groups interleaved */
		size_t idx[NG] = { 0 };
		int left = 1;

		while (left) {
			left = 0;
			for (size_t g = 0; g < NG; g++) {
				if (idx[g] >= counts[g])
					continue;
				left = 1;
				kprof_median_add(m, g, vals[g][counts[g] - 1 - idx[g]++]);
			}
		}
		KT_CHECK(kprof_median_pass_end(m, &err) == 0, "%s: pass: %s", what, err.msg);
		if (kprof_median_passes(m) > 9)
			break;
	}
	KT_CHECK(kprof_median_passes(m) <= max_passes, "%s: %u passes, at most %u expected",
		 what, kprof_median_passes(m), max_passes);
	for (size_t g = 0; g < NG; g++) {
		double got = kprof_median_get(m, g);

		if (!counts[g]) {
			KT_CHECK(isnan(got), "%s: empty group %zu gives NAN", what, g);
			continue;
		}
		double want = ref_median(vals[g], counts[g]);

		KT_CHECK(got == want, "%s: group %zu median %.17g, sorted %.17g",
			 what, g, got, want);
	}
	kprof_median_free(m);
}

int main(void)
{
	uint64_t counts[NG] = { 1, 2, 1000, 0, 100001 };
	double *vals[NG];

	for (size_t g = 0; g < NG; g++)
		vals[g] = malloc((counts[g] ? counts[g] : 1) * sizeof(double));
	/* durations in ns as ops.csv has them, with many equal values */
	vals[0][0] = 1234;
	vals[1][0] = 10;
	vals[1][1] = 11;
	for (size_t i = 0; i < counts[2]; i++)
		vals[2][i] = (double)(next() % 50) * 100;
	for (size_t i = 0; i < counts[4]; i++)
		vals[4][i] = (double)(100000 + next() % 1000000);
	check("all collected", vals, counts, SIZE_MAX, 1);
	check("radix only (budget 0)", vals, counts, 0, 9);
	check("radix then collect", vals, counts, 4096, 9);

	/* signs, zeros, extremes, denormals and fractions */
	for (size_t i = 0; i < counts[2]; i++) {
		static const double special[] = { -DBL_MAX, DBL_MAX, -0.0, 0.0, DBL_MIN,
						   -DBL_MIN, 4.9e-324, -4.9e-324, 0.5, -1e300 };

		vals[2][i] = i % 3 ? special[next() % 10] : ((double)(int64_t)next()) / 3;
	}
	for (size_t i = 0; i < counts[4]; i++)
		vals[4][i] = ((double)(int64_t)next()) * 1e-10;
	check("special values, radix", vals, counts, 0, 9);
	check("special values, collected", vals, counts, SIZE_MAX, 1);
	/* even count whose middle pair straddles two radix buckets */
	vals[1][0] = -1;
	vals[1][1] = DBL_MAX;
	check("straddling pair", vals, counts, 0, 9);
	vals[1][1] = 1e308;
	vals[1][0] = 1e308;
	check("pair near DBL_MAX", vals, counts, SIZE_MAX, 1);

	/* a pass that does not see what was counted is an error, not a guess */
	{
		struct kprof_err err = { 0 };
		uint64_t c[1] = { 3 };
		struct kprof_median *m = kprof_median_new(1, c, 0, &err);

		KT_CHECK(m, "new: %s", err.msg);
		if (m) {
			kprof_median_add(m, 0, 1);
			kprof_median_add(m, 0, 2);
			KT_CHECK(kprof_median_pass_end(m, &err) == -EBADMSG &&
				 strstr(err.msg, "changed"), "short pass: %s", err.msg);
			kprof_median_free(m);
		}
	}
	for (size_t g = 0; g < NG; g++)
		free(vals[g]);
	return kt_done("test_median");
}
