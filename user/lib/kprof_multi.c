// SPDX-License-Identifier: GPL-2.0
/* The outputs of a multi-device capture (kprof_multi.h). */
#include "kprof_multi.h"
#include "kprof_csvread.h"
#include "kprof_fs.h"
#include "kprof_hash.h"
#include "kprof_html.h"
#include "kprof_mdhtml.h"
#include "kprof_outdir.h"
#include "kprof_spool.h"
#include "kprof_steps.h"
#include "kprof_text.h"
#include "kprof_trace_merge.h"
#include "kprof_xsort.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json.h>

#define KINDS_SHOWN	20	/* op kinds in report.md's table; the rest summed */
#define SPAN_RUN	(1u << 16)	/* op spans sorted in memory per run */
#define SCAN_PER_KIND	(KPROF_DEVICE_INDEX_MAX + 1)	/* dev0..63, nvidia0..63 */

struct kind {
	char *name;
	uint64_t *count;	/* per device */
	uint64_t total;
};

struct kprof_multi_kinds {
	unsigned int ndev;
	struct kind *k;
	size_t n, cap;
	struct kprof_hidx h;
};

struct kprof_multi_kinds *kprof_multi_kinds_new(unsigned int ndev)
{
	struct kprof_multi_kinds *k = calloc(1, sizeof(*k));

	if (k)
		k->ndev = ndev;
	return k;
}

void kprof_multi_kinds_free(struct kprof_multi_kinds *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++) {
		free(k->k[i].name);
		free(k->k[i].count);
	}
	free(k->k);
	kprof_hidx_free(&k->h);
	free(k);
}

struct kind_key {
	const struct kprof_multi_kinds *t;
	const char *name;
};

static int kind_eq(const void *key, size_t i)
{
	const struct kind_key *k = key;

	return !strcmp(k->t->k[i].name, k->name);
}

static size_t kind_hash(const void *arr, size_t i)
{
	return kprof_hash_str(((const struct kprof_multi_kinds *)arr)->k[i].name);
}

/* One op of kind name on device dev; 0 or -ENOMEM. */
static int kind_add(struct kprof_multi_kinds *t, const char *name, unsigned int dev)
{
	struct kind_key key = { t, name };
	size_t h = kprof_hash_str(name), pos;
	struct kind *k;

	if (t->h.cap) {
		pos = kprof_hidx_slot(&t->h, h, kind_eq, &key);
		if (t->h.slot[pos]) {
			k = &t->k[t->h.slot[pos] - 1];
			goto count;
		}
	}
	if (kprof_hidx_reserve(&t->h, t->n, kind_hash, t))
		return -ENOMEM;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct kind *p = realloc(t->k, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->k = p;
		t->cap = cap;
	}
	k = &t->k[t->n];
	k->name = strdup(name);
	k->count = calloc(t->ndev, sizeof(*k->count));
	k->total = 0;
	if (!k->name || !k->count) {
		free(k->name);
		free(k->count);
		return -ENOMEM;
	}
	pos = kprof_hidx_slot(&t->h, h, kind_eq, &key);
	t->h.slot[pos] = ++t->n;
count:
	if (dev < t->ndev)
		k->count[dev]++;
	k->total++;
	return 0;
}

/* ------------------------------------------------------------------ */

struct span {
	double s, e;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (x->e > y->e) - (x->e < y->e);
}

/* A number field: 1 with *v, 0 when empty or not a number. */
static int num(const char *s, double *v)
{
	char *end;

	if (!s || !*s)
		return 0;
	*v = strtod(s, &end);
	return !*end && isfinite(*v);
}

/* The union of the sorted spans: busy time. */
static int sweep(struct kprof_xsort *x, double *busy, struct kprof_err *err)
{
	double cs = 0, ce = 0, sum = 0;
	const void *p;
	int r, have = 0;

	while ((r = kprof_xsort_next(x, &p, err)) == 1) {
		const struct span *sp = p;

		if (!have || sp->s > ce) {
			if (have)
				sum += ce - cs;
			cs = sp->s;
			ce = sp->e;
			have = 1;
		} else if (sp->e > ce) {
			ce = sp->e;
		}
	}
	if (have)
		sum += ce - cs;
	*busy = sum;
	return r < 0 ? r : 0;
}

int kprof_multi_stats_csv(int fd, const char *path, struct kprof_outdir *spill,
			  unsigned int dev, struct kprof_multi_stats *st,
			  struct kprof_multi_kinds *kinds, struct kprof_steps *steps,
			  struct kprof_err *err)
{
	struct kprof_csv_reader r;
	struct kprof_xsort *x = NULL;
	int cs, ce, ck, cl, co, ret;

	st->ops = 0;
	st->timed = 0;
	st->lost_markers = 0;
	st->ops_not_captured = 0;
	st->ops_unknown = 0;
	st->first_ns = NAN;
	st->last_ns = NAN;
	st->busy_ns = 0;
	st->kernel_ns = 0;
	ret = kprof_csv_open_fd(fd, path, &r, err);
	if (ret)
		return ret;
	cs = kprof_csv_rcol(&r, "DEVICE FW START TS [ns]");
	ce = kprof_csv_rcol(&r, "DEVICE FW END TS [ns]");
	ck = kprof_csv_rcol(&r, "DEVICE KERNEL DURATION [ns]");
	cl = kprof_csv_rcol(&r, "MARKERS LOST");
	co = kprof_csv_rcol(&r, "OP CODE");
	if (cs < 0 || ce < 0 || ck < 0 || co < 0) {
		ret = kprof_err_set(err, EPROTO,
				    "%s: not kprof's ops.csv (no OP CODE, DEVICE FW START/END TS or KERNEL DURATION column)",
				    path);
		goto out;
	}
	x = kprof_xsort_new(sizeof(struct span), cmp_span, SPAN_RUN, spill, err);
	if (!x) {
		ret = -(err->code ? err->code : ENOMEM);
		goto out;
	}
	while ((ret = kprof_csv_next(&r, err)) == 1) {
		struct span sp;
		double v, start = NAN, kns = NAN;

		st->ops++;
		if (kinds && kind_add(kinds, r.row[co], dev)) {
			ret = kprof_err_set(err, ENOMEM, "out of memory");
			goto out;
		}
		if (num(r.row[ck], &kns))
			st->kernel_ns += kns;
		else
			kns = NAN;
		if (!num(r.row[cs], &start))
			start = NAN;
		if (steps && kprof_steps_op(steps, dev, r.row[co], start, kns)) {
			ret = kprof_err_set(err, ENOMEM, "out of memory");
			goto out;
		}
		if (cl >= 0 && num(r.row[cl], &v) && v > 0)
			st->lost_markers += (uint64_t)v;
		if (!num(r.row[cs], &sp.s) || !num(r.row[ce], &sp.e) || sp.e < sp.s)
			continue;
		st->timed++;
		if (isnan(st->first_ns) || sp.s < st->first_ns)
			st->first_ns = sp.s;
		if (isnan(st->last_ns) || sp.e > st->last_ns)
			st->last_ns = sp.e;
		ret = kprof_xsort_add(x, &sp, err);
		if (ret)
			goto out;
	}
	if (!ret)
		ret = sweep(x, &st->busy_ns, err);
out:
	kprof_xsort_free(x);
	kprof_csv_close(&r);
	return ret;
}

int kprof_multi_slowest(const struct kprof_multi_stats *st, unsigned int n)
{
	int best = -1;

	for (unsigned int i = 0; i < n; i++)
		if (st[i].timed && (best < 0 || st[i].busy_ns > st[best].busy_ns))
			best = (int)i;
	return best;
}

/* ------------------------------------------------------------------ */
/* report.md                                                           */
/* ------------------------------------------------------------------ */

static void ms(FILE *f, double ns)
{
	if (isnan(ns))
		fputs(" |", f);
	else
		fprintf(f, " %.3f |", ns / 1e6);
}

static int cmp_kind(const void *a, const void *b)
{
	const struct kind *x = *(const struct kind *const *)a;
	const struct kind *y = *(const struct kind *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void kinds_md(FILE *f, const char *const *names, unsigned int n,
		     const struct kprof_multi_kinds *kinds)
{
	const struct kind **order;
	uint64_t *rest;
	size_t shown;

	if (!kinds || !kinds->n)
		return;
	order = malloc(kinds->n * sizeof(*order));
	rest = calloc(n, sizeof(*rest));
	if (!order || !rest) {
		fputs("\n(op counts per kind left out: out of memory)\n", f);
		free(order);
		free(rest);
		return;
	}
	for (size_t i = 0; i < kinds->n; i++)
		order[i] = &kinds->k[i];
	qsort(order, kinds->n, sizeof(*order), cmp_kind);
	shown = kinds->n < KINDS_SHOWN ? kinds->n : KINDS_SHOWN;
	fprintf(f, "\n## Op counts per kind\n\n");
	if (shown < kinds->n)
		fprintf(f,
			"The %d most frequent of %zu kinds; the others summed in the last row.\n\n",
			KINDS_SHOWN, kinds->n);
	fputs("| op kind |", f);
	for (unsigned int d = 0; d < n; d++) {
		fputs(" device ", f);
		kprof_md_put(f, names[d]);
		fputs(" |", f);
	}
	fputs("\n|---|", f);
	for (unsigned int d = 0; d < n; d++)
		fputs("---:|", f);
	fputc('\n', f);
	for (size_t i = 0; i < kinds->n; i++) {
		const struct kind *k = order[i];

		if (i >= shown) {
			for (unsigned int d = 0; d < n; d++)
				rest[d] += k->count[d];
			continue;
		}
		fputs("| ", f);
		if (k->name[0])
			kprof_md_put(f, k->name);
		else
			fputs("(none)", f);
		fputs(" |", f);
		for (unsigned int d = 0; d < n; d++)
			fprintf(f, " %" PRIu64 " |", k->count[d]);
		fputc('\n', f);
	}
	if (shown < kinds->n) {
		fputs("| (other kinds) |", f);
		for (unsigned int d = 0; d < n; d++)
			fprintf(f, " %" PRIu64 " |", rest[d]);
		fputc('\n', f);
	}
	free(order);
	free(rest);
}

void kprof_multi_report_md(FILE *f, const char *const *names,
			   const struct kprof_multi_stats *st, unsigned int n,
			   const struct kprof_multi_kinds *kinds, struct kprof_steps *steps)
{
	double t0 = NAN, t1 = NAN, fastest = NAN;
	int slow = kprof_multi_slowest(st, n), fast = -1;

	for (unsigned int d = 0; d < n; d++) {
		if (!st[d].timed)
			continue;
		if (isnan(t0) || st[d].first_ns < t0)
			t0 = st[d].first_ns;
		if (isnan(t1) || st[d].last_ns > t1)
			t1 = st[d].last_ns;
		if (fast < 0 || st[d].busy_ns < fastest) {
			fast = (int)d;
			fastest = st[d].busy_ns;
		}
	}
	fputs("# kprof capture of devices ", f);
	for (unsigned int d = 0; d < n; d++) {
		fputs(d ? ", " : "", f);
		kprof_md_put(f, names[d]);
	}
	fputs("\n\nEach device's own outputs (ops.csv, trace.json, report.md, ...) are in its\n"
	      "directory; trace.json here shows every device on one timeline.\n\n", f);
	fputs("## Devices compared\n\n", f);
	fputs("| device | directory | ops | busy [ms] | busy % of span | kernel time [ms] |", f);
	fputs(" first op start [ms] | last op end [ms] | markers lost |\n", f);
	fputs("|---|---|---:|---:|---:|---:|---:|---:|---:|\n", f);
	for (unsigned int d = 0; d < n; d++) {
		char sub[KPROF_DEVICE_NAME_LEN + 8];
		struct kprof_device_id id;
		char why[8];

		if (kprof_device_parse_name(names[d], &id, why, sizeof(why)))
			snprintf(sub, sizeof(sub), "?");
		else
			kprof_multi_subdir(&id, sub, sizeof(sub));
		fputs("| ", f);
		kprof_md_put(f, names[d]);
		if (st[d].label[0]) {
			fputs(": ", f);
			kprof_md_put(f, st[d].label);
		}
		fputs(" | ", f);
		kprof_md_put(f, sub);
		fprintf(f, "/ | %" PRIu64 " |", st[d].ops);
		if (st[d].timed) {
			ms(f, st[d].busy_ns);
			if (t1 > t0)
				fprintf(f, " %.1f |", 100.0 * st[d].busy_ns / (t1 - t0));
			else
				fputs(" |", f);
			ms(f, st[d].kernel_ns);
			ms(f, st[d].first_ns - t0);
			ms(f, st[d].last_ns - t0);
		} else {
			fputs(" | | | | |", f);
		}
		fprintf(f, " %" PRIu64 " |\n", st[d].lost_markers);
	}
	fputs("\nBusy: the time at least one op ran on the device (the union of its ops'\n"
	      "DEVICE FW START TS .. END TS), of the span from the first op start on any\n"
	      "device to the last op end on any device; first and last: from that first\n"
	      "start. Kernel time: the sum of DEVICE KERNEL DURATION. All host\n"
	      "CLOCK_MONOTONIC.\n\n", f);
	if (slow < 0) {
		fputs("**No device ran a timed op**: nothing to compare.\n", f);
	} else {
		fputs("**Slowest device: ", f);
		kprof_md_put(f, names[slow]);
		fprintf(f, "**, busy %.3f ms", st[slow].busy_ns / 1e6);
		if (fast >= 0 && fast != slow && fastest > 0)
			fprintf(f, ", %.2fx the least busy (device %s, %.3f ms)",
				st[slow].busy_ns / fastest, names[fast], fastest / 1e6);
		else if (fast >= 0 && fast != slow)
			fprintf(f, " (device %s was not busy)", names[fast]);
		fputs(st[slow].last_ns >= t1 ? "; it also finished last.\n" : ".\n", f);
	}
	/* the same totals in every GPU's params.json: the first one says them */
	for (unsigned int d = 0; d < n; d++) {
		if (!st[d].ops_not_captured && !st[d].ops_unknown)
			continue;
		fprintf(f, "\n**Not compared**: %" PRIu64, st[d].ops_not_captured);
		fprintf(f, " kernels/copies ran on GPUs this capture did not take, %" PRIu64,
			st[d].ops_unknown);
		fputs(" on CUDA devices the agent could not name (params.json, config.routing).\n",
		      f);
		break;
	}
	if (steps)
		kprof_steps_md(f, steps, names);
	kinds_md(f, names, n, kinds);
}

/* ------------------------------------------------------------------ */
/* Directories                                                         */
/* ------------------------------------------------------------------ */

const char *kprof_multi_subdir(const struct kprof_device_id *id, char *buf, size_t len)
{
	if (id->kind == KPROF_DEVICE_NVIDIA && id->uuid[0])
		snprintf(buf, len, "nvidia-%s", id->uuid);
	else if (id->kind == KPROF_DEVICE_NVIDIA)
		snprintf(buf, len, "nvidia%u", id->index);
	else
		snprintf(buf, len, "dev%u", id->index);
	return buf;
}

int kprof_multi_scan(const char *dir, struct kprof_device_id *ids, int max,
		     struct kprof_err *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	uint64_t seen[KPROF_DEVICE_NKINDS] = { 0 };
	struct dirent *de;
	int n = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return kprof_err_set(err, errno, "%s: %s", dir, strerror(errno));
	}
	while ((de = readdir(d))) {
		char path[300], why[8], name[32];
		struct kprof_device_id id;
		struct stat sb;

		/* dev<N> and nvidia<N> only: N as --device takes it ("dev07" is not one) */
		if (!strncmp(de->d_name, "dev", 3))
			snprintf(name, sizeof(name), "%.20s", de->d_name + 3);
		else if (!strncmp(de->d_name, "nvidia", 6) && de->d_name[6] != ':')
			snprintf(name, sizeof(name), "nvidia:%.20s", de->d_name + 6);
		else
			continue;
		if (kprof_device_parse_name(name, &id, why, sizeof(why)) || id.uuid[0] ||
		    strcmp(kprof_multi_subdir(&id, path, sizeof(path)), de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/" KPROF_SPOOL_DEVICE_FILE, de->d_name);
		if (fstatat(fd, path, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
			continue;
		seen[id.kind] |= 1ULL << id.index;
	}
	closedir(d);
	/* kind by kind, each ascending */
	for (uint32_t b = 0; b < KPROF_DEVICE_NKINDS * SCAN_PER_KIND; b++) {
		uint32_t kind = b / SCAN_PER_KIND, i = b % SCAN_PER_KIND;

		if (!(seen[kind] & (1ULL << i)))
			continue;
		if (n == max)
			return kprof_err_set(err, E2BIG, "%s: more than %d device directories",
					     dir, max);
		memset(&ids[n], 0, sizeof(ids[n]));
		ids[n].kind = (enum kprof_device_kind)kind;
		ids[n].index = i;
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* The outputs                                                         */
/* ------------------------------------------------------------------ */

/* A count in params.json's config.routing (NVIDIA GPUs), 0 if none. */
static uint64_t routing(json_object *root, const char *key)
{
	json_object *c, *r, *v;

	if (json_object_object_get_ex(root, "config", &c) &&
	    json_object_object_get_ex(c, "routing", &r) &&
	    json_object_object_get_ex(r, key, &v) && json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) > 0)
		return (uint64_t)json_object_get_int64(v);
	return 0;
}

/*
 * From a device's params.json (written by this run): "sim0 (sim)", and
 * for a GPU of a capture of several the ops routed to no captured GPU.
 */
static void dev_label(struct kprof_outdir *od, struct kprof_multi_stats *st)
{
	int fd = kprof_outdir_reopen(od, "params.json", NULL);
	json_object *root, *dev, *name, *be;

	st->label[0] = '\0';
	if (fd < 0)
		return;
	root = json_object_from_fd(fd);
	close(fd);
	if (root && json_object_object_get_ex(root, "device", &dev) &&
	    json_object_object_get_ex(dev, "name", &name) &&
	    json_object_object_get_ex(dev, "backend", &be))
		snprintf(st->label, sizeof(st->label), "%s (%s)", json_object_get_string(name),
			 json_object_get_string(be));
	if (root) {
		st->ops_not_captured = routing(root, "ops_gpus_not_captured");
		st->ops_unknown = routing(root, "ops_unknown_gpu");
	}
	json_object_put(root);
}

static int merge_traces(struct kprof_outdir *top, const struct kprof_multi_dev *devs,
			unsigned int n, struct kprof_err *err)
{
	struct kprof_outfile of = { 0 };
	struct kprof_trace_merge m;
	int ret = kprof_outfile_create(top, "trace.json", &of, err);

	if (ret)
		return ret;
	kprof_trace_merge_begin(&m, of.f, n);
	for (unsigned int k = 0; k < n && !ret; k++) {
		char path[4200];
		int fd = kprof_outdir_reopen(devs[k].od, "trace.json", err);
		FILE *in;

		snprintf(path, sizeof(path), "%s/trace.json", kprof_outdir_path(devs[k].od));
		if (fd == -ENOENT)
			continue;	/* that device's report made none */
		if (fd < 0) {
			ret = fd;
			break;
		}
		in = fdopen(fd, "r");
		if (!in) {
			close(fd);
			ret = kprof_err_set(err, errno, "%s: %s", path, strerror(errno));
			break;
		}
		ret = kprof_trace_merge_add(&m, in, path, k, devs[k].name, err);
		fclose(in);
	}
	kprof_trace_merge_end(&m);
	if (!ret)
		ret = kprof_outfile_commit(&of, 0, err);
	kprof_outfile_discard(&of);
	return ret;
}

static int compare(struct kprof_outdir *top, const struct kprof_multi_dev *devs,
		   unsigned int n, struct kprof_multi_stats *st,
		   struct kprof_multi_kinds *kinds, struct kprof_steps *steps,
		   struct kprof_err *err)
{
	for (unsigned int k = 0; k < n; k++) {
		char path[4200];
		int fd = kprof_outdir_reopen(devs[k].od, "ops.csv", err), ret;

		snprintf(path, sizeof(path), "%s/ops.csv", kprof_outdir_path(devs[k].od));
		if (fd < 0)
			return fd == -ENOENT ? kprof_err_set(err, ENOENT, "%s: not written", path)
					     : fd;
		ret = kprof_multi_stats_csv(fd, path, top, k, &st[k], kinds, steps, err);
		if (ret)
			return ret;
		dev_label(devs[k].od, &st[k]);
	}
	return 0;
}

static const char page_head[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width\">\n"
	"<title>kprof: several devices</title>\n<style>\n"
	"body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}\n"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em}\n"
	"td{text-align:right}td:first-child{text-align:left}th{background:#f3f3f3}\n"
	"code{background:#f3f3f3;padding:0 .2em}\n"
	"</style></head><body>\n";

/* report.html: report.md (md) as a page, and a link to each device's page. */
static int write_html(struct kprof_outdir *top, const struct kprof_multi_dev *devs,
		      unsigned int n, const char *md, size_t mdlen, struct kprof_err *err)
{
	struct kprof_outfile of = { 0 };
	FILE *in;
	int ret = kprof_outfile_create(top, "report.html", &of, err);

	if (ret)
		return ret;
	fputs(page_head, of.f);
	in = fmemopen((void *)md, mdlen, "r");
	if (!in || kprof_md_to_html(in, of.f, 0)) {
		if (in)
			fclose(in);
		kprof_outfile_discard(&of);
		return kprof_err_set(err, ENOMEM, "report.html: out of memory");
	}
	fclose(in);
	fputs("<h2>Each device</h2>\n<ul>\n", of.f);
	for (unsigned int k = 0; k < n; k++) {
		char sub[KPROF_DEVICE_NAME_LEN + 8], why[8];
		struct kprof_device_id id;

		if (kprof_device_parse_name(devs[k].name, &id, why, sizeof(why)))
			continue;
		kprof_multi_subdir(&id, sub, sizeof(sub));
		fputs("<li><a href=\"", of.f);
		kprof_html_escape(of.f, sub);
		fputs("/report.html\">device ", of.f);
		kprof_html_escape(of.f, devs[k].name);
		fputs("</a></li>\n", of.f);
	}
	fputs("</ul>\n</body></html>\n", of.f);
	ret = kprof_outfile_commit(&of, 0, err);
	kprof_outfile_discard(&of);
	return ret;
}

/* capture.json: {"devices": [names], "step": pattern} */
static int write_capture_json(struct kprof_outdir *top, const char *const *names,
			      unsigned int n, const char *step, struct kprof_err *err)
{
	json_object *root = json_object_new_object(), *list = json_object_new_array();
	struct kprof_outfile of = { 0 };
	int ret, bad = !root || !list;

	/* root owns list once added; json-c's adds fail only on ENOMEM */
	if (!bad) {
		if (json_object_object_add(root, "devices", list))
			bad = 1;
		else
			list = NULL;
	}
	for (unsigned int k = 0; k < n && !bad; k++)
		bad = json_object_array_add(json_object_object_get(root, "devices"),
					    json_object_new_string(names[k]));
	if (!step)
		step = KPROF_STEP_DEFAULT;
	if (!bad)
		bad = json_object_object_add(root, "step", json_object_new_string(step));
	json_object_put(list);
	if (bad) {
		json_object_put(root);
		return kprof_err_set(err, ENOMEM, "out of memory");
	}
	ret = kprof_outfile_create(top, "capture.json", &of, err);
	if (!ret) {
		fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE), of.f);
		fputc('\n', of.f);
		ret = kprof_outfile_commit(&of, 0, err);
		kprof_outfile_discard(&of);
	}
	json_object_put(root);
	return ret;
}

int kprof_multi_step_of(const char *dir, char *buf, size_t len, struct kprof_err *err)
{
	char path[4200];
	json_object *root, *step;
	int fd, ret = -ENOENT;

	snprintf(path, sizeof(path), "%s/capture.json", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT :
		       kprof_err_set(err, errno, "%s: %s", path, strerror(errno));
	root = json_object_from_fd(fd);
	close(fd);
	if (!root)
		return kprof_err_set(err, EBADMSG, "%s: not JSON: %s", path,
				     json_util_get_last_err() ? json_util_get_last_err() : "?");
	if (json_object_object_get_ex(root, "step", &step) &&
	    json_object_is_type(step, json_type_string)) {
		if ((size_t)json_object_get_string_len(step) < len) {
			snprintf(buf, len, "%s", json_object_get_string(step));
			ret = 0;
		} else {
			ret = kprof_err_set(err, ENAMETOOLONG,
					    "%s: the step pattern is longer than %zu bytes",
					    path, len - 1);
		}
	}
	json_object_put(root);
	return ret;
}

int kprof_multi_write(struct kprof_outdir *top, const struct kprof_multi_dev *devs,
		      unsigned int n, const char *step, struct kprof_multi_result *res,
		      struct kprof_err *err)
{
	struct kprof_multi_stats *st = calloc(n ? n : 1, sizeof(*st));
	struct kprof_multi_kinds *kinds = kprof_multi_kinds_new(n);
	struct kprof_steps *steps = kprof_steps_new(n, step);
	const char **names = calloc(n ? n : 1, sizeof(*names));
	struct kprof_outfile of = { 0 };
	char *md = NULL;
	size_t mdlen = 0;
	FILE *f = NULL;
	int ret;

	if (!st || !kinds || !steps || !names) {
		ret = kprof_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned int k = 0; k < n; k++)
		names[k] = devs[k].name;
	ret = merge_traces(top, devs, n, err);
	if (!ret)
		ret = compare(top, devs, n, st, kinds, steps, err);
	if (ret)
		goto out;
	f = open_memstream(&md, &mdlen);
	if (!f) {
		ret = kprof_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	kprof_multi_report_md(f, names, st, n, kinds, steps);
	if (res) {
		res->slowest = kprof_multi_slowest(st, n);
		res->slowest_busy_ns = res->slowest < 0 ? 0 : st[res->slowest].busy_ns;
	}
	if (fclose(f)) {
		ret = kprof_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = kprof_outfile_create(top, "report.md", &of, err);
	if (ret)
		goto out;
	fwrite(md, 1, mdlen, of.f);
	ret = kprof_outfile_commit(&of, 0, err);
	kprof_outfile_discard(&of);
	if (!ret)
		ret = write_html(top, devs, n, md, mdlen, err);
	if (!ret)
		ret = write_capture_json(top, names, n, step, err);
	if (!ret)
		ret = kprof_outdir_prune(top, err);
out:
	free(md);
	free(names);
	free(st);
	kprof_multi_kinds_free(kinds);
	kprof_steps_free(steps);
	return ret;
}
