// SPDX-License-Identifier: GPL-2.0
/*
 * Roofline per op and the report.md verdict (kprof_roofline.h).
 * Op time is the FW duration (what the op costs the device, firmware
 * included), else the kernel duration. Counters are summed over the op's
 * cores; the peaks scale with the op's cores (per-core peaks files) and
 * the FLOP peak with the op's clock.
 */
#include "kprof_roofline.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprof_hash.h"
#include "kprof_text.h"
#include "kprof_writers.h"

#define MAX_KINDS	1024	/* op codes tracked; more are pooled as "(other)" */

struct kprof_roofline {
	struct kprof_peaks peaks;
	int flops_idx, bytes_idx[2];	/* counter indexes, -1 absent */
	FILE *csv;			/* the caller's */
	struct kprof_roof_kind *kinds;
	size_t nkinds;
	/* kinds by op code: room for MAX_KINDS, made with them (no growth) */
	struct kprof_hidx kidx;
	int sorted;
};

const char *kprof_bound_name(enum kprof_bound b)
{
	switch (b) {
	case KPROF_BOUND_MEMORY: return "memory-bound";
	case KPROF_BOUND_COMPUTE: return "compute-bound";
	case KPROF_BOUND_LATENCY: return "latency-bound";
	default: return "unclassified";
	}
}

enum kprof_bound kprof_roofline_eval(const struct kprof_peaks *p, double flops, double bytes,
				     double time_ns, unsigned int cores, double clock_mhz,
				     struct kprof_roof_point *pt)
{
	double s = time_ns / 1e9;

	memset(pt, 0, sizeof(*pt));
	pt->flops = flops;
	pt->bytes = bytes;
	pt->time_ns = time_ns;
	pt->peak_flops = kprof_peaks_flops(p, cores, clock_mhz);
	pt->peak_bytes = kprof_peaks_bytes(p, cores);
	pt->ridge = pt->peak_flops / pt->peak_bytes;
	pt->intensity = bytes > 0 ? flops / bytes : (flops > 0 ? INFINITY : NAN);
	if (!(s > 0) || isnan(pt->intensity) || !(pt->peak_flops > 0) || !(pt->peak_bytes > 0)) {
		pt->bound = KPROF_BOUND_NONE;
		pt->achieved_flops = NAN;
		pt->achieved_bytes = NAN;
		pt->attainable_flops = NAN;
		pt->flops_frac = NAN;
		pt->bytes_frac = NAN;
		pt->efficiency = NAN;
		return pt->bound;
	}
	pt->achieved_flops = flops / s;
	pt->achieved_bytes = bytes / s;
	pt->attainable_flops = fmin(pt->peak_flops, pt->intensity * pt->peak_bytes);
	pt->flops_frac = pt->achieved_flops / pt->peak_flops;
	pt->bytes_frac = pt->achieved_bytes / pt->peak_bytes;
	if (pt->attainable_flops > 0)
		pt->efficiency = fmin(pt->achieved_flops / pt->attainable_flops, 1.0);
	else	/* no FLOPs: a pure data mover is judged on bandwidth alone */
		pt->efficiency = fmin(pt->bytes_frac, 1.0);
	if (pt->flops_frac < p->latency_frac && pt->bytes_frac < p->latency_frac)
		pt->bound = KPROF_BOUND_LATENCY;
	else if (pt->intensity >= pt->ridge)
		pt->bound = KPROF_BOUND_COMPUTE;
	else
		pt->bound = KPROF_BOUND_MEMORY;
	return pt->bound;
}

static int counter_idx(const struct kprof_counter_desc *cd, unsigned int n, const char *name)
{
	if (!name[0])
		return -1;
	for (unsigned int i = 0; i < n && i < KPROF_MAX_COUNTERS; i++)
		if (!strncmp(cd[i].name, name, sizeof(cd[i].name)) &&
		    strlen(name) <= sizeof(cd[i].name))
			return (int)i;
	return -1;
}

struct kprof_roofline *kprof_roofline_new(const struct kprof_peaks *p,
					  const struct kprof_counter_desc *cdesc,
					  unsigned int ncounters, FILE *csv,
					  struct kprof_err *err)
{
	struct kprof_roofline *r = calloc(1, sizeof(*r));

	if (r) {
		r->kinds = calloc(MAX_KINDS + 1, sizeof(*r->kinds));
		r->kidx.cap = 2 * MAX_KINDS;
		r->kidx.slot = calloc(r->kidx.cap, sizeof(*r->kidx.slot));
	}
	if (!r || !r->kinds || !r->kidx.slot) {
		if (r)
			kprof_roofline_free(r);
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	r->peaks = *p;
	r->flops_idx = counter_idx(cdesc, ncounters, p->flops_counter);
	r->bytes_idx[0] = counter_idx(cdesc, ncounters, p->bytes_counters[0]);
	r->bytes_idx[1] = counter_idx(cdesc, ncounters, p->bytes_counters[1]);
	r->csv = csv;
	if (csv) {
		/* one header line, written in parts */
		fputs("GLOBAL CALL COUNT,OP CODE,CORES,CLOCK [MHz],TIME [ns],FLOPS,BYTES,", csv);
		fputs("INTENSITY [FLOP/B],ACHIEVED [GFLOP/s],ACHIEVED [GB/s],", csv);
		fputs("PEAK [GFLOP/s],PEAK [GB/s],RIDGE [FLOP/B],ATTAINABLE [GFLOP/s],", csv);
		fputs("FLOP PEAK %,BW PEAK %,", csv);
		fputs("EFFICIENCY %,BOUND\n", csv);
	}
	return r;
}

void kprof_roofline_free(struct kprof_roofline *r)
{
	if (!r)
		return;
	free(r->kinds);
	kprof_hidx_free(&r->kidx);
	free(r);
}

int kprof_roofline_has_counters(const struct kprof_roofline *r)
{
	return r->flops_idx >= 0 && r->bytes_idx[0] >= 0;
}

/* the key of kind code in r->kidx */
static struct kprof_hidx_str kind_key(const struct kprof_roofline *r, const char *code)
{
	return (struct kprof_hidx_str){ r->kinds, sizeof(*r->kinds),
					offsetof(struct kprof_roof_kind, op_code), code };
}

/* by hash: a capture may hold hundreds of kinds (a GPU's kernel names) */
static struct kprof_roof_kind *kind_of(struct kprof_roofline *r, const char *code)
{
	struct kprof_hidx_str key = kind_key(r, code);
	size_t pos = kprof_hidx_slot(&r->kidx, kprof_hash_str(code), kprof_hidx_str_eq, &key);

	if (r->kidx.slot[pos])
		return &r->kinds[r->kidx.slot[pos] - 1];
	if (r->nkinds == MAX_KINDS) {
		struct kprof_roof_kind *k = &r->kinds[MAX_KINDS];

		snprintf(k->op_code, sizeof(k->op_code), "(other)");
		return k;
	}
	snprintf(r->kinds[r->nkinds].op_code, sizeof(r->kinds[0].op_code), "%s", code);
	r->kidx.slot[pos] = ++r->nkinds;
	return &r->kinds[r->nkinds - 1];
}

/* sum of a counter over cores; -1 if the op has none */
static double counter(const struct kprof_op_row *row, int i)
{
	if (i < 0 || !(row->counter_mask & (1ULL << i)))
		return -1;
	return (double)row->counter_sum[i];
}

static void cell(FILE *f, double v, const char *fmt)
{
	fputc(',', f);
	if (!isnan(v) && !isinf(v))
		fprintf(f, fmt, v);
}

int kprof_roofline_op(struct kprof_roofline *r, const struct kprof_op_row *row)
{
	struct kprof_roof_kind *k = kind_of(r, row->op_code[0] ? row->op_code : "-");
	double t = !isnan(row->fw_duration_ns) ? row->fw_duration_ns : row->kernel_duration_ns;
	double fl = counter(row, r->flops_idx), b0 = counter(row, r->bytes_idx[0]);
	double b1 = r->bytes_idx[1] >= 0 ? counter(row, r->bytes_idx[1]) : 0;
	unsigned int cores = row->core_count;
	struct kprof_roof_point pt;

	if (!cores && r->flops_idx >= 0)
		cores = row->counter_cores[r->flops_idx];
	k->ops++;
	if (!isnan(t))
		k->time_ns += t;
	memset(&pt, 0, sizeof(pt));	/* KPROF_BOUND_NONE */
	if (fl >= 0 && b0 >= 0 && b1 >= 0 && !isnan(t))
		kprof_roofline_eval(&r->peaks, fl, b0 + b1, t, cores, row->clock_mhz, &pt);
	if (pt.bound != KPROF_BOUND_NONE) {
		k->ops_classified++;
		k->class_time_ns += t;
		k->bound_time_ns[pt.bound] += t;
		k->flops += fl;
		k->bytes += b0 + b1;
		k->gain_ns += t * (1 - pt.efficiency);
	}
	if (!r->csv)
		return 0;
	fprintf(r->csv, "%" PRIu64 ",", row->seq);
	if (row->op_code[0])
		kprof_csv_field(r->csv, row->op_code);
	else	/* no OP CODE: a plain "-", not a name to neutralise */
		fputc('-', r->csv);
	fprintf(r->csv, ",%u,%u", cores, row->clock_mhz);
	cell(r->csv, t, "%.0f");
	if (pt.bound == KPROF_BOUND_NONE) {
		fputs(",,,,,,,,,,,,,unclassified\n", r->csv);
		return ferror(r->csv) ? -EIO : 0;
	}
	fprintf(r->csv, ",%.0f,%.0f", fl, b0 + b1);
	cell(r->csv, pt.intensity, "%.4g");
	cell(r->csv, pt.achieved_flops / 1e9, "%.4f");
	cell(r->csv, pt.achieved_bytes / 1e9, "%.4f");
	cell(r->csv, pt.peak_flops / 1e9, "%.4f");
	cell(r->csv, pt.peak_bytes / 1e9, "%.4f");
	cell(r->csv, pt.ridge, "%.4g");
	cell(r->csv, pt.attainable_flops / 1e9, "%.4f");
	cell(r->csv, 100 * pt.flops_frac, "%.2f");
	cell(r->csv, 100 * pt.bytes_frac, "%.2f");
	cell(r->csv, 100 * pt.efficiency, "%.2f");
	fprintf(r->csv, ",%s\n", kprof_bound_name(pt.bound));
	return ferror(r->csv) ? -EIO : 0;
}

static int cmp_gain(const void *a, const void *b)
{
	const struct kprof_roof_kind *x = a, *y = b;

	if (x->gain_ns != y->gain_ns)
		return x->gain_ns > y->gain_ns ? -1 : 1;
	return strcmp(x->op_code, y->op_code);
}

int kprof_roofline_finish(struct kprof_roofline *r, struct kprof_err *err)
{
	if (r->kinds[MAX_KINDS].ops)	/* the pooled kind joins the list */
		r->kinds[r->nkinds++] = r->kinds[MAX_KINDS];
	for (size_t i = 0; i < r->nkinds; i++) {
		struct kprof_roof_kind *k = &r->kinds[i];

		k->bound = KPROF_BOUND_NONE;
		for (int b = KPROF_BOUND_MEMORY; b < KPROF_BOUND_COUNT; b++)
			if (k->bound_time_ns[b] > 0 &&
			    (k->bound == KPROF_BOUND_NONE ||
			     k->bound_time_ns[b] > k->bound_time_ns[k->bound]))
				k->bound = b;
	}
	qsort(r->kinds, r->nkinds, sizeof(*r->kinds), cmp_gain);
	r->sorted = 1;
	/* the index names the places before the sort: made again */
	memset(r->kidx.slot, 0, r->kidx.cap * sizeof(*r->kidx.slot));
	for (size_t i = 0; i < r->nkinds; i++) {
		struct kprof_hidx_str key = kind_key(r, r->kinds[i].op_code);

		r->kidx.slot[kprof_hidx_slot(&r->kidx, kprof_hash_str(key.s), kprof_hidx_str_eq,
					     &key)] = i + 1;
	}
	if (r->csv && ferror(r->csv))
		return kprof_err_set(err, EIO, "writing roofline.csv failed");
	return 0;
}

const struct kprof_roof_kind *kprof_roofline_kinds(const struct kprof_roofline *r, size_t *n)
{
	*n = r->sorted ? r->nkinds : 0;
	return r->kinds;
}

enum kprof_bound kprof_roofline_verdict(const struct kprof_roofline *r, double *share)
{
	double t[KPROF_BOUND_COUNT] = { 0 }, all = 0;
	enum kprof_bound best = KPROF_BOUND_NONE;

	for (size_t i = 0; i < r->nkinds; i++)
		for (int b = KPROF_BOUND_MEMORY; b < KPROF_BOUND_COUNT; b++) {
			t[b] += r->kinds[i].bound_time_ns[b];
			all += r->kinds[i].bound_time_ns[b];
		}
	for (int b = KPROF_BOUND_MEMORY; b < KPROF_BOUND_COUNT; b++)
		if (t[b] > 0 && (best == KPROF_BOUND_NONE || t[b] > t[best]))
			best = b;
	if (share)
		*share = best != KPROF_BOUND_NONE ? t[best] / all : 0;
	return best;
}

#define ADVICE_COMPUTE "near the FLOP roof at best: raise math efficiency (tiling, lower precision / math fidelity), or spread over more cores"
#define ADVICE_MEMORY "bandwidth-limited: move fewer bytes (fuse with neighbours, keep data in L1, smaller data types)"

static const char *advice(enum kprof_bound b)
{
	switch (b) {
	case KPROF_BOUND_COMPUTE:
		return ADVICE_COMPUTE;
	case KPROF_BOUND_MEMORY:
		return ADVICE_MEMORY;
	case KPROF_BOUND_LATENCY:
		return "far from both roofs: fixed costs dominate; fuse or batch into bigger ops";
	default:
		return "no counters: capture with the flops/bytes counters to classify";
	}
}

static void md_bubbles(FILE *f, const struct kprof_bubbles *b)
{
	const struct kprof_bub_totals *t = kprof_bubbles_finish((struct kprof_bubbles *)b);
	const char *adv[8];
	unsigned int n = kprof_bubbles_advice(b, adv, 8);

	fprintf(f,
		"\nDevice idle: bubble rate %.2f%%, utilization %.2f%% over a %.0f ns window on %u cores; rating **%s**.\n",
		100 * t->bubble_rate, 100 * t->utilization, t->window_ns, t->cores_used,
		t->rating);
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "- %s\n", adv[i]);
}

static void md_roofline(FILE *f, const struct kprof_roofline *r, const struct kprof_bubbles *b)
{
	const struct kprof_peaks *p = &r->peaks;
	double share, all = 0, gain = 0;
	enum kprof_bound v = kprof_roofline_verdict(r, &share);
	unsigned int top = 0;

	for (size_t i = 0; i < r->nkinds; i++) {
		all += r->kinds[i].time_ns;
		gain += r->kinds[i].gain_ns;
	}
	/* names (device, op codes) from the capture and peaks file are
	 * Markdown-escaped: kprof_md_put()
	 */
	fputs("Peaks: ", f);
	kprof_md_put(f, p->device);
	fprintf(f, ", %.6g GFLOP/s and %.6g GB/s per %s",
		p->flops_per_s / 1e9, p->bytes_per_s / 1e9, p->per_core ? "core" : "device");
	if (p->clock_mhz > 0)
		fprintf(f, " at %.6g MHz (FLOP/s scaled by each op's clock)", p->clock_mhz);
	fprintf(f, ", ridge %.4g FLOP/B.\n\n", p->flops_per_s / p->bytes_per_s);
	fprintf(f, "## Verdict\n\n");
	if (v == KPROF_BOUND_NONE) {
		fprintf(f, "**Unclassified**: %s.\n",
			kprof_roofline_has_counters(r) ? "no op had both counters and a duration" :
			"the capture has no flops/bytes counters named as in the peaks file");
	} else {
		fprintf(f, "**Mostly %s**: %.1f%% of classified op time is in %s ops.",
			kprof_bound_name(v), 100 * share, kprof_bound_name(v));
		if (all > 0)
			fprintf(f,
				" Estimated gain if every op reached its roof: %.1f%% of op time.",
				100 * gain / all);
		fputc('\n', f);
	}
	if (b)
		md_bubbles(f, b);
	fprintf(f,
		"\n## Top opportunities\n\nRanked by estimated gain = op time x (1 - achieved / attainable), summed per op kind.\n\n");
	for (size_t i = 0; i < r->nkinds && top < 3; i++) {
		const struct kprof_roof_kind *k = &r->kinds[i];

		if (!(k->gain_ns >= 1))	/* rounding leftovers are not a gain */
			break;
		top++;
		fprintf(f, "%u. **", top);
		kprof_md_put(f, k->op_code);
		fprintf(f, "** (%s): gain %.0f ns = %.1f%% of op time; %" PRIu64
			" ops, %.0f ns, efficiency %.1f%%. %s.\n",
			kprof_bound_name(k->bound), k->gain_ns,
			all > 0 ? 100 * k->gain_ns / all : 0.0, k->ops, k->time_ns,
			k->class_time_ns > 0 ? 100 * (1 - k->gain_ns / k->class_time_ns) : 0.0,
			advice(k->bound));
	}
	if (!top)
		fprintf(f, "None: no classified op kind has a gain.\n");
	fprintf(f,
		"\n## Op kinds\n\n| OP CODE | OPS | TIME [ns] | INTENSITY [FLOP/B] | EFFICIENCY %% | GAIN [ns] | BOUND |\n|---|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < r->nkinds; i++) {
		const struct kprof_roof_kind *k = &r->kinds[i];

		fputs("| ", f);
		kprof_md_put(f, k->op_code);
		fprintf(f, " | %" PRIu64 " | %.0f | ", k->ops, k->time_ns);
		if (k->bytes > 0)
			fprintf(f, "%.4g", k->flops / k->bytes);
		else
			fputs("-", f);
		if (k->class_time_ns > 0)
			fprintf(f, " | %.1f | %.0f | %s |\n",
				100 * (1 - k->gain_ns / k->class_time_ns),
				k->gain_ns, kprof_bound_name(k->bound));
		else
			fprintf(f, " | - | - | %s |\n", kprof_bound_name(k->bound));
	}
}

int kprof_roofline_report_md(const struct kprof_roofline *r, const struct kprof_bubbles *b,
			     const char *device_label, const char *no_roof_note,
			     FILE *f)
{
	fputs("# kprof report\n\nDevice: ", f);
	kprof_md_put(f, device_label);
	fputs(". ", f);
	if (r) {
		md_roofline(f, r, b);
	} else {
		fputs("\n\n## Verdict\n\n**No roofline**: ", f);
		kprof_md_put(f, no_roof_note && no_roof_note[0] ? no_roof_note : "no peaks file");
		fputs(".\n", f);
		if (b)
			md_bubbles(f, b);
	}
	fprintf(f,
		"\nPer-op figures: roofline.csv. Bubbles per core: bubbles.csv and summary.txt. Labels and thresholds: docs/formats.md.\n");
	return ferror(f) ? -EIO : 0;
}
