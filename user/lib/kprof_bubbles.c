// SPDX-License-Identifier: GPL-2.0
/*
 * Bubble analysis (kprof_bubbles.h). Streaming: per core, only the end of
 * its work so far is kept. Op rows arrive in op order; on an in-order
 * device a core's FW spans then arrive in time order, which makes the
 * running union exact. A span starting before the previous one (an
 * out-of-order device) is merged as far as the running end allows and
 * counted in "unordered".
 */
#include "kprof_bubbles.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct kprof_bubbles {
	struct kprof_bub_core *cores;	/* indexed by core id; ops 0: unseen */
	uint32_t *listed;		/* core ids of the rows, after finish */
	size_t cap;
	uint32_t num_cores;
	double prev_fw_end_ns;		/* latest FW end of earlier ops */
	double first_launch_ns;
	double dispatch_sum_ns;
	double last_sync_end;		/* dedup: ops share a covering sync */
	double host_first_ns, host_last_ns;
	int finished;
	struct kprof_bub_totals t;
};

struct kprof_bubbles *kprof_bubbles_new(uint32_t num_cores, struct kprof_err *err)
{
	struct kprof_bubbles *b = calloc(1, sizeof(*b));

	if (!b) {
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	b->num_cores = num_cores < KPROF_BUB_MAX_CORES ? num_cores : KPROF_BUB_MAX_CORES;
	b->prev_fw_end_ns = NAN;
	b->first_launch_ns = NAN;
	b->last_sync_end = NAN;
	b->host_first_ns = NAN;
	b->host_last_ns = NAN;
	b->t.window_start_ns = NAN;
	b->t.window_end_ns = NAN;
	b->t.rating = "n/a";
	return b;
}

void kprof_bubbles_free(struct kprof_bubbles *b)
{
	if (!b)
		return;
	free(b->cores);
	free(b->listed);
	free(b);
}

static int grow(struct kprof_bubbles *b, uint32_t core)
{
	size_t n = b->cap ? b->cap : 64;
	void *p;

	while (n <= core)
		n *= 2;
	p = realloc(b->cores, n * sizeof(*b->cores));
	if (!p)
		return -ENOMEM;
	b->cores = p;
	memset(b->cores + b->cap, 0, (n - b->cap) * sizeof(*b->cores));
	b->cap = n;
	return 0;
}

/*
 * fmin / fmax as compares the compiler inlines: libm's are calls, made
 * per FW span. The same results: glibc's fmin(a, b) is a < b ? a : b
 * (minsd), fmax(a, b) a > b ? a : b, for operands that are not NaN.
 */
static inline double min2(double a, double b)
{
	return a < b ? a : b;
}

static inline double max2(double a, double b)
{
	return a > b ? a : b;
}

/* max2(d, 0), and 0 for a NaN d, as fmax(d, 0) */
static inline double pos0(double d)
{
	return d > 0 ? d : 0;
}

/* fmin(a, b) ignoring a NaN operand */
static inline double fmin_nan(double a, double b)
{
	return (isnan(a) || b <= a) ? b : a;
}

/* fmax(a, b) ignoring a NaN operand */
static inline double fmax_nan(double a, double b)
{
	return (isnan(a) || b >= a) ? b : a;
}

/* An idle gap [a, e) that ends when an op launched at launch starts. */
static inline void split_gap(struct kprof_bub_core *c, double a, double e, double launch)
{
	double g = e - a, before;

	if (!(g > 0))		/* so neither a nor e is NaN */
		return;
	if (isnan(launch)) {
		c->wait_unknown_ns += g;
		return;
	}
	/* launch is finite (a host time) and a not NaN: launch - a is no NaN */
	before = min2(max2(launch - a, 0), g);
	c->wait_launch_ns += before;
	c->wait_pred_ns += g - before;
}

/*
 * core_span() of a core's first span. Out of line: inlined, GCC packs s
 * with launch and e (for paired stores) on every span's path.
 */
static __attribute__((noinline)) void core_first(struct kprof_bub_core *c, uint32_t core,
						 double s, double e, double launch)
{
	c->core = core;
	c->first_start_ns = s;
	c->first_launch_ns = launch;
	c->last_start_ns = s;
	c->last_end_ns = e;
	c->work_ns = e - s;
}

/* A FW span [s, e], e >= s, on core c; launch: its op's launch time. */
static inline void core_span(struct kprof_bub_core *c, uint32_t core, double s, double e,
			     double launch)
{
	if (!c->ops++) {	/* the core's first span */
		core_first(c, core, s, e, launch);
		return;
	}
	if (s < c->last_end_ns) {
		/* last_start = fmax(last_start, s) */
		if (s < c->last_start_ns)
			c->unordered++;
		else
			c->last_start_ns = s;
		if (e > c->last_end_ns) {
			c->work_ns += e - c->last_end_ns;
			c->last_end_ns = e;
		}
		return;
	}
	/* last_start and last_end stored on either side of split_gap's
	 * branches: stored together, GCC packs s and e in one register, and
	 * unpacking them costs more than the store it saves
	 */
	c->last_start_ns = s;
	split_gap(c, c->last_end_ns, s, launch);
	c->work_ns += e - s;
	c->last_end_ns = e;
}

/* core_span() on a core id at or past the table's end: grows the table */
static int span_far(struct kprof_bubbles *b, uint32_t core, double s, double e, double launch)
{
	if (core >= KPROF_BUB_MAX_CORES) {	/* bounded memory on corrupt input */
		b->t.spans_skipped++;
		return 0;
	}
	if (grow(b, core))
		return -ENOMEM;
	core_span(&b->cores[core], core, s, e, launch);
	return 0;
}

int kprof_bubbles_op(struct kprof_bubbles *b, const struct kprof_op_row *r)
{
	double launch = r->host_start_ns != KPROF_AGG_NONE ? (double)r->host_start_ns : NAN;
	struct kprof_bub_totals *t = &b->t;
	const struct kprof_core_time *ct = r->cores;
	uint32_t n = r->ncores;
	/* in locals: the stores to cores[] could alias them */
	struct kprof_bub_core *cores = b->cores;
	size_t cap = b->cap;
	double ws = t->window_start_ns, we = t->window_end_ns;
	int ret = 0;

	t->ops++;
	for (uint32_t i = 0; i < n; i++, ct++) {
		double s = ct->fw_start_ns, e = ct->fw_end_ns;
		uint32_t core = ct->core;

		if (!(e >= s)) {	/* NAN or reversed: no span */
			ws = fmin_nan(ws, s);
			we = fmax_nan(we, e);
			continue;
		}
		/* cap <= KPROF_BUB_MAX_CORES (a power of 2): below it, in bounds */
		if (core < cap) {
			core_span(&cores[core], core, s, e, launch);
		} else {
			ret = span_far(b, core, s, e, launch);
			if (ret)
				break;
			cores = b->cores;
			cap = b->cap;
		}
		/* s, e not NaN: fmin_nan(ws, s), fmax_nan(we, e) */
		ws = ws < s ? ws : s;
		we = we > e ? we : e;
	}
	t->window_end_ns = we;
	if (ret) {
		t->window_start_ns = ws;
		return ret;
	}
	if (!isnan(launch)) {
		/* the window starts when the host first asked for work */
		if (n)
			ws = fmin_nan(ws, launch);
		b->host_first_ns = fmin_nan(b->host_first_ns, launch);
		if (r->host_end_ns != KPROF_AGG_NONE)
			b->host_last_ns = fmax_nan(b->host_last_ns, (double)r->host_end_ns);
	}
	t->window_start_ns = ws;
	if (!isnan(r->fw_duration_ns)) {
		t->ops_fw++;
		t->op_fw_mean_ns += r->fw_duration_ns;	/* a sum until finish */
		if (!isnan(r->kernel_duration_ns)) {
			t->ops_control++;
			t->fw_sum_ns += r->fw_duration_ns;
			t->control_sum_ns += pos0(r->fw_duration_ns - r->kernel_duration_ns);
		}
	}
	/* dispatch latency: only ops launched while the device was idle, so
	 * that queueing behind earlier ops is not counted as launch cost
	 */
	if (!isnan(launch) && !isnan(r->launch_to_start_ns) &&
	    (isnan(b->prev_fw_end_ns) || launch >= b->prev_fw_end_ns)) {
		t->dispatch_n++;
		b->dispatch_sum_ns += r->launch_to_start_ns;
	}
	b->prev_fw_end_ns = fmax_nan(b->prev_fw_end_ns, r->fw_end_ns);
	if (!isnan(r->sync_wait_ns) && r->sync_end_ns != KPROF_AGG_NONE &&
	    (double)r->sync_end_ns != b->last_sync_end) {
		b->last_sync_end = (double)r->sync_end_ns;
		t->syncs++;
		t->sync_wait_ns += r->sync_wait_ns;
		b->host_last_ns = fmax_nan(b->host_last_ns, (double)r->sync_end_ns);
	}
	return 0;
}

static const char *rating(const struct kprof_bub_totals *t)
{
	if (!t->cores_used || !(t->window_ns > 0))
		return "n/a";
	if (t->bubble_rate > KPROF_BUB_RATE_POOR)
		return "poor";
	if (t->bubble_rate > KPROF_BUB_RATE_WARN || t->control_share > KPROF_BUB_CONTROL_WARN)
		return "fair";
	return "good";
}

const struct kprof_bub_totals *kprof_bubbles_finish(struct kprof_bubbles *b)
{
	struct kprof_bub_totals *t = &b->t;
	size_t n;

	if (b->finished)
		return t;
	b->finished = 1;
	if (b->num_cores > b->cap && grow(b, b->num_cores - 1))
		b->num_cores = 0;	/* no memory for unused cores: list seen ones */
	n = b->cap;
	b->listed = n ? malloc(n * sizeof(*b->listed)) : NULL;
	t->window_ns = t->window_end_ns - t->window_start_ns;
	if (!(t->window_ns > 0))
		t->window_ns = 0;
	for (size_t i = 0; i < n; i++) {
		struct kprof_bub_core *c = &b->cores[i];

		if (!c->ops) {
			if (i >= b->num_cores)
				continue;
			c->core = (uint32_t)i;
			c->first_start_ns = NAN;
			c->first_launch_ns = NAN;
			c->last_end_ns = NAN;
			c->idle_other_ns = t->window_ns;
			t->idle_other_ns += c->idle_other_ns;
			if (b->listed)
				b->listed[t->cores_listed++] = (uint32_t)i;
			continue;
		}
		split_gap(c, t->window_start_ns, c->first_start_ns, c->first_launch_ns);
		c->idle_other_ns = pos0(t->window_end_ns - c->last_end_ns);
		t->cores_used++;
		if (b->listed)	/* no memory: no rows, the totals stay right */
			b->listed[t->cores_listed++] = (uint32_t)i;
		t->work_ns += c->work_ns;
		t->wait_launch_ns += c->wait_launch_ns;
		t->wait_pred_ns += c->wait_pred_ns;
		t->wait_unknown_ns += c->wait_unknown_ns;
		t->idle_other_ns += c->idle_other_ns;
		t->idle_tail_ns += c->idle_other_ns;
	}
	if (t->cores_used && t->window_ns > 0) {
		double all = t->cores_used * t->window_ns;

		t->bubble_rate = (t->wait_launch_ns + t->wait_pred_ns + t->wait_unknown_ns) / all;
		t->utilization = t->work_ns / all;
	}
	t->control_share = t->fw_sum_ns > 0 ? t->control_sum_ns / t->fw_sum_ns : 0;
	t->op_fw_mean_ns = t->ops_fw ? t->op_fw_mean_ns / t->ops_fw : NAN;
	t->dispatch_mean_ns = t->dispatch_n ? b->dispatch_sum_ns / t->dispatch_n : NAN;
	t->host_span_ns = b->host_last_ns - b->host_first_ns;
	if (!(t->host_span_ns > 0))
		t->host_span_ns = 0;
	t->sync_share = t->host_span_ns > 0 ? t->sync_wait_ns / t->host_span_ns : 0;
	t->ops_per_sync = t->syncs ? (double)t->ops / t->syncs : NAN;
	t->rating = rating(t);
	return t;
}

size_t kprof_bubbles_ncores(const struct kprof_bubbles *b)
{
	return b->t.cores_listed;
}

const struct kprof_bub_core *kprof_bubbles_core(const struct kprof_bubbles *b, size_t i)
{
	return i < b->t.cores_listed ? &b->cores[b->listed[i]] : NULL;
}

/* kprof_bubbles_advice()'s lines (docs/formats.md lists the thresholds) */
#define ADVICE_LAUNCH_GAPS "bubble rate > 5%, mostly before launches: host launch gaps; batch launches / use an async queue so the next op is queued before the device goes idle"
#define ADVICE_PREDECESSORS "bubble rate > 5%, mostly with the next op already launched: cores wait on predecessors; ops serialize on other cores; spread ops over all cores or overlap independent ops (multiple queues)"
#define ADVICE_CAUSE_UNKNOWN "bubble rate > 5%, cause unknown (no host launch times): capture with BPF host tracing to tell launch gaps from predecessor waits"
#define ADVICE_CONTROL "control (FW) overhead > 50% of FW time: ops too small; fuse ops or give each more work"
#define ADVICE_DISPATCH "launch-to-start latency > 25% of the mean op time: dispatch cost dominates small ops; keep the queue full (launch ahead) or fuse ops"
#define ADVICE_SYNCS "sync wait > 50% of host time with < 4 ops per sync: too many syncs; sync once per batch, not per op"
#define ADVICE_UNEVEN "utilization < 50% with few bubbles: cores idle at the end of the window (uneven work); balance work across cores"

unsigned int kprof_bubbles_advice(const struct kprof_bubbles *b, const char **out,
				  unsigned int max)
{
	const struct kprof_bub_totals *t = &b->t;
	unsigned int n = 0;

#define ADD(s) do { if (n < max) out[n++] = (s); } while (0)
	if (t->bubble_rate > KPROF_BUB_RATE_WARN) {
		double w = t->wait_launch_ns, p = t->wait_pred_ns, u = t->wait_unknown_ns;

		if (w >= p && w >= u)
			ADD(ADVICE_LAUNCH_GAPS);
		else if (p >= u)
			ADD(ADVICE_PREDECESSORS);
		else
			ADD(ADVICE_CAUSE_UNKNOWN);
	}
	if (t->control_share > KPROF_BUB_CONTROL_WARN)
		ADD(ADVICE_CONTROL);
	if (t->dispatch_n && t->op_fw_mean_ns > 0 &&
	    t->dispatch_mean_ns > KPROF_BUB_DISPATCH_WARN * t->op_fw_mean_ns)
		ADD(ADVICE_DISPATCH);
	if (t->syncs && t->sync_share > KPROF_BUB_SYNC_SHARE_WARN &&
	    t->ops_per_sync < KPROF_BUB_SYNC_OPS_WARN)
		ADD(ADVICE_SYNCS);
	if (t->cores_used && t->utilization < KPROF_BUB_UTIL_LOW &&
	    t->bubble_rate <= KPROF_BUB_RATE_WARN)
		ADD(ADVICE_UNEVEN);
#undef ADD
	return n;
}

static void pct(FILE *f, const char *what, double v, double all)
{
	fprintf(f, "  %-34s %16.0f ns  %6.2f%%\n", what, v, all > 0 ? 100.0 * v / all : 0.0);
}

void kprof_bubbles_summary(const struct kprof_bubbles *b, FILE *f)
{
	const struct kprof_bub_totals *t = &b->t;
	double all = t->cores_used * t->window_ns;
	const char *adv[8];
	unsigned int n;

	fprintf(f, "\nbubbles (bubbles.csv; thresholds in docs/formats.md):\n");
	if (!t->cores_used) {
		fprintf(f, "  no ops with FW spans: nothing to analyse\n");
		return;
	}
	fprintf(f,
		"  window: %.0f ns (first launch or FW start to last FW end), %u cores used of %u listed\n",
		t->window_ns, t->cores_used, t->cores_listed);
	if (t->spans_skipped)
		fprintf(f, "  %" PRIu64 " FW spans on core ids >= %u left out (corrupt input?)\n",
			t->spans_skipped, KPROF_BUB_MAX_CORES);
	fprintf(f, "  core time over the window, summed over used cores:\n");
	pct(f, "work (union of FW spans)", t->work_ns, all);
	pct(f, "waiting for a launch", t->wait_launch_ns, all);
	pct(f, "waiting on a predecessor", t->wait_pred_ns, all);
	pct(f, "waiting, launch time unknown", t->wait_unknown_ns, all);
	pct(f, "idle after the core's last op", t->idle_tail_ns, all);
	fprintf(f, "  bubble rate %.2f%%, utilization %.2f%%\n", 100 * t->bubble_rate,
		100 * t->utilization);
	fprintf(f, "  control (FW - kernel) overhead: %.2f%% of FW time (%" PRIu64 " ops)\n",
		100 * t->control_share, t->ops_control);
	if (t->dispatch_n)
		fprintf(f,
			"  launch-to-start on an idle device: mean %.0f ns over %"
			PRIu64 " ops (mean op FW time %.0f ns)\n",
			t->dispatch_mean_ns, t->dispatch_n, t->op_fw_mean_ns);
	else
		fprintf(f,
			"  launch-to-start: no op launched onto an idle device with a known launch time\n");
	if (t->syncs)
		fprintf(f, "  syncs: %" PRIu64
			" (%.1f ops per sync), wait %.0f ns = %.2f%% of the host span %.0f ns\n",
			t->syncs, t->ops_per_sync, t->sync_wait_ns, 100 * t->sync_share,
			t->host_span_ns);
	else
		fprintf(f, "  syncs: none seen\n");
	fprintf(f,
		"  rating: %s (good: bubble rate <= 5%% and control overhead <= 50%%; poor: bubble rate > 20%%)\n",
		t->rating);
	n = kprof_bubbles_advice(b, adv, 8);
	if (!n)
		fprintf(f, "  suggestions: none (no threshold crossed)\n");
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "  - %s\n", adv[i]);
}

static void num(FILE *f, double v)
{
	if (isnan(v))
		fputs(",", f);
	else
		fprintf(f, ",%.0f", v);
}

int kprof_bubbles_write_csv(const struct kprof_bubbles *b, FILE *f)
{
	const struct kprof_bub_totals *t = &b->t;

	fputs("CORE,OPS,WORK [ns],WAIT LAUNCH [ns],WAIT PREDECESSOR [ns],WAIT UNKNOWN [ns],", f);
	fputs("IDLE OTHER [ns],WINDOW [ns],BUBBLE RATE,UTILIZATION,UNORDERED SPANS\n", f);
	for (size_t i = 0; i < kprof_bubbles_ncores(b); i++) {
		const struct kprof_bub_core *c = kprof_bubbles_core(b, i);
		double w = t->window_ns;
		double waits = c->wait_launch_ns + c->wait_pred_ns + c->wait_unknown_ns;

		fprintf(f, "%u,%" PRIu64, c->core, c->ops);
		num(f, c->work_ns);
		num(f, c->wait_launch_ns);
		num(f, c->wait_pred_ns);
		num(f, c->wait_unknown_ns);
		num(f, c->idle_other_ns);
		num(f, w);
		fprintf(f, ",%.6f,%.6f,%" PRIu64 "\n",
			w > 0 ? waits / w : 0.0,
			w > 0 ? c->work_ns / w : 0.0, c->unordered);
	}
	return ferror(f) ? -EIO : 0;
}
