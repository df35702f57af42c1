/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Roofline per op (docs/formats.md, roofline.csv and report.md): FLOPs and
 * bytes from an op's counters against a device peaks file give arithmetic
 * intensity, achieved FLOP/s and bytes/s, the attainable roof and a
 * memory-, compute- or latency-bound label; per op kind, the estimated
 * gain (time x (1 - efficiency)) ranks the opportunities.
 */
#ifndef KPROF_ROOFLINE_H
#define KPROF_ROOFLINE_H

#include <stdint.h>
#include <linux/kprof.h>

#include "kprof_agg.h"
#include "kprof_bubbles.h"
#include "kprof_err.h"
#include "kprof_peaks.h"

enum kprof_bound {
	KPROF_BOUND_NONE,	/* no counters or no time: not classified */
	KPROF_BOUND_MEMORY,
	KPROF_BOUND_COMPUTE,
	KPROF_BOUND_LATENCY,
	KPROF_BOUND_COUNT
};

const char *kprof_bound_name(enum kprof_bound b);

/* One op on the roofline. Rates per second, fractions 0..1 (may exceed 1
 * if the peaks file is too low).
 */
struct kprof_roof_point {
	double flops, bytes, time_ns;
	double intensity;		/* FLOP per byte; INFINITY if bytes == 0 */
	double peak_flops, peak_bytes;	/* for this op's cores and clock */
	double ridge;			/* peak_flops / peak_bytes */
	double achieved_flops, achieved_bytes;
	double attainable_flops;	/* min(peak_flops, intensity x peak_bytes) */
	double flops_frac, bytes_frac;	/* achieved / peak */
	double efficiency;		/* achieved_flops / attainable, <= 1 */
	enum kprof_bound bound;
};

/* Pure: fills pt; returns the label. cores 0 counts as 1; clock 0 unknown. */
enum kprof_bound kprof_roofline_eval(const struct kprof_peaks *p, double flops, double bytes,
				     double time_ns, unsigned int cores, double clock_mhz,
				     struct kprof_roof_point *pt);

struct kprof_roof_kind {
	char op_code[KPROF_OP_CODE_LEN];
	uint64_t ops, ops_classified;
	double time_ns;			/* all ops of the kind */
	double class_time_ns;		/* ops with a label */
	double bound_time_ns[KPROF_BOUND_COUNT];
	double flops, bytes;
	double gain_ns;			/* sum of time x (1 - efficiency) */
	enum kprof_bound bound;		/* the label with the most time */
};

struct kprof_roofline;

/*
 * cdesc/ncounters: the capture's counter names (spool header); roofline.csv
 * rows go to csv (NULL: none; the caller's stream, never closed here).
 */
struct kprof_roofline *kprof_roofline_new(const struct kprof_peaks *p,
					  const struct kprof_counter_desc *cdesc,
					  unsigned int ncounters, FILE *csv,
					  struct kprof_err *err);
int kprof_roofline_op(struct kprof_roofline *r, const struct kprof_op_row *row);
/* Ends roofline.csv's rows and ranks the kinds (by gain, descending). */
int kprof_roofline_finish(struct kprof_roofline *r, struct kprof_err *err);
void kprof_roofline_free(struct kprof_roofline *r);
/* After finish: kinds by gain, descending (ties: op code). */
const struct kprof_roof_kind *kprof_roofline_kinds(const struct kprof_roofline *r, size_t *n);
/* 1 if the capture has the counters the peaks file names */
int kprof_roofline_has_counters(const struct kprof_roofline *r);
/* The overall verdict: the label with the most classified op time. */
enum kprof_bound kprof_roofline_verdict(const struct kprof_roofline *r, double *share);

/*
 * report.md to f: verdict, top three opportunities, kinds, bubbles (b may
 * be NULL). r NULL: no roofline (no peaks file), no_roof_note says why.
 * -EIO if f has a write error.
 */
int kprof_roofline_report_md(const struct kprof_roofline *r, const struct kprof_bubbles *b,
			     const char *device_label, const char *no_roof_note,
			     FILE *f);

#endif /* KPROF_ROOFLINE_H */
