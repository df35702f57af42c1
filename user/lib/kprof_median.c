// SPDX-License-Identifier: GPL-2.0
/* Exact medians in bounded memory over repeated passes (see kprof_median.h). */
#include "kprof_median.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIGN	(1ULL << 63)
#define DIGITS	256		/* radix: 8 key bits per pass */

enum { T_RADIX, T_COLLECT, T_FOLLOW, T_DONE };

/* One wanted order statistic: the rank-th smallest of its group. */
struct target {
	size_t group;
	uint64_t rank;		/* among the candidates */
	uint64_t prefix;	/* the candidates' top `bits` key bits */
	unsigned int bits;
	uint64_t cand;		/* candidates a pass must see */
	uint64_t seen;
	int mode;
	uint64_t *hist;		/* T_RADIX */
	double *vals;		/* T_COLLECT */
	double value;		/* T_DONE */
};

struct kprof_median {
	size_t ngroups, ntargets;
	size_t *first;		/* per group: index of its first target */
	unsigned char *nt;	/* per group: 0, 1 or 2 targets */
	struct target *t;
	size_t budget;
	unsigned int passes;
	int done;
};

/* Order-preserving map of finite doubles to unsigned 64-bit keys. */
static uint64_t key(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return (u & SIGN) ? ~u : u | SIGN;
}

static double unkey(uint64_t k)
{
	uint64_t u = (k & SIGN) ? k & ~SIGN : ~k;
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/*
 * Chooses how each open target works the next pass. The second median
 * of a group reads the first one's data while both have the same
 * candidates (the usual case: both middle values in one bucket).
 */
static int plan(struct kprof_median *m, struct kprof_err *err)
{
	size_t left = m->budget;

	m->done = 1;
	for (size_t i = 0; i < m->ntargets; i++) {
		struct target *t = &m->t[i];

		free(t->hist);
		free(t->vals);
		t->hist = NULL;
		t->vals = NULL;
		t->seen = 0;
	}
	for (size_t i = 0; i < m->ntargets; i++) {
		struct target *t = &m->t[i], *p = i ? &m->t[i - 1] : NULL;

		if (t->mode == T_DONE)
			continue;
		m->done = 0;
		if (p && p->group == t->group && p->mode != T_DONE &&
		    p->bits == t->bits && p->prefix == t->prefix) {
			t->mode = T_FOLLOW;
		} else if (t->cand <= left) {
			t->mode = T_COLLECT;
			t->vals = malloc(t->cand * sizeof(*t->vals));
			left -= t->cand;
		} else {
			t->mode = T_RADIX;
			t->hist = calloc(DIGITS, sizeof(*t->hist));
		}
		if ((t->mode == T_COLLECT && !t->vals) || (t->mode == T_RADIX && !t->hist))
			return kprof_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

struct kprof_median *kprof_median_new(size_t ngroups, const uint64_t *counts, size_t budget,
				      struct kprof_err *err)
{
	struct kprof_median *m = calloc(1, sizeof(*m));

	if (!m)
		goto nomem;
	m->ngroups = ngroups;
	m->budget = budget;
	m->first = calloc(ngroups ? ngroups : 1, sizeof(*m->first));
	m->nt = calloc(ngroups ? ngroups : 1, sizeof(*m->nt));
	m->t = calloc(ngroups ? 2 * ngroups : 1, sizeof(*m->t));
	if (!m->first || !m->nt || !m->t)
		goto nomem;
	for (size_t g = 0; g < ngroups; g++) {
		uint64_t n = counts[g];

		m->first[g] = m->ntargets;
		if (!n)
			continue;
		/* ranks (n-1)/2 and n/2: one target when n is odd */
		for (uint64_t r = (n - 1) / 2; r <= n / 2; r++) {
			struct target *t = &m->t[m->ntargets++];

			t->group = g;
			t->rank = r;
			t->cand = n;
			m->nt[g]++;
		}
	}
	if (plan(m, err)) {
		kprof_median_free(m);
		return NULL;
	}
	return m;
nomem:
	kprof_median_free(m);
	kprof_err_set(err, ENOMEM, "out of memory");
	return NULL;
}

int kprof_median_done(const struct kprof_median *m)
{
	return m->done;
}

void kprof_median_add(struct kprof_median *m, size_t group, double v)
{
	uint64_t k = key(v);

	if (group >= m->ngroups)
		return;
	for (size_t i = m->first[group]; i < m->first[group] + m->nt[group]; i++) {
		struct target *t = &m->t[i];

		if (t->mode == T_DONE || t->mode == T_FOLLOW)
			continue;
		if (t->bits && (k >> (64 - t->bits)) != t->prefix)
			continue;
		if (t->mode == T_RADIX)
			t->hist[(k >> (56 - t->bits)) & (DIGITS - 1)]++;
		else if (t->seen < t->cand)
			t->vals[t->seen] = v;
		t->seen++;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int kprof_median_pass_end(struct kprof_median *m, struct kprof_err *err)
{
	if (m->done)
		return 0;
	m->passes++;
	for (size_t i = 0; i < m->ntargets; i++) {
		struct target *t = &m->t[i];
		/* a follower's leader is the target before it */
		const struct target *src = t->mode == T_FOLLOW ? &m->t[i - 1] : t;
		uint64_t cum = 0;
		unsigned int b;

		if (t->mode == T_DONE)
			continue;
		if (t->mode != T_FOLLOW && t->seen != t->cand)
			return kprof_err_set(err, EBADMSG,
					     "median pass: %llu values where %llu were counted (the input changed while it was read)",
					     (unsigned long long)t->seen,
					     (unsigned long long)t->cand);
		if (src->vals) {
			if (t->mode == T_COLLECT)
				qsort(t->vals, t->cand, sizeof(*t->vals), cmp_double);
			t->value = src->vals[t->rank];
			t->mode = T_DONE;
			continue;
		}
		for (b = 0; b < DIGITS && t->rank >= cum + src->hist[b]; b++)
			cum += src->hist[b];
		t->rank -= cum;
		t->cand = src->hist[b];
		t->prefix = (t->prefix << 8) | b;
		t->bits += 8;
		if (t->bits == 64) {
			t->value = unkey(t->prefix);
			t->mode = T_DONE;
		}
	}
	return plan(m, err);
}

double kprof_median_get(const struct kprof_median *m, size_t group)
{
	double a, b;

	if (group >= m->ngroups || !m->done || !m->nt[group])
		return NAN;
	a = m->t[m->first[group]].value;
	if (m->nt[group] == 1)
		return a;
	b = m->t[m->first[group] + 1].value;
	/* halves first when the sum would overflow (values near DBL_MAX) */
	return isfinite(a + b) ? (a + b) / 2 : a / 2 + b / 2;
}

unsigned int kprof_median_passes(const struct kprof_median *m)
{
	return m->passes;
}

void kprof_median_free(struct kprof_median *m)
{
	if (!m)
		return;
	if (m->t)
		for (size_t i = 0; i < m->ntargets; i++) {
			free(m->t[i].hist);
			free(m->t[i].vals);
		}
	free(m->t);
	free(m->first);
	free(m->nt);
	free(m);
}
