// SPDX-License-Identifier: GPL-2.0
/*
 * Host/device time sync fits (method: kprof_timesync.h, docs/formats.md).
 */
#include "kprof_timesync.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_pt(const void *a, const void *b)
{
	const struct kprof_sync_pt *x = a, *y = b;

	return (x->device_cycles > y->device_cycles) -
	       (x->device_cycles < y->device_cycles);
}

static void fit_reset(struct kprof_tsfit *fit, int method, double nominal_hz)
{
	memset(fit, 0, sizeof(*fit));
	fit->method = method;
	fit->nominal_hz = nominal_hz;
	fit->one.ns_per_cycle = nominal_hz > 0 ? 1e9 / nominal_hz : 1.0;
	fit->err_bound_ns = NAN;
	fit->median_window_ns = NAN;
	fit->drift_ppm = NAN;
}

static double mid(const struct kprof_sync_pt *p)
{
	return (double)p->host_before_ns +
	       (double)(p->host_after_ns - p->host_before_ns) / 2.0;
}

static double halfw(const struct kprof_sync_pt *p)
{
	return (double)(p->host_after_ns - p->host_before_ns) / 2.0;
}

/*
 * Smoothed host time at each kept sample: a weighted (1 / half-window^2)
 * least-squares quadratic through up to KPROF_TS_SMOOTH samples on each
 * side, evaluated at the sample (a quadratic, so that a drift that bends
 * does not bias the centre as a straight line would). The widest
 * neighbourhood is taken whose curve stays within 1.5 half-windows of
 * every midpoint in it (the truth is inside each window; the extra half
 * leaves room for the fit's own error); else fewer neighbours, down to
 * the sample's own midpoint.
 */
static int local_fit(const struct kprof_sync_pt *p, size_t i, size_t lo, size_t hi,
		     double *out)
{
	double m[3][4] = { { 0 } }, c[3];
	double scale = (double)(p[hi].device_cycles - p[lo].device_cycles);

	if (!(scale > 0))
		return 0;
	for (size_t j = lo; j <= hi; j++) {
		double h = fmax(halfw(&p[j]), 1.0), wt = 1.0 / (h * h);
		double x = ((double)p[j].device_cycles - (double)p[i].device_cycles) / scale;
		double y = mid(&p[j]) - mid(&p[i]);
		double v[3] = { 1, x, x * x };

		for (int r = 0; r < 3; r++) {
			for (int k = 0; k < 3; k++)
				m[r][k] += wt * v[r] * v[k];
			m[r][3] += wt * v[r] * y;
		}
	}
	/* Gauss-Jordan with partial pivoting on the 3x3 normal equations */
	for (int col = 0; col < 3; col++) {
		int piv = col;

		for (int r = col + 1; r < 3; r++)
			if (fabs(m[r][col]) > fabs(m[piv][col]))
				piv = r;
		if (!(fabs(m[piv][col]) > 1e-300))
			return 0;
		for (int k = 0; k < 4; k++) {
			double t = m[col][k];

			m[col][k] = m[piv][k];
			m[piv][k] = t;
		}
		for (int r = 0; r < 3; r++) {
			double f;

			if (r == col)
				continue;
			f = m[r][col] / m[col][col];
			for (int k = col; k < 4; k++)
				m[r][k] -= f * m[col][k];
		}
	}
	for (int r = 0; r < 3; r++)
		c[r] = m[r][3] / m[r][r];
	for (size_t j = lo; j <= hi; j++) {
		double x = ((double)p[j].device_cycles - (double)p[i].device_cycles) / scale;
		double y = mid(&p[j]) - mid(&p[i]);

		if (fabs(c[0] + c[1] * x + c[2] * x * x - y) > halfw(&p[j]) * 2.0 + 1.0)
			return 0;
	}
	*out = mid(&p[i]) + c[0];
	return 1;
}

static void smooth(const struct kprof_sync_pt *p, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++) {
		out[i] = mid(&p[i]);
		for (size_t k = KPROF_TS_SMOOTH; k > 0; k--) {
			size_t lo = i > k ? i - k : 0, hi = i + k < n ? i + k : n - 1;

			/* at least 5 points: a quadratic through 3 fits anything */
			if (hi - lo >= 4 && local_fit(p, i, lo, hi, &out[i]))
				break;
		}
	}
}

int kprof_tsfit_oneshot(const struct kprof_sync_pt *pts, size_t n,
			double nominal_hz, struct kprof_tsfit *fit,
			struct kprof_err *err)
{
	fit_reset(fit, KPROF_TS_ONESHOT, nominal_hz);
	if (nominal_hz <= 0)
		return kprof_err_set(err, EINVAL, "time sync: nominal frequency must be > 0");
	fit->samples = n;
	if (n == 0) {
		fit->method = KPROF_TS_NONE;
		return 0;
	}
	fit->used = 1;
	fit->one.dev0 = pts[0].device_cycles;
	fit->one.host0 = mid(&pts[0]);
	fit->max_halfwidth_ns = (double)(pts[0].host_after_ns - pts[0].host_before_ns) / 2;
	/* drift is not modelled: the bound only covers the sample itself */
	fit->err_bound_ns = fit->max_halfwidth_ns;
	fit->first_dev = pts[0].device_cycles;
	fit->last_dev = pts[0].device_cycles;
	return 0;
}

int kprof_tsfit_piecewise(const struct kprof_sync_pt *in, size_t n,
			  double nominal_hz, struct kprof_tsfit *fit,
			  struct kprof_err *err)
{
	struct kprof_sync_pt *p = NULL;
	double *w = NULL, *sm = NULL, thr;
	size_t k = 0, good = 0;

	fit_reset(fit, KPROF_TS_PIECEWISE, nominal_hz);
	if (nominal_hz <= 0)
		return kprof_err_set(err, EINVAL, "time sync: nominal frequency must be > 0");
	fit->samples = n;
	if (n == 0) {
		fit->method = KPROF_TS_NONE;
		return 0;
	}
	p = malloc(n * sizeof(*p));
	w = malloc(n * sizeof(*w));
	if (!p || !w) {
		free(p);
		free(w);
		return kprof_err_set(err, ENOMEM, "out of memory");
	}
	/* windows with after < before are broken reads, not data */
	for (size_t i = 0; i < n; i++) {
		if (in[i].host_after_ns < in[i].host_before_ns)
			continue;
		p[k] = in[i];
		w[k] = (double)(in[i].host_after_ns - in[i].host_before_ns);
		k++;
	}
	fit->rejected = n - k;
	if (k == 0) {
		free(p);
		free(w);
		fit->method = KPROF_TS_NONE;
		return 0;
	}
	qsort(w, k, sizeof(*w), cmp_double);
	fit->median_window_ns = k % 2 ? w[k / 2] : (w[k / 2 - 1] + w[k / 2]) / 2;
	/* preempted reads: window much wider than usual (1 ns floor for
	 * clocks too coarse to show any window)
	 */
	thr = KPROF_TS_REJECT_FACTOR * fmax(fit->median_window_ns, 1.0);
	qsort(p, k, sizeof(*p), cmp_pt);
	for (size_t i = 0; i < k; i++) {
		double width = (double)(p[i].host_after_ns - p[i].host_before_ns);

		if (width > thr)
			continue;
		/* same device time twice, or time going backwards: keep the first */
		if (good && (p[i].device_cycles == p[good - 1].device_cycles ||
			     mid(&p[i]) <= mid(&p[good - 1])))
			continue;
		p[good++] = p[i];
	}
	fit->rejected = n - good;
	fit->used = good;
	free(w);
	if (good == 0) {	/* cannot happen: the median sample passes */
		free(p);
		fit->method = KPROF_TS_NONE;
		return 0;
	}
	fit->first_dev = p[0].device_cycles;
	fit->last_dev = p[good - 1].device_cycles;
	for (size_t i = 0; i < good; i++) {
		double half = (double)(p[i].host_after_ns - p[i].host_before_ns) / 2;

		fit->max_halfwidth_ns = fmax(fit->max_halfwidth_ns, half);
	}
	if (good == 1) {
		fit->one.dev0 = p[0].device_cycles;
		fit->one.host0 = mid(&p[0]);
		fit->err_bound_ns = fit->max_halfwidth_ns;
		free(p);
		return 0;
	}
	sm = malloc(good * sizeof(*sm));
	fit->seg = malloc((good - 1) * sizeof(*fit->seg));
	if (!fit->seg || !sm) {
		free(p);
		free(sm);
		return kprof_err_set(err, ENOMEM, "out of memory");
	}
	smooth(p, good, sm);
	fit->nseg = good - 1;
	for (size_t i = 0; i + 1 < good; i++) {
		struct kprof_ts_seg *s = &fit->seg[i];

		s->dev0 = p[i].device_cycles;
		s->host0 = sm[i];
		s->ns_per_cycle = (sm[i + 1] - sm[i]) /
				  (double)(p[i + 1].device_cycles - p[i].device_cycles);
	}
	fit->one = fit->seg[0];
	/* at a sample the truth is within its window: the fit is off by at
	 * most |smoothed - midpoint| + half-window there
	 */
	for (size_t i = 0; i < good; i++)
		fit->max_sample_err_ns = fmax(fit->max_sample_err_ns,
					      fabs(sm[i] - mid(&p[i])) + halfw(&p[i]));
	/* model error between samples: distance of each point from the
	 * line through its two neighbours
	 */
	for (size_t i = 1; i + 1 < good; i++) {
		double x0 = (double)p[i - 1].device_cycles, x1 = (double)p[i + 1].device_cycles;
		double pred = sm[i - 1] + (sm[i + 1] - sm[i - 1]) *
			      ((double)p[i].device_cycles - x0) / (x1 - x0);

		fit->max_loo_ns = fmax(fit->max_loo_ns, fabs(pred - sm[i]));
	}
	fit->err_bound_ns = fit->max_sample_err_ns + fit->max_loo_ns;
	free(sm);
	/* > 0: the device timer runs faster than nominal */
	fit->drift_ppm = ((1e9 / nominal_hz) * (double)(fit->last_dev - fit->first_dev) /
			  (mid(&p[good - 1]) - mid(&p[0])) - 1.0) * 1e6;
	free(p);
	return 0;
}

void kprof_tsfit_linear(struct kprof_tsfit *fit, double ns_per_cycle,
			double offset_ns)
{
	fit_reset(fit, KPROF_TS_LINEAR, ns_per_cycle > 0 ? 1e9 / ns_per_cycle : 0);
	fit->one.dev0 = 0;
	fit->one.host0 = offset_ns;
	fit->one.ns_per_cycle = ns_per_cycle;
}

void kprof_tsfit_free(struct kprof_tsfit *fit)
{
	free(fit->seg);
	fit->seg = NULL;
	fit->nseg = 0;
	fit->cur_len = 0;
}

static const struct kprof_ts_seg *find_seg(const struct kprof_tsfit *fit,
					   uint64_t cycles)
{
	size_t lo = 0, hi;

	if (fit->nseg == 0)
		return &fit->one;
	/* timestamps come nearly in order: try the last segment used first */
	lo = fit->hint;
	if (lo < fit->nseg && fit->seg[lo].dev0 <= cycles &&
	    (lo + 1 == fit->nseg || cycles < fit->seg[lo + 1].dev0))
		return &fit->seg[lo];
	lo = 0;
	/* last segment with dev0 <= cycles; the first one extends backwards */
	hi = fit->nseg;
	while (hi - lo > 1) {
		size_t m = lo + (hi - lo) / 2;

		if (fit->seg[m].dev0 <= cycles)
			lo = m;
		else
			hi = m;
	}
	/* the cache is not part of the fit's value: writing it through a
	 * const pointer is fine, the object itself is never const
	 */
	((struct kprof_tsfit *)fit)->hint = lo;
	return &fit->seg[lo];
}

/*
 * Cycles from s's dev0 to the next segment's (up to 2^64 - 1 for the
 * last one, which extends forwards); the first one's backward extension
 * is left to find_seg().
 */
static uint64_t seg_len(const struct kprof_tsfit *fit, const struct kprof_ts_seg *s)
{
	if (fit->nseg && s + 1 < fit->seg + fit->nseg)
		return s[1].dev0 - s->dev0;
	return s->dev0 ? -s->dev0 : UINT64_MAX;
}

double kprof_tsfit_to_host_slow(const struct kprof_tsfit *fit, uint64_t cycles)
{
	const struct kprof_ts_seg *s = find_seg(fit, cycles);
	/* the cache is not part of the fit's value, as hint in find_seg() */
	struct kprof_tsfit *w = (struct kprof_tsfit *)fit;

	w->cur = *s;
	w->cur_len = seg_len(fit, s);
	return kprof_ts_seg_eval(s, cycles);
}

/* cycles x past s->dev0 convert to t or less */
static int seg_at_or_below(const struct kprof_ts_seg *s, uint64_t x, double t)
{
	return kprof_ts_seg_eval(s, s->dev0 + x) <= t;
}

uint64_t kprof_ts_seg_upto(const struct kprof_ts_seg *s, uint64_t len, double t)
{
	uint64_t lo = 0, hi = len;	/* the count is in [lo, hi] */
	double e;

	if (!(s->ns_per_cycle >= 0) || len > (1ULL << 63))
		return 0;
	/*
	 * the inverse of the conversion is off by a few cycles of rounding
	 * at most: bracket the count from there by doubling steps, then
	 * bisect (exact whatever the rounding)
	 */
	e = s->ns_per_cycle > 0 ? (t - s->host0) / s->ns_per_cycle : -1;
	if (e >= 0 && e < (double)len) {
		uint64_t g = (uint64_t)e, d = 1;

		if (seg_at_or_below(s, g, t)) {
			lo = g + 1;
			while (d < len - g && seg_at_or_below(s, g + d, t)) {
				lo = g + d + 1;
				d *= 2;
			}
			if (d < len - g)
				hi = g + d;
		} else {
			hi = g;
			while (d <= g && !seg_at_or_below(s, g - d, t)) {
				hi = g - d;
				d *= 2;
			}
			if (d <= g)
				lo = g - d + 1;
		}
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (seg_at_or_below(s, mid, t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double kprof_tsfit_span_ns(const struct kprof_tsfit *fit, uint64_t at,
			   uint64_t cycles)
{
	if (fit->nseg == 0)
		return (double)cycles * fit->one.ns_per_cycle;
	return kprof_tsfit_to_host(fit, at + cycles) - kprof_tsfit_to_host(fit, at);
}
