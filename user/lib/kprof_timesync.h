/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host/device time sync: converts device reference-timer cycles to host
 * CLOCK_MONOTONIC ns from cross-timestamp triples (host_before,
 * device_cycles, host_after), as in KPROF_REC_SYNC.
 *
 * Piecewise fit: each triple gives the estimate host = midpoint with
 * uncertainty (after - before) / 2. Samples whose window is wider than
 * KPROF_TS_REJECT_FACTOR x the median window were preempted between the
 * reads and are rejected. Each kept sample's host time is then smoothed:
 * the weighted (1 / half-window^2) least-squares quadratic through up to
 * KPROF_TS_SMOOTH neighbours on each side, as long as that curve stays
 * within 1.5 half-windows of every midpoint it covers (else fewer
 * neighbours, down to the raw midpoint: drift that bends faster than
 * the reads jitter is followed, not averaged away). Between
 * consecutive samples the mapping is the straight line through the
 * smoothed points (offset and drift per segment); before the first /
 * after the last it extends the first / last segment. Error bound: at a
 * sample, |smoothed - midpoint| + half-window (the truth is inside the
 * window); between samples, plus the largest leave-one-out residual (how
 * far a point lies from the line through its two neighbours).
 *
 * One-shot fit (tt-metal's method, for comparison): the first sample and
 * the nominal frequency, no drift correction.
 */
#ifndef KPROF_TIMESYNC_H
#define KPROF_TIMESYNC_H

#include <stddef.h>
#include <stdint.h>

#include "kprof_err.h"

#define KPROF_TS_REJECT_FACTOR	3.0
#define KPROF_TS_SMOOTH		8	/* samples each side in the local fit */

#define KPROF_TS_NONE		0	/* no samples: nominal rate from 0 */
#define KPROF_TS_PIECEWISE	1
#define KPROF_TS_ONESHOT	2
#define KPROF_TS_LINEAR		3	/* fixed rate, e.g. tt-metal CHIP_FREQ */

struct kprof_sync_pt {
	uint64_t host_before_ns;
	uint64_t device_cycles;
	uint64_t host_after_ns;
};

struct kprof_ts_seg {
	uint64_t dev0;		/* segment start, device cycles */
	double host0;		/* host ns at dev0 */
	double ns_per_cycle;	/* slope */
};

struct kprof_tsfit {
	int method;			/* KPROF_TS_* */
	double nominal_hz;
	size_t nseg;
	struct kprof_ts_seg *seg;	/* nseg entries, by dev0 ascending */
	struct kprof_ts_seg one;	/* used when nseg == 0 */
	/* quality */
	size_t samples;			/* triples given */
	size_t used;			/* kept */
	size_t rejected;		/* too-wide windows (or non-monotonic) */
	double median_window_ns;
	double max_halfwidth_ns;	/* of kept samples */
	double max_sample_err_ns;	/* max |fit - midpoint| + half-window */
	double max_loo_ns;		/* largest leave-one-out residual */
	double err_bound_ns;		/* max_sample_err + max_loo */
	double drift_ppm;		/* device rate vs nominal, first to last
					 * sample; > 0: device timer fast
					 */
	uint64_t first_dev, last_dev;	/* cycles range covered by samples */
	size_t hint;			/* lookup cache: last segment used */
	/*
	 * lookup cache for kprof_tsfit_to_host()'s inline part: a copy of
	 * the segment last used (cur) and how many cycles from its dev0 it
	 * covers (cur_len; 0: none), so that one compare finds a time in it
	 */
	struct kprof_ts_seg cur;
	uint64_t cur_len;
};

/* The fits own seg memory: release with kprof_tsfit_free(). */
int kprof_tsfit_piecewise(const struct kprof_sync_pt *pts, size_t n,
			  double nominal_hz, struct kprof_tsfit *fit,
			  struct kprof_err *err);
int kprof_tsfit_oneshot(const struct kprof_sync_pt *pts, size_t n,
			double nominal_hz, struct kprof_tsfit *fit,
			struct kprof_err *err);
/* host_ns = offset_ns + cycles * ns_per_cycle (tt-metal: 1000 / MHz, 0). */
void kprof_tsfit_linear(struct kprof_tsfit *fit, double ns_per_cycle,
			double offset_ns);
void kprof_tsfit_free(struct kprof_tsfit *fit);

/* A segment's host ns at cycles (one signed conversion: distances < 2^63). */
static inline double kprof_ts_seg_eval(const struct kprof_ts_seg *s, uint64_t cycles)
{
	return s->host0 + (double)(int64_t)(cycles - s->dev0) * s->ns_per_cycle;
}

/*
 * How many cycles from s->dev0 on, at most len (<= 2^63), have a host
 * time <= t: a prefix, as kprof_ts_seg_eval() never falls there for a
 * slope >= 0 (0 for a negative or NAN slope). Lets a caller compare
 * cycles instead of converting each of them to compare host times.
 */
uint64_t kprof_ts_seg_upto(const struct kprof_ts_seg *s, uint64_t len, double t);

/* kprof_tsfit_to_host() past its inline check of the last segment used */
double kprof_tsfit_to_host_slow(const struct kprof_tsfit *fit, uint64_t cycles);

/*
 * Device cycles -> host ns (double, so sub-ns and pre-epoch values survive).
 * Inline: once per marker, and nearly always in the segment of the one
 * before; cur is that segment's copy, the same numbers.
 */
static inline double kprof_tsfit_to_host(const struct kprof_tsfit *fit, uint64_t cycles)
{
	if (cycles - fit->cur.dev0 < fit->cur_len)
		return kprof_ts_seg_eval(&fit->cur, cycles);
	return kprof_tsfit_to_host_slow(fit, cycles);
}

/* A device duration in cycles starting at `at` -> ns. */
double kprof_tsfit_span_ns(const struct kprof_tsfit *fit, uint64_t at,
			   uint64_t cycles);

#endif /* KPROF_TIMESYNC_H */
