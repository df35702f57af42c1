/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Baseline diff of two captures by op kind (OP CODE): per kind and
 * metric (device kernel / FW duration, host duration, each counter's
 * per-op SUM), count, mean, median, total and % change of the median,
 * flagged when the change is beyond run-to-run noise.
 *
 * Noise rule (docs/formats.md, "diff CSV"): per capture, the spread of a
 * metric is the scaled MAD s = 1.4826 * median(|x - median(x)|); the
 * standard error of its median is 1.2533 * s / sqrt(n). A change
 * d = median(B) - median(A) is flagged when |d| / median(A) exceeds the
 * threshold (%) AND |d| > k * sqrt(seA^2 + seB^2). Kinds with fewer than
 * two values on either side have no noise estimate and are not flagged.
 */
#ifndef KPROF_DIFF_H
#define KPROF_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "kprof_err.h"

struct kprof_diff;

struct kprof_diff_opts {
	double threshold_pct;	/* 0: KPROF_DIFF_THRESHOLD_PCT */
	double k;		/* 0: KPROF_DIFF_K */
};

#define KPROF_DIFF_THRESHOLD_PCT	5.0
#define KPROF_DIFF_K			3.0

enum kprof_diff_flag {
	KPROF_DIFF_SAME = 0,	/* within threshold or noise */
	KPROF_DIFF_SLOWER,	/* metric grew beyond noise */
	KPROF_DIFF_FASTER,	/* metric shrank beyond noise */
	KPROF_DIFF_ONLY_A,	/* op kind (or metric) missing in B */
	KPROF_DIFF_ONLY_B,	/* missing in A */
	KPROF_DIFF_FEW,		/* < 2 values on a side: no noise estimate */
};

struct kprof_diff_row {
	const char *op;		/* OP CODE ("" allowed) */
	const char *metric;
	size_t na, nb;
	double mean_a, mean_b, med_a, med_b, tot_a, tot_b;
	double change_pct;	/* (med_b - med_a) / med_a * 100; NAN if undefined */
	double noise_pct;	/* k * pooled SE of the medians, % of med_a; NAN if unknown */
	enum kprof_diff_flag flag;
};

struct kprof_diff *kprof_diff_new(void);
void kprof_diff_free(struct kprof_diff *d);
/* One value of a metric for one op of kind op, side 0 (A) or 1 (B). */
int kprof_diff_add(struct kprof_diff *d, int side, const char *op, const char *metric,
		   double v);
/* Adds every op of a capture directory (ops.csv, counters.csv if present). */
int kprof_diff_add_capture(struct kprof_diff *d, int side, const char *dir,
			   struct kprof_err *err);
/* Rows sorted by op kind, metrics in first-seen order; valid until free. */
int kprof_diff_compute(struct kprof_diff *d, const struct kprof_diff_opts *opts,
		       const struct kprof_diff_row **rows, size_t *n);
const char *kprof_diff_flag_name(enum kprof_diff_flag f);
/* Aligned table, at most 100 columns wide. */
void kprof_diff_print(FILE *f, const struct kprof_diff_row *rows, size_t n);
/* CSV (docs/formats.md "diff CSV"). Returns 0 or -errno. */
int kprof_diff_write_csv(FILE *f, const struct kprof_diff_row *rows, size_t n);

#endif /* KPROF_DIFF_H */
