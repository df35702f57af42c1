/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bubble analysis: where each device core's time goes over the capture
 * window (docs/formats.md, bubbles.csv): working (union of its FW spans),
 * waiting for a launch (idle, its next op not launched yet), waiting on a
 * predecessor (idle although its next op was launched: the device was busy
 * elsewhere or the op queued behind earlier ones), plus host-side figures
 * (control overhead, dispatch latency, sync wait) and a rating with tuning
 * suggestions. Fed with the aggregation's op rows, in op order.
 */
#ifndef KPROF_BUBBLES_H
#define KPROF_BUBBLES_H

#include <stdint.h>
#include <stdio.h>

#include "kprof_agg.h"
#include "kprof_err.h"

/* Thresholds of the suggestions (docs/formats.md states each) */
#define KPROF_BUB_RATE_WARN		0.05	/* bubble rate: fair above */
#define KPROF_BUB_RATE_POOR		0.20	/* bubble rate: poor above */
#define KPROF_BUB_CONTROL_WARN		0.50	/* (FW - kernel) / FW */
#define KPROF_BUB_DISPATCH_WARN		0.25	/* dispatch latency / mean op FW time */
#define KPROF_BUB_SYNC_SHARE_WARN	0.50	/* sync wait / host span */
#define KPROF_BUB_SYNC_OPS_WARN		4.0	/* ops per sync below this: too many */
#define KPROF_BUB_UTIL_LOW		0.50	/* mean utilization below this */

/* Core ids analysed (the aggregation's limit without a core count) */
#define KPROF_BUB_MAX_CORES		65536U

struct kprof_bub_core {
	uint32_t core;
	uint64_t ops;			/* ops with a FW span on this core */
	double work_ns;			/* union of its FW spans */
	double wait_launch_ns;		/* idle before its next op's launch */
	double wait_pred_ns;		/* idle after its next op's launch */
	double wait_unknown_ns;		/* idle before an op with no launch time */
	double idle_other_ns;		/* after its last op (or never used) */
	double first_start_ns, first_launch_ns, last_start_ns, last_end_ns;
	uint64_t unordered;		/* spans starting before the previous one */
};

struct kprof_bub_totals {
	double window_start_ns, window_end_ns, window_ns;
	uint32_t cores_used, cores_listed;
	uint64_t spans_skipped;		/* on cores >= KPROF_BUB_MAX_CORES */
	double work_ns, wait_launch_ns, wait_pred_ns, wait_unknown_ns, idle_other_ns;
	double idle_tail_ns;		/* idle_other of the used cores only */
	double bubble_rate;		/* waits / (cores used x window) */
	double utilization;		/* work / (cores used x window) */
	uint64_t ops, ops_fw, ops_control;
	double fw_sum_ns, control_sum_ns;	/* control: FW - kernel, ops with both */
	double control_share;		/* control_sum / fw_sum of those ops */
	uint64_t dispatch_n;		/* ops launched onto an idle device */
	double dispatch_mean_ns;	/* their FW start - launch enter */
	double op_fw_mean_ns;
	uint64_t syncs;			/* distinct covering syncs */
	double sync_wait_ns, host_span_ns, sync_share;
	double ops_per_sync;
	const char *rating;		/* "good", "fair", "poor", "n/a" */
};

struct kprof_bubbles;

/* num_cores: rows for cores 0..num_cores-1 even if unused (0: seen cores only) */
struct kprof_bubbles *kprof_bubbles_new(uint32_t num_cores, struct kprof_err *err);
void kprof_bubbles_free(struct kprof_bubbles *b);
int kprof_bubbles_op(struct kprof_bubbles *b, const struct kprof_op_row *row);
/* Computes the totals; call once, after the last op. */
const struct kprof_bub_totals *kprof_bubbles_finish(struct kprof_bubbles *b);
size_t kprof_bubbles_ncores(const struct kprof_bubbles *b);
/* i-th listed core, ascending core id (after finish) */
const struct kprof_bub_core *kprof_bubbles_core(const struct kprof_bubbles *b, size_t i);

/* bubbles.csv to f; -EIO if f has a write error. */
int kprof_bubbles_write_csv(const struct kprof_bubbles *b, FILE *f);
/* The summary.txt section: figures, rating, suggestions. */
void kprof_bubbles_summary(const struct kprof_bubbles *b, FILE *f);
/* Suggestions as one-line strings; returns how many (<= max). */
unsigned int kprof_bubbles_advice(const struct kprof_bubbles *b, const char **out,
				  unsigned int max);

#endif /* KPROF_BUBBLES_H */
