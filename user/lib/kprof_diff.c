// SPDX-License-Identifier: GPL-2.0
/* Baseline diff of two captures by op kind (see kprof_diff.h). */
#include "kprof_diff.h"
#include "kprof_csvread.h"
#include "kprof_writers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct vec {
	double *v;
	size_t n, cap;
};

struct cell {
	struct vec s[2];
};

struct kind {
	char *op;
	struct cell *cells;	/* one per metric */
	size_t ncells;
};

struct kprof_diff {
	char **metrics;
	size_t nmetrics;
	struct kind *kinds;
	size_t nkinds;
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

void kprof_diff_free(struct kprof_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nkinds; i++) {
		for (size_t m = 0; m < d->kinds[i].ncells; m++) {
			free(d->kinds[i].cells[m].s[0].v);
			free(d->kinds[i].cells[m].s[1].v);
		}
		free(d->kinds[i].cells);
		free(d->kinds[i].op);
	}
	for (size_t m = 0; m < d->nmetrics; m++)
		free(d->metrics[m]);
	free(d->metrics);
	free(d->kinds);
	free(d->rows);
	free(d);
}

static long metric_index(struct kprof_diff *d, const char *name)
{
	char **m, *s;

	for (size_t i = 0; i < d->nmetrics; i++)
		if (!strcmp(d->metrics[i], name))
			return (long)i;
	m = realloc(d->metrics, (d->nmetrics + 1) * sizeof(*m));
	if (!m)
		return -1;
	d->metrics = m;
	s = strdup(name);
	if (!s)
		return -1;
	d->metrics[d->nmetrics] = s;
	return (long)d->nmetrics++;
}

static struct kind *find_kind(struct kprof_diff *d, const char *op)
{
	struct kind *k;

	/* ops.csv rows of one kind often come in runs: look at the last first */
	for (size_t i = d->nkinds; i-- > 0;)
		if (!strcmp(d->kinds[i].op, op))
			return &d->kinds[i];
	k = realloc(d->kinds, (d->nkinds + 1) * sizeof(*k));
	if (!k)
		return NULL;
	d->kinds = k;
	k = &d->kinds[d->nkinds];
	memset(k, 0, sizeof(*k));
	k->op = strdup(op);
	if (!k->op)
		return NULL;
	d->nkinds++;
	return k;
}

int kprof_diff_add(struct kprof_diff *d, int side, const char *op, const char *metric,
		   double v)
{
	long mi = metric_index(d, metric);
	struct kind *k;
	struct vec *vec;

	if (mi < 0 || side < 0 || side > 1)
		return -ENOMEM;
	k = find_kind(d, op);
	if (!k)
		return -ENOMEM;
	if ((size_t)mi >= k->ncells) {
		struct cell *c = realloc(k->cells, (size_t)(mi + 1) * sizeof(*c));

		if (!c)
			return -ENOMEM;
		memset(c + k->ncells, 0, ((size_t)mi + 1 - k->ncells) * sizeof(*c));
		k->cells = c;
		k->ncells = (size_t)mi + 1;
	}
	vec = &k->cells[mi].s[side];
	if (vec->n == vec->cap) {
		size_t nc = vec->cap ? vec->cap * 2 : 16;
		double *nv = realloc(vec->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		vec->v = nv;
		vec->cap = nc;
	}
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

static int need_col(const struct kprof_csv_table *t, const char *name, const char *path,
		    struct kprof_err *err)
{
	int c = kprof_csv_col(t, name);

	if (c < 0)
		return kprof_err_set(err, EBADMSG, "%s: no '%s' column: not a kprof ops.csv / counters.csv",
				     path, name);
	return c;
}

int kprof_diff_add_capture(struct kprof_diff *d, int side, const char *dir,
			   struct kprof_err *err)
{
	struct kprof_csv_table t;
	char path[4096];
	int ret, cop, cols[3];

	snprintf(path, sizeof(path), "%s/ops.csv", dir);
	ret = kprof_csv_load(path, &t, err);
	if (ret)
		return ret;
	cop = ret = need_col(&t, "OP CODE", path, err);
	for (int i = 0; i < 3 && ret >= 0; i++)
		cols[i] = ret = need_col(&t, dur_cols[i][0], path, err);
	for (size_t r = 0; r < t.nrows && ret >= 0; r++) {
		for (int i = 0; i < 3 && ret >= 0; i++) {
			double v;

			if (parse_num(t.rows[r][cols[i]], &v))
				continue;
			ret = kprof_diff_add(d, side, t.rows[r][cop], dur_cols[i][1], v);
			if (ret)
				kprof_err_set(err, ENOMEM, "out of memory");
		}
	}
	kprof_csv_free(&t);
	if (ret < 0)
		return ret;

	snprintf(path, sizeof(path), "%s/counters.csv", dir);
	if (access(path, F_OK))
		return 0;	/* no counters: durations only */
	ret = kprof_csv_load(path, &t, err);
	if (ret)
		return ret;
	{
		int co = need_col(&t, "OP CODE", path, err), cc, cu, cs;

		cc = co < 0 ? co : need_col(&t, "COUNTER", path, err);
		cu = cc < 0 ? cc : need_col(&t, "UNIT", path, err);
		cs = cu < 0 ? cu : need_col(&t, "SUM", path, err);
		ret = cs < 0 ? cs : 0;
		for (size_t r = 0; r < t.nrows && !ret; r++) {
			char name[160];
			double v;

			if (parse_num(t.rows[r][cs], &v))
				continue;
			if (t.rows[r][cu][0])
				snprintf(name, sizeof(name), "%s [%s]", t.rows[r][cc], t.rows[r][cu]);
			else
				snprintf(name, sizeof(name), "%s", t.rows[r][cc]);
			ret = kprof_diff_add(d, side, t.rows[r][co], name, v);
			if (ret)
				kprof_err_set(err, ENOMEM, "out of memory");
		}
	}
	kprof_csv_free(&t);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_kind(const void *a, const void *b)
{
	return strcmp(((const struct kind *)a)->op, ((const struct kind *)b)->op);
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
	size_t cap = 0;

	free(d->rows);
	d->rows = NULL;
	d->nrows = 0;
	qsort(d->kinds, d->nkinds, sizeof(*d->kinds), cmp_kind);
	for (size_t i = 0; i < d->nkinds; i++)
		cap += d->kinds[i].ncells;
	d->rows = calloc(cap ? cap : 1, sizeof(*d->rows));
	if (!d->rows)
		return -ENOMEM;
	for (size_t i = 0; i < d->nkinds; i++) {
		struct kind *kd = &d->kinds[i];

		for (size_t m = 0; m < kd->ncells; m++) {
			struct cell *c = &kd->cells[m];
			struct kprof_diff_row *r;
			double sea, seb, noise, diff;

			if (!c->s[0].n && !c->s[1].n)
				continue;
			r = &d->rows[d->nrows++];
			r->op = kd->op;
			r->metric = d->metrics[m];
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
	}
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
		/* names longer than the column are cut with a '~' */
		snprintf(op, sizeof(op), "%s", r->op[0] ? r->op : "(no OP CODE)");
		if (strlen(r->op) > 19)
			op[18] = '~';
		snprintf(me, sizeof(me), "%s", r->metric);
		if (strlen(r->metric) > 24)
			me[23] = '~';
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

int kprof_diff_write_csv(FILE *f, const struct kprof_diff_row *rows, size_t n)
{
	fputs("OP CODE,METRIC,N A,N B,MEAN A,MEAN B,MEDIAN A,MEDIAN B,TOTAL A,TOTAL B,"
	      "CHANGE [%],NOISE [%],FLAG\n", f);
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
