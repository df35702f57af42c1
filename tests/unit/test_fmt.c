// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_fmt_fixed: the bytes of snprintf("%.*f") for every precision it
 * takes, on ties, carries, signs, the edges of its exact path, and random
 * values of every magnitude and of the kinds report.html formats.
 * kprof_fmt_u64: the bytes of "%" PRIu64 at every number of digits, on
 * either side of each power of ten, and on random values.
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_fmt.h"

#include <float.h>
#include <inttypes.h>

static uint64_t rng = 0x243f6a8885a308d3ULL;
static unsigned long mismatches;

static void one_u64(uint64_t v, unsigned long *bad)
{
	char want[32], got[32];
	int nw = snprintf(want, sizeof(want), "%" PRIu64, v);
	char *e = kprof_fmt_u64(got, v);

	*bad += e - got != nw || memcmp(got, want, (size_t)nw);
}

static void u64_values(void)
{
	unsigned long bad = 0;
	uint64_t p = 1;

	one_u64(0, &bad);
	one_u64(UINT64_MAX, &bad);
	for (int k = 0; k < 20; k++, p *= 10) {
		one_u64(p, &bad);
		one_u64(p - 1, &bad);
		one_u64(p + 1, &bad);
		one_u64(p * 9 + p - 1, &bad);
	}
	for (int i = 0; i < 1000000; i++) {
		uint64_t v = kt_xorshift(&rng);

		/* every length: a random value cut to a random number of bits */
		one_u64(v >> (i % 64), &bad);
	}
	KT_EQ_U64(bad, 0);
}

static void one(double v, unsigned int prec)
{
	char want[KPROF_FMT_FIXED_MAX], got[KPROF_FMT_FIXED_MAX];
	int nw = snprintf(want, sizeof(want), "%.*f", (int)prec, v);
	int ng = kprof_fmt_fixed(got, sizeof(got), v, prec);

	if (nw == ng && !strcmp(want, got)) {
		kt_checks++;
		return;
	}
	/* every mismatch counts; the first few are shown */
	if (mismatches++ < 10)
		KT_CHECK(0, "%.17g at %u: \"%s\" (%d), printf \"%s\" (%d)", v, prec, got, ng,
			 want, nw);
	else
		kt_failures++;
}

static void all_prec(double v)
{
	for (unsigned int p = 0; p <= 9; p++) {
		one(v, p);
		one(-v, p);
	}
}

static double rnd_unit(void)
{
	return (double)(kt_xorshift(&rng) >> 11) / 9007199254740992.0;
}

int main(void)
{
	static const double edge[] = {
		0, 0.5, 1.5, 2.5, 0.125, 0.0625, 0.03125, 1e-10, 5e-10, 4.999999999e-10,
		0.0005, 0.00049999999999999999, 0.9995, 0.99949999999999994, 9.9995,
		999.9995, 0.05, 0.15, 0.25, 0.35, 1.0 / 3, 2.0 / 3, 123456.7890125,
		4503599627370495.5, 4503599627370496.0, 9007199254740991.0,
		9007199254740992.0, 1e300, DBL_MIN, DBL_TRUE_MIN, DBL_MAX, 1e15 + 0.5,
		0.1, 0.2, 0.3, 12.34567890125, 7.0 / 1024, 2.5e-9, 3.5e-9, 5e-4, 5e-7,
	};
	char small[4];
	int n;

	for (size_t i = 0; i < ARRAY_SIZE(edge); i++)
		all_prec(edge[i]);
	/* exact ties at every precision: k / 2^j */
	for (int j = 1; j <= 30; j++)
		for (int k = 1; k < 64; k += 2)
			all_prec(ldexp(k, -j));
	/* random bit patterns of every exponent a double has */
	for (int i = 0; i < 300000; i++) {
		uint64_t bits = kt_xorshift(&rng);
		double v;

		memcpy(&v, &bits, sizeof(v));
		one(v, (unsigned int)(i % 10));
	}
	/* what report.html writes: pixels and ms offsets of ns timestamps */
	for (int i = 0; i < 300000; i++) {
		double span = ldexp(1 + rnd_unit(), (int)(kt_xorshift(&rng) % 50));
		double t = rnd_unit() * span;

		one(40 + t / span * 1000, 1);
		one(t / 1e6, 3);
		one(t / 1e3, 3);
		one((double)(kt_xorshift(&rng) % 100000000) / 1000, (unsigned int)(i % 4));
	}
	one(NAN, 3);
	one(INFINITY, 1);
	one(-INFINITY, 0);
	/* a short buffer: cut and NUL-terminated, the whole length returned */
	n = kprof_fmt_fixed(small, sizeof(small), 12345.678, 3);
	KT_CHECK(n == 9 && !strcmp(small, "123"), "%d \"%s\"", n, small);
	n = kprof_fmt_fixed(NULL, 0, -1.25, 1);
	KT_CHECK(n == 4, "%d", n);
	if (mismatches)
		fprintf(stderr, "test_fmt: %lu values differ from printf\n", mismatches);
	u64_values();
	return kt_done("test_fmt");
}
