/* SPDX-License-Identifier: GPL-2.0 */
/*
 * External merge sort of fixed-size records, for outputs that need every
 * event of a capture in time order (trace.json's busy counter) without
 * memory that grows with the capture. Records are sorted in memory in
 * runs of up to run_len; each full run is written to an unlinked
 * temporary file in the output directory; reading merges the runs. Equal
 * records (cmp 0) may come in any order, so cmp should order on every
 * field.
 */
#ifndef KPROF_XSORT_H
#define KPROF_XSORT_H

#include <stddef.h>

#include "kprof_err.h"

struct kprof_xsort;

struct kprof_outdir;

/* NULL with err set on allocation failure. od (kept, not owned) is only
 * used to spill (kprof_outdir_tmpfile).
 */
struct kprof_xsort *kprof_xsort_new(size_t size, int (*cmp)(const void *, const void *),
				    size_t run_len, struct kprof_outdir *od,
				    struct kprof_err *err);
/* 0 or -errno with err set (out of memory, temporary file not writable). */
int kprof_xsort_add(struct kprof_xsort *x, const void *rec, struct kprof_err *err);
/*
 * After the last add: 1 with *rec at the next record in order (valid
 * until the next call), 0 at the end, -errno with err set.
 */
int kprof_xsort_next(struct kprof_xsort *x, const void **rec, struct kprof_err *err);
/* Runs written to the temporary file so far (0: all in memory). */
unsigned int kprof_xsort_runs(const struct kprof_xsort *x);
void kprof_xsort_free(struct kprof_xsort *x);

#endif /* KPROF_XSORT_H */
