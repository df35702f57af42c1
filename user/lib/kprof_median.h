/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact medians of many groups of values in bounded memory, for outputs
 * made from files whose length grows with the capture (report.html's
 * per-kind median from ops.csv). The caller streams the values again
 * for each pass until kprof_median_done():
 *
 *	m = kprof_median_new(ngroups, counts, budget, &err);
 *	while (!kprof_median_done(m)) {
 *		for each value v of group g: kprof_median_add(m, g, v);
 *		kprof_median_pass_end(m, &err);
 *	}
 *
 * A group whose candidates fit the budget (values held at once, over all
 * groups) is collected and sorted; the others are narrowed by a radix
 * pass, 8 bits of the value's order-preserving 64-bit key at a time. So
 * a pass holds at most budget values plus 2 KiB per median, and there
 * are at most 9 passes; with the budget above the total, one.
 */
#ifndef KPROF_MEDIAN_H
#define KPROF_MEDIAN_H

#include <stddef.h>
#include <stdint.h>

#include "kprof_err.h"

struct kprof_median;

/*
 * counts[g]: how many values group g will get in every pass (finite
 * doubles). NULL with err set on allocation failure.
 */
struct kprof_median *kprof_median_new(size_t ngroups, const uint64_t *counts, size_t budget,
				      struct kprof_err *err);
int kprof_median_done(const struct kprof_median *m);
void kprof_median_add(struct kprof_median *m, size_t group, double v);
/*
 * Ends a pass. -EBADMSG with err set if the pass did not give each group
 * the values the counts promise (the input changed between passes).
 */
int kprof_median_pass_end(struct kprof_median *m, struct kprof_err *err);
/* Median of group g (mean of the two middle values for an even count); NAN if empty. */
double kprof_median_get(const struct kprof_median *m, size_t group);
/* Passes made so far. */
unsigned int kprof_median_passes(const struct kprof_median *m);
void kprof_median_free(struct kprof_median *m);

#endif /* KPROF_MEDIAN_H */
