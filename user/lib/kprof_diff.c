// SPDX-License-Identifier: GPL-2.0
/* Baseline diff of two captures by op kind (see kprof_diff.h). */
#include "kprof_diff.h"
#include "kprof_csvread.h"
#include "kprof_hash.h"
#include "kprof_text.h"
#include "kprof_writers.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct vec {
	double *v;
	size_t n, cap;
};

/* Distinct strings, each with its index, found by hash. */
struct names {
	char **s;
	size_t n, cap;
	struct kprof_hidx h;
};

/* The values of one (kind, metric) pair: only pairs seen exist, so
 * memory follows the rows read, whatever mix of names they hold.
 */
struct cell {
	size_t kind, metric;
	struct vec s[2];
};

struct kprof_diff {
	struct names kinds, metrics;
	struct cell *cells;
	size_t ncells, capcells;
	struct kprof_hidx ch;	/* (kind, metric) -> cell */
	struct kprof_diff_row *rows;
	size_t nrows;
};

/* The duration columns of ops.csv compared, and their short names. */
static const char *const dur_cols[][2] = {
	{ "DEVICE KERNEL DURATION [ns]", "kernel [ns]" },
	{ "DEVICE FW DURATION [ns]", "fw [ns]" },
	{ "HOST DURATION [ns]", "host [ns]" },
};

struct kprof_diff *kprof_diff_new(void)
{
	return calloc(1, sizeof(struct kprof_diff));
}

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	kprof_hidx_free(&t->h);
}

void kprof_diff_free(struct kprof_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ncells; i++) {
		free(d->cells[i].s[0].v);
		free(d->cells[i].s[1].v);
	}
	free(d->cells);
	kprof_hidx_free(&d->ch);
	names_free(&d->kinds);
	names_free(&d->metrics);
	free(d->rows);
	free(d);
}

/* Makes room for one more element of elem bytes in *arr. */
static int grow(void *arr, size_t *cap, size_t n, size_t elem)
{
	void **a = arr;
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*a, c * elem);
	if (!p)
		return -ENOMEM;
	*a = p;
	*cap = c;
	return 0;
}

struct name_key {
	const struct names *t;
	const char *name;
};

static int name_eq(const void *key, size_t i)
{
	const struct name_key *k = key;

	return !strcmp(k->t->s[i], k->name);
}

static size_t name_hash(const void *arr, size_t i)
{
	return kprof_hash_str(((const struct names *)arr)->s[i]);
}

/* Index of name in t, added if new; -1: out of memory. */
static long name_index(struct names *t, const char *name)
{
	struct name_key key = { t, name };
	size_t h = kprof_hash_str(name), pos;
	char *dup;

	if (t->h.cap) {
		pos = kprof_hidx_slot(&t->h, h, name_eq, &key);
		if (t->h.slot[pos])
			return (long)(t->h.slot[pos] - 1);
	}
	if (kprof_hidx_reserve(&t->h, t->n, name_hash, t) ||
	    grow(&t->s, &t->cap, t->n, sizeof(*t->s)))
		return -1;
	dup = strdup(name);
	if (!dup)
		return -1;
	pos = kprof_hidx_slot(&t->h, h, name_eq, &key);
	t->s[t->n] = dup;
	t->h.slot[pos] = t->n + 1;
	return (long)t->n++;
}

struct cell_key {
	const struct cell *cells;
	size_t kind, metric;
};

static size_t pair_hash(size_t k, size_t m)
{
	return kprof_hash_u64(((uint64_t)k << 32) ^ m ^ ((uint64_t)m >> 32));
}

static int cell_eq(const void *key, size_t i)
{
	const struct cell_key *k = key;

	return k->cells[i].kind == k->kind && k->cells[i].metric == k->metric;
}

static size_t cell_hash(const void *arr, size_t i)
{
	const struct cell *c = &((const struct cell *)arr)[i];

	return pair_hash(c->kind, c->metric);
}

static struct cell *find_cell(struct kprof_diff *d, size_t k, size_t m)
{
	struct cell_key key = { d->cells, k, m };
	size_t h = pair_hash(k, m), pos;
	struct cell *c;

	if (d->ch.cap) {
		pos = kprof_hidx_slot(&d->ch, h, cell_eq, &key);
		if (d->ch.slot[pos])
			return &d->cells[d->ch.slot[pos] - 1];
	}
	if (kprof_hidx_reserve(&d->ch, d->ncells, cell_hash, d->cells) ||
	    grow(&d->cells, &d->capcells, d->ncells, sizeof(*d->cells)))
		return NULL;
	key.cells = d->cells;
	pos = kprof_hidx_slot(&d->ch, h, cell_eq, &key);
	c = &d->cells[d->ncells];
	memset(c, 0, sizeof(*c));
	c->kind = k;
	c->metric = m;
	d->ch.slot[pos] = ++d->ncells;
	return c;
}

int kprof_diff_add(struct kprof_diff *d, int side, const char *op, const char *metric,
		   double v)
{
	long k, m;
	struct cell *c;
	struct vec *vec;

	if (side < 0 || side > 1)
		return -EINVAL;
	k = name_index(&d->kinds, op);
	m = name_index(&d->metrics, metric);
	if (k < 0 || m < 0)
		return -ENOMEM;
	c = find_cell(d, (size_t)k, (size_t)m);
	if (!c)
		return -ENOMEM;
	vec = &c->s[side];
	if (grow(&vec->v, &vec->cap, vec->n, sizeof(*vec->v)))
		return -ENOMEM;
	vec->v[vec->n++] = v;
	return 0;
}

/* An empty field is "no value" (docs/formats.md), not zero. */
static int parse_num(const char *s, double *v)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return (errno || *end || !isfinite(*v)) ? -1 : 0;
}

static int need_col(const struct kprof_csv_reader *r, const char *name, const char *path,
		    struct kprof_err *err)
{
	int c = kprof_csv_rcol(r, name);

	if (c < 0)
		return kprof_err_set(err, EBADMSG,
				     "%s: no '%s' column: not a kprof ops.csv / counters.csv",
				     path, name);
	return c;
}

/* Rows are streamed: memory holds the values, not the file. */
static int add_ops(struct kprof_diff *d, int side, const char *path, struct kprof_err *err)
{
	struct kprof_csv_reader r;
	int ret, cop, cols[3];

	ret = kprof_csv_open(path, &r, err);
	if (ret)
		return ret;
	ret = need_col(&r, "OP CODE", path, err);
	cop = ret;
	for (int i = 0; i < 3 && ret >= 0; i++) {
		ret = need_col(&r, dur_cols[i][0], path, err);
		cols[i] = ret;
	}
	while (ret >= 0 && (ret = kprof_csv_next(&r, err)) > 0) {
		for (int i = 0; i < 3 && ret >= 0; i++) {
			double v;

			if (parse_num(r.row[cols[i]], &v))
				continue;
			ret = kprof_diff_add(d, side, r.row[cop], dur_cols[i][1], v);
			if (ret)
				kprof_err_set(err, ENOMEM, "out of memory");
		}
	}
	kprof_csv_close(&r);
	return ret < 0 ? ret : 0;
}

static int add_counters(struct kprof_diff *d, int side, const char *path,
			struct kprof_err *err)
{
	struct kprof_csv_reader r;
	int ret, co, cc, cu, cs;

	ret = kprof_csv_open(path, &r, err);
	if (ret)
		return ret;
	co = need_col(&r, "OP CODE", path, err);
	cc = co < 0 ? co : need_col(&r, "COUNTER", path, err);
	cu = cc < 0 ? cc : need_col(&r, "UNIT", path, err);
	cs = cu < 0 ? cu : need_col(&r, "SUM", path, err);
	ret = cs < 0 ? cs : 0;
	while (!ret && (ret = kprof_csv_next(&r, err)) > 0) {
		char name[160];
		double v;

		ret = 0;
		if (parse_num(r.row[cs], &v))
			continue;
		if (r.row[cu][0])
			snprintf(name, sizeof(name), "%s [%s]", r.row[cc], r.row[cu]);
		else
			snprintf(name, sizeof(name), "%s", r.row[cc]);
		ret = kprof_diff_add(d, side, r.row[co], name, v);
		if (ret)
			kprof_err_set(err, ENOMEM, "out of memory");
	}
	kprof_csv_close(&r);
	return ret;
}

int kprof_diff_add_capture(struct kprof_diff *d, int side, const char *dir,
			   struct kprof_err *err)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/ops.csv", dir);
	ret = add_ops(d, side, path, err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/counters.csv", dir);
	if (access(path, F_OK))
		return 0;	/* no counters: durations only */
	return add_counters(d, side, path, err);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sort keys: kinds by name, then cells by (kind rank, metric). */
struct kname {
	const char *name;
	size_t idx;
};

struct ckey {
	size_t rank, metric, cell;
};

static int cmp_kname(const void *a, const void *b)
{
	return strcmp(((const struct kname *)a)->name, ((const struct kname *)b)->name);
}

static int cmp_ckey(const void *a, const void *b)
{
	const struct ckey *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->metric > y->metric) - (x->metric < y->metric);
}

/* Cell indexes in row order: kinds in byte order, metrics first-seen. */
static size_t *row_order(const struct kprof_diff *d)
{
	struct kname *kn = malloc((d->kinds.n ? d->kinds.n : 1) * sizeof(*kn));
	size_t *rank = malloc((d->kinds.n ? d->kinds.n : 1) * sizeof(*rank));
	struct ckey *ck = malloc((d->ncells ? d->ncells : 1) * sizeof(*ck));
	size_t *order = malloc((d->ncells ? d->ncells : 1) * sizeof(*order));

	if (!kn || !rank || !ck || !order) {
		free(order);
		order = NULL;
		goto out;
	}
	for (size_t i = 0; i < d->kinds.n; i++)
		kn[i] = (struct kname){ d->kinds.s[i], i };
	qsort(kn, d->kinds.n, sizeof(*kn), cmp_kname);
	for (size_t i = 0; i < d->kinds.n; i++)
		rank[kn[i].idx] = i;
	for (size_t i = 0; i < d->ncells; i++)
		ck[i] = (struct ckey){ rank[d->cells[i].kind], d->cells[i].metric, i };
	qsort(ck, d->ncells, sizeof(*ck), cmp_ckey);
	for (size_t i = 0; i < d->ncells; i++)
		order[i] = ck[i].cell;
out:
	free(kn);
	free(rank);
	free(ck);
	return order;
}

/* Sorts v in place; median, and the MAD-based SE of the median. */
static void stats(struct vec *s, double *mean, double *med, double *tot, double *se)
{
	double sum = 0, *dev;
	size_t n = s->n;

	*mean = *med = *tot = *se = NAN;
	if (!n)
		return;
	qsort(s->v, n, sizeof(double), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += s->v[i];
	*tot = sum;
	*mean = sum / (double)n;
	*med = n % 2 ? s->v[n / 2] : (s->v[n / 2 - 1] + s->v[n / 2]) / 2;
	if (n < 2)
		return;
	dev = malloc(n * sizeof(*dev));
	if (!dev)
		return;
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(s->v[i] - *med);
	qsort(dev, n, sizeof(double), cmp_double);
	{
		double mad = n % 2 ? dev[n / 2] : (dev[n / 2 - 1] + dev[n / 2]) / 2;

		*se = 1.2533 * 1.4826 * mad / sqrt((double)n);
	}
	free(dev);
}

int kprof_diff_compute(struct kprof_diff *d, const struct kprof_diff_opts *opts,
		       const struct kprof_diff_row **rows, size_t *n)
{
	double thr = opts && opts->threshold_pct > 0 ? opts->threshold_pct :
		KPROF_DIFF_THRESHOLD_PCT;
	double k = opts && opts->k > 0 ? opts->k : KPROF_DIFF_K;
	size_t *order;

	free(d->rows);
	d->rows = NULL;
	d->nrows = 0;
	order = row_order(d);
	d->rows = calloc(d->ncells ? d->ncells : 1, sizeof(*d->rows));
	if (!order || !d->rows) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->ncells; i++) {
		struct cell *c = &d->cells[order[i]];
		struct kprof_diff_row *r;
		double sea, seb, noise, diff;

		r = &d->rows[d->nrows++];
		r->op = d->kinds.s[c->kind];
		r->metric = d->metrics.s[c->metric];
		r->na = c->s[0].n;
		r->nb = c->s[1].n;
		stats(&c->s[0], &r->mean_a, &r->med_a, &r->tot_a, &sea);
		stats(&c->s[1], &r->mean_b, &r->med_b, &r->tot_b, &seb);
		r->change_pct = NAN;
		r->noise_pct = NAN;
		if (!r->na) {
			r->flag = KPROF_DIFF_ONLY_B;
			continue;
		}
		if (!r->nb) {
			r->flag = KPROF_DIFF_ONLY_A;
			continue;
		}
		diff = r->med_b - r->med_a;
		if (r->med_a != 0)
			r->change_pct = diff / fabs(r->med_a) * 100.0;
		else if (diff == 0)
			r->change_pct = 0;
		if (r->na < 2 || r->nb < 2) {
			r->flag = KPROF_DIFF_FEW;
			continue;
		}
		noise = k * sqrt(sea * sea + seb * seb);
		if (r->med_a != 0)
			r->noise_pct = noise / fabs(r->med_a) * 100.0;
		/* change_pct NAN (baseline 0, now not): beyond any threshold */
		if ((isnan(r->change_pct) || fabs(r->change_pct) > thr) &&
		    fabs(diff) > noise)
			r->flag = diff > 0 ? KPROF_DIFF_SLOWER : KPROF_DIFF_FASTER;
		else
			r->flag = KPROF_DIFF_SAME;
	}
	free(order);
	*rows = d->rows;
	*n = d->nrows;
	return 0;
}

const char *kprof_diff_flag_name(enum kprof_diff_flag f)
{
	switch (f) {
	case KPROF_DIFF_SAME:
		return "";
	case KPROF_DIFF_SLOWER:
		return "UP";
	case KPROF_DIFF_FASTER:
		return "DOWN";
	case KPROF_DIFF_ONLY_A:
		return "only in A";
	case KPROF_DIFF_ONLY_B:
		return "only in B";
	case KPROF_DIFF_FEW:
		return "n<2";
	}
	return "?";
}

/* Compact number: 4 significant digits with k/M/G suffixes; "-" for NAN. */
static void fmt_num(char *out, size_t len, double v)
{
	static const char *const suf[] = { "", "k", "M", "G", "T" };
	int i = 0;

	if (isnan(v)) {
		snprintf(out, len, "-");
		return;
	}
	while (fabs(v) >= 9999.5 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(out, len, "%.4g%s", v, suf[i]);
}

static void fmt_pct(char *out, size_t len, double v, int sign)
{
	if (isnan(v))
		snprintf(out, len, "-");
	else
		snprintf(out, len, sign ? "%+.1f%%" : "%.1f%%", v);
}

/*
 * A name as the terminal may show it (kprof_text.h: no control
 * characters), cut with a '~' when longer than the column (len - 1).
 */
static void name_cell(char *out, size_t len, const char *s)
{
	if (kprof_text_safen(out, len, s, SIZE_MAX) < len)
		return;
	kprof_text_safen(out, len - 1, s, SIZE_MAX);
	strcat(out, "~");
}

void kprof_diff_print(FILE *f, const struct kprof_diff_row *rows, size_t n)
{
	const char *prev = NULL;

	/* 19 + 25 + 2*6 + 3*9 + 7 + 10 = 100 columns at most */
	fprintf(f, "%-19s %-24s %5s %5s %8s %8s %8s %6s %s\n", "OP CODE", "METRIC",
		"N A", "N B", "MEDIAN A", "MEDIAN B", "CHANGE", "NOISE", "FLAG");
	for (size_t i = 0; i < n; i++) {
		const struct kprof_diff_row *r = &rows[i];
		char ma[16], mb[16], ch[16], no[16], op[20], me[25];

		fmt_num(ma, sizeof(ma), r->med_a);
		fmt_num(mb, sizeof(mb), r->med_b);
		fmt_pct(ch, sizeof(ch), r->change_pct, 1);
		fmt_pct(no, sizeof(no), r->noise_pct, 0);
		name_cell(op, sizeof(op), r->op[0] ? r->op : "(no OP CODE)");
		name_cell(me, sizeof(me), r->metric);
		fprintf(f, "%-19s %-24s %5zu %5zu %8s %8s %8s %6s%s%s\n",
			prev && !strcmp(prev, r->op) ? "" : op, me, r->na, r->nb, ma, mb, ch, no,
			r->flag ? " " : "", kprof_diff_flag_name(r->flag));
		prev = r->op;
	}
}

static void csv_num(FILE *f, double v)
{
	if (isnan(v))
		fputc(',', f);
	else
		fprintf(f, ",%.6g", v);
}

#define DIFF_CSV_HEADER "OP CODE,METRIC,N A,N B,MEAN A,MEAN B,MEDIAN A,MEDIAN B,TOTAL A,TOTAL B,CHANGE [%],NOISE [%],FLAG\n"

int kprof_diff_write_csv(FILE *f, const struct kprof_diff_row *rows, size_t n)
{
	fputs(DIFF_CSV_HEADER, f);
	for (size_t i = 0; i < n; i++) {
		const struct kprof_diff_row *r = &rows[i];

		kprof_csv_field(f, r->op);
		fputc(',', f);
		kprof_csv_field(f, r->metric);
		fprintf(f, ",%zu,%zu", r->na, r->nb);
		csv_num(f, r->mean_a);
		csv_num(f, r->mean_b);
		csv_num(f, r->med_a);
		csv_num(f, r->med_b);
		csv_num(f, r->tot_a);
		csv_num(f, r->tot_b);
		csv_num(f, r->change_pct);
		csv_num(f, r->noise_pct);
		fputc(',', f);
		kprof_csv_field(f, kprof_diff_flag_name(r->flag));
		fputc('\n', f);
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
