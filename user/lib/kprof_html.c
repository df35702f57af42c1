// SPDX-License-Identifier: GPL-2.0
/* report.html writer (see kprof_html.h, docs/formats.md). */
#include "kprof_html.h"
#include "kprof_trace.h"
#include "kprof_csvread.h"

#include <errno.h>
#include <inttypes.h>
#include <json.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLOT_X0		170	/* label column width */
#define PLOT_W		1000
#define LANE_H		20
#define TOP_SLOWEST	20

struct slice {
	double t0, t1;		/* host ns */
	int kind;		/* op kind index, -1: host launch, -2: host sync */
	uint64_t seq;
	int lane;
};

struct lane {
	char name[96];
};

struct kindstat {
	char *op;
	uint64_t n, nk;
	double *kern;		/* kernel durations (for the median) */
	double tot_k, tot_fw, tot_host, max_k;
	uint64_t nfw, nhost;
	double flops, bytes;	/* counter sums, if those counters exist */
	int has_flops, has_bytes;
};

struct html {
	struct kprof_csv_table ops;
	struct kindstat *kinds;
	size_t nkinds;
	struct slice *sl;
	size_t nsl, capsl;
	struct lane lanes[KPROF_HTML_DEV_LANES + KPROF_HTML_HOST_LANES + 1];
	int nlanes, ndev_lanes;
	const char *lane_source;	/* what the device lanes come from */
	int have_counters, have_host;
	int host_file;			/* host_events.csv exists (maybe empty) */
	size_t host_left_out;		/* host events of threads beyond the lanes */
};

void kprof_html_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

void kprof_html_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
			fprintf(f, "\\u%04x", *p);
		else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			/* U+2028/2029: line breaks to older JS parsers */
			fprintf(f, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
			p += 2;
		} else
			fputc(*p, f);
	}
	fputc('"', f);
}

static int num(const char *s, double *v)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return (errno || *end || !isfinite(*v)) ? -1 : 0;
}

static int kind_index(struct html *h, const char *op)
{
	struct kindstat *k;

	for (size_t i = h->nkinds; i-- > 0;)
		if (!strcmp(h->kinds[i].op, op))
			return (int)i;
	k = realloc(h->kinds, (h->nkinds + 1) * sizeof(*k));
	if (!k)
		return -1;
	h->kinds = k;
	k = &h->kinds[h->nkinds];
	memset(k, 0, sizeof(*k));
	k->op = strdup(op);
	if (!k->op)
		return -1;
	return (int)h->nkinds++;
}

static int add_slice(struct html *h, double t0, double t1, int kind, uint64_t seq, int lane)
{
	if (h->nsl == h->capsl) {
		size_t nc = h->capsl ? h->capsl * 2 : 1024;
		struct slice *s = realloc(h->sl, nc * sizeof(*s));

		if (!s)
			return -ENOMEM;
		h->sl = s;
		h->capsl = nc;
	}
	h->sl[h->nsl++] = (struct slice){ t0, t1 < t0 ? t0 : t1, kind, seq, lane };
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Per-kind statistics from ops.csv; the op rows' kind index in kidx. */
static int read_ops(struct html *h, const char *dir, int **kidx, struct kprof_err *err)
{
	char path[PATH_MAX];
	int c_op, c_k, c_fw, c_host;
	int ret;

	snprintf(path, sizeof(path), "%s/ops.csv", dir);
	ret = kprof_csv_load(path, &h->ops, err);
	if (ret)
		return ret;
	c_op = kprof_csv_col(&h->ops, "OP CODE");
	c_k = kprof_csv_col(&h->ops, "DEVICE KERNEL DURATION [ns]");
	c_fw = kprof_csv_col(&h->ops, "DEVICE FW DURATION [ns]");
	c_host = kprof_csv_col(&h->ops, "HOST DURATION [ns]");
	if (c_op < 0 || c_k < 0 || c_fw < 0 || c_host < 0)
		return kprof_err_set(err, EBADMSG, "%s: not a kprof ops.csv (columns missing)", path);
	*kidx = calloc(h->ops.nrows + 1, sizeof(int));
	if (!*kidx)
		return kprof_err_set(err, ENOMEM, "out of memory");
	for (size_t r = 0; r < h->ops.nrows; r++) {
		char **row = h->ops.rows[r];
		int ki = kind_index(h, row[c_op]);
		struct kindstat *k;
		double v;

		if (ki < 0)
			return kprof_err_set(err, ENOMEM, "out of memory");
		(*kidx)[r] = ki;
		k = &h->kinds[ki];
		k->n++;
		if (!num(row[c_k], &v)) {
			double *nk = realloc(k->kern, (k->nk + 1) * sizeof(*nk));

			if (!nk)
				return kprof_err_set(err, ENOMEM, "out of memory");
			k->kern = nk;
			k->kern[k->nk++] = v;
			k->tot_k += v;
			if (v > k->max_k)
				k->max_k = v;
		}
		if (!num(row[c_fw], &v)) {
			k->tot_fw += v;
			k->nfw++;
		}
		if (!num(row[c_host], &v)) {
			k->tot_host += v;
			k->nhost++;
		}
	}
	return 0;
}

/* flops and bytes per kind from counters.csv (counter names of the sim). */
static int read_counters(struct html *h, const char *dir, struct kprof_err *err)
{
	struct kprof_csv_table t;
	char path[PATH_MAX];
	int co, cc, cs, ret;

	snprintf(path, sizeof(path), "%s/counters.csv", dir);
	if (access(path, F_OK))
		return 0;
	ret = kprof_csv_load(path, &t, err);
	if (ret)
		return ret;
	co = kprof_csv_col(&t, "OP CODE");
	cc = kprof_csv_col(&t, "COUNTER");
	cs = kprof_csv_col(&t, "SUM");
	if (co < 0 || cc < 0 || cs < 0) {
		kprof_csv_free(&t);
		return kprof_err_set(err, EBADMSG, "%s: not a kprof counters.csv", path);
	}
	h->have_counters = 1;
	for (size_t r = 0; r < t.nrows; r++) {
		const char *name = t.rows[r][cc];
		int ki;
		double v;

		if (num(t.rows[r][cs], &v))
			continue;
		ki = kind_index(h, t.rows[r][co]);
		if (ki < 0) {
			kprof_csv_free(&t);
			return kprof_err_set(err, ENOMEM, "out of memory");
		}
		if (!strcmp(name, "flops")) {
			h->kinds[ki].flops += v;
			h->kinds[ki].has_flops = 1;
		} else if (!strcmp(name, "bytes_read") || !strcmp(name, "bytes_written")) {
			h->kinds[ki].bytes += v;
			h->kinds[ki].has_bytes = 1;
		}
	}
	kprof_csv_free(&t);
	return 0;
}

static int find_kind(const struct html *h, const char *op)
{
	for (size_t i = 0; i < h->nkinds; i++)
		if (!strcmp(h->kinds[i].op, op))
			return (int)i;
	return -1;
}

struct track {
	int64_t tid;
	char name[80];
};

static int cmp_track(const void *a, const void *b)
{
	int64_t x = ((const struct track *)a)->tid, y = ((const struct track *)b)->tid;

	return (x > y) - (x < y);
}

/*
 * Device lanes from trace.json (pid 1 tracks, grouped into at most
 * KPROF_HTML_DEV_LANES lanes). Returns 1 when used, 0 when not there.
 */
static int lanes_from_trace(struct html *h, const char *dir, struct kprof_err *err)
{
	char path[PATH_MAX];
	struct stat st;
	json_object *root, *evs;
	struct track *tr = NULL;
	size_t ntr = 0, n;
	int per, ret = 0;

	snprintf(path, sizeof(path), "%s/trace.json", dir);
	if (stat(path, &st) || st.st_size > (off_t)KPROF_HTML_TRACE_MAX)
		return 0;
	root = json_object_from_file(path);
	if (!root)
		return 0;
	if (!json_object_object_get_ex(root, "traceEvents", &evs) ||
	    !json_object_is_type(evs, json_type_array)) {
		json_object_put(root);
		return 0;
	}
	n = json_object_array_length(evs);
	/* tracks: pid 1 threads with slices (names from thread_name) */
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(evs, i), *v, *ph, *nm0;
		int64_t tid;
		size_t j;

		if (!json_object_object_get_ex(e, "pid", &v) || json_object_get_int(v) != 1)
			continue;
		if (!json_object_object_get_ex(e, "tid", &v))
			continue;
		tid = json_object_get_int64(v);
		/* Zone tracks (per RISC) would crowd out the core lanes. */
		if (tid >= KPROF_TRACE_ZONE_TID)
			continue;
		/* tracks: threads with slices or a name (counters are not) */
		if (!json_object_object_get_ex(e, "ph", &ph) ||
		    (strcmp(json_object_get_string(ph), "X") &&
		     !(json_object_object_get_ex(e, "name", &nm0) &&
		       !strcmp(json_object_get_string(nm0), "thread_name"))))
			continue;
		for (j = 0; j < ntr && tr[j].tid != tid; j++)
			;
		if (j == ntr) {
			struct track *t = realloc(tr, (ntr + 1) * sizeof(*t));

			if (!t) {
				ret = kprof_err_set(err, ENOMEM, "out of memory");
				goto out;
			}
			tr = t;
			tr[ntr].tid = tid;
			snprintf(tr[ntr].name, sizeof(tr[ntr].name), "track %" PRId64, tid);
			ntr++;
		}
		if (json_object_object_get_ex(e, "name", &v) &&
		    !strcmp(json_object_get_string(v), "thread_name")) {
			json_object *a, *nm;

			if (json_object_object_get_ex(e, "args", &a) &&
			    json_object_object_get_ex(a, "name", &nm))
				snprintf(tr[j].name, sizeof(tr[j].name), "%s",
					 json_object_get_string(nm));
		}
	}
	if (!ntr)
		goto out;
	qsort(tr, ntr, sizeof(*tr), cmp_track);
	per = (int)((ntr + KPROF_HTML_DEV_LANES - 1) / KPROF_HTML_DEV_LANES);
	h->ndev_lanes = (int)((ntr + (size_t)per - 1) / (size_t)per);
	for (int l = 0; l < h->ndev_lanes; l++) {
		size_t a = (size_t)l * (size_t)per, b = a + (size_t)per - 1;

		if (b >= ntr)
			b = ntr - 1;
		if (a == b)
			snprintf(h->lanes[l].name, sizeof(h->lanes[l].name), "%s", tr[a].name);
		else
			snprintf(h->lanes[l].name, sizeof(h->lanes[l].name), "%.40s .. %.40s",
				 tr[a].name, tr[b].name);
	}
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(evs, i), *v, *a;
		double ts, dur;
		int64_t tid;
		uint64_t seq = 0;
		size_t j;
		int ki;

		if (!json_object_object_get_ex(e, "ph", &v) || strcmp(json_object_get_string(v), "X"))
			continue;
		if (!json_object_object_get_ex(e, "pid", &v) || json_object_get_int(v) != 1)
			continue;
		if (!json_object_object_get_ex(e, "tid", &v))
			continue;
		tid = json_object_get_int64(v);
		for (j = 0; j < ntr && tr[j].tid != tid; j++)
			;
		if (j == ntr || !json_object_object_get_ex(e, "ts", &v))
			continue;
		ts = json_object_get_double(v);
		dur = json_object_object_get_ex(e, "dur", &v) ? json_object_get_double(v) : 0;
		if (json_object_object_get_ex(e, "args", &a) &&
		    json_object_object_get_ex(a, "seq", &v))
			seq = (uint64_t)json_object_get_int64(v);
		if (!json_object_object_get_ex(e, "name", &v))
			continue;
		ki = find_kind(h, json_object_get_string(v));
		/* trace.json names ops without an OP CODE "op SEQ" */
		if (ki < 0)
			ki = find_kind(h, "");
		if (ki < 0)
			continue;
		if (add_slice(h, round(ts * 1000), round((ts + dur) * 1000), ki, seq,
			      (int)(j / (size_t)per))) {
			ret = kprof_err_set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	h->lane_source = "trace.json device tracks";
	ret = 1;
out:
	free(tr);
	json_object_put(root);
	return ret;
}

/* One device lane from ops.csv FW start/end when trace.json is not usable. */
static int lanes_from_ops(struct html *h, const int *kidx, struct kprof_err *err)
{
	int c0 = kprof_csv_col(&h->ops, "DEVICE FW START TS [ns]");
	int c1 = kprof_csv_col(&h->ops, "DEVICE FW END TS [ns]");
	int cs = kprof_csv_col(&h->ops, "GLOBAL CALL COUNT");

	h->ndev_lanes = 1;
	snprintf(h->lanes[0].name, sizeof(h->lanes[0].name), "device (all cores)");
	h->lane_source = "ops.csv DEVICE FW START/END TS (trace.json not there or too big)";
	if (c0 < 0 || c1 < 0)
		return 0;
	for (size_t r = 0; r < h->ops.nrows; r++) {
		double a, b, s = 0;

		if (num(h->ops.rows[r][c0], &a) || num(h->ops.rows[r][c1], &b))
			continue;
		if (cs >= 0)
			num(h->ops.rows[r][cs], &s);
		if (add_slice(h, a, b, kidx[r], (uint64_t)s, 0))
			return kprof_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

/* Host lanes: one per traced thread (launch and sync slices). */
static int lanes_from_host(struct html *h, const char *dir, struct kprof_err *err)
{
	struct kprof_csv_table t;
	char path[PATH_MAX];
	int64_t tids[KPROF_HTML_HOST_LANES];
	int roles[KPROF_HTML_HOST_LANES];
	int ntids = 0, cr, ct, cc, c0, c1, cq, ret;

	snprintf(path, sizeof(path), "%s/host_events.csv", dir);
	if (access(path, F_OK))
		return 0;
	h->host_file = 1;
	ret = kprof_csv_load(path, &t, err);
	if (ret)
		return ret;
	cr = kprof_csv_col(&t, "ROLE");
	ct = kprof_csv_col(&t, "TID");
	cc = kprof_csv_col(&t, "COMM");
	c0 = kprof_csv_col(&t, "ENTER TS [ns]");
	c1 = kprof_csv_col(&t, "EXIT TS [ns]");
	cq = kprof_csv_col(&t, "SEQ");
	if (cr < 0 || ct < 0 || cc < 0 || c0 < 0 || c1 < 0 || cq < 0) {
		kprof_csv_free(&t);
		return kprof_err_set(err, EBADMSG, "%s: not a kprof host_events.csv", path);
	}
	for (size_t r = 0; r < t.nrows; r++) {
		char **row = t.rows[r];
		double a, b, tid, seq = 0;
		int l, sync;

		if (num(row[c0], &a) || num(row[c1], &b) || num(row[ct], &tid))
			continue;
		num(row[cq], &seq);
		sync = !strcmp(row[cr], "sync");
		/* one lane per thread and role: launches and syncs apart */
		for (l = 0; l < ntids && (tids[l] != (int64_t)tid || roles[l] != sync); l++)
			;
		if (l == ntids) {
			struct lane *ln;

			if (ntids == KPROF_HTML_HOST_LANES) {
				h->host_left_out++;
				continue;
			}
			tids[ntids] = (int64_t)tid;
			roles[ntids++] = sync;
			ln = &h->lanes[h->ndev_lanes + l];
			snprintf(ln->name, sizeof(ln->name), "%s %.40s (%" PRId64 ")",
				 sync ? "sync" : "launch", row[cc], (int64_t)tid);
		}
		if (add_slice(h, a, b, sync ? -2 : -1, (uint64_t)seq,
			      h->ndev_lanes + l)) {
			kprof_csv_free(&t);
			return kprof_err_set(err, ENOMEM, "out of memory");
		}
	}
	h->have_host = ntids > 0;
	h->nlanes = h->ndev_lanes + ntids;
	kprof_csv_free(&t);
	return 0;
}

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->lane != y->lane)
		return x->lane - y->lane;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	if (x->t1 != y->t1)
		return x->t1 < y->t1 ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Stable colour per op kind: hue from the kind's index in name order. */
static void kind_color(char *out, size_t len, int kind, size_t nkinds)
{
	if (kind == -1)
		snprintf(out, len, "#4c78a8");
	else if (kind == -2)
		snprintf(out, len, "#333");
	else
		snprintf(out, len, "hsl(%d,60%%,55%%)",
			 (int)((unsigned)kind * 360u / (unsigned)(nkinds ? nkinds : 1)));
}

static const char *kind_name(const struct html *h, int kind)
{
	if (kind == -1)
		return "launch";
	if (kind == -2)
		return "sync";
	return h->kinds[kind].op[0] ? h->kinds[kind].op : "(no OP CODE)";
}

static void svg_timeline(FILE *f, struct html *h)
{
	double tmin = INFINITY, tmax = -INFINITY, span;
	int height = (h->nlanes + 1) * LANE_H + 10;

	for (size_t i = 0; i < h->nsl; i++) {
		if (h->sl[i].t0 < tmin)
			tmin = h->sl[i].t0;
		if (h->sl[i].t1 > tmax)
			tmax = h->sl[i].t1;
	}
	if (!h->nsl) {
		fputs("<p>No timed slices (no device times in ops.csv).</p>\n", f);
		return;
	}
	span = tmax > tmin ? tmax - tmin : 1;
	qsort(h->sl, h->nsl, sizeof(*h->sl), cmp_slice);
	fprintf(f, "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", PLOT_X0 + PLOT_W + 10, height,
		PLOT_X0 + PLOT_W + 10, height);
	for (int l = 0; l < h->nlanes; l++) {
		fprintf(f, "<text class=\"lane\" x=\"4\" y=\"%d\">", l * LANE_H + 14);
		kprof_html_escape(f, h->lanes[l].name);
		fprintf(f, "</text><line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>\n",
			PLOT_X0, PLOT_X0 + PLOT_W, (l + 1) * LANE_H, (l + 1) * LANE_H);
	}
	/* time axis: 5 ticks, ms from the first slice */
	for (int t = 0; t <= 4; t++) {
		int x = PLOT_X0 + PLOT_W * t / 4;

		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"%s\">%.3f ms</text>\n",
			x, h->nlanes * LANE_H + 14, t == 0 ? "start" : t == 4 ? "end" : "middle",
			span * t / 4 / 1e6);
	}
	/*
	 * Slices closer than a pixel to the previous one in the lane are
	 * merged into it, so the SVG has at most PLOT_W rects per lane
	 * whatever the capture size.
	 */
	for (size_t i = 0; i < h->nsl;) {
		const struct slice *s = &h->sl[i];
		double x0 = PLOT_X0 + (s->t0 - tmin) / span * PLOT_W;
		double x1 = PLOT_X0 + (s->t1 - tmin) / span * PLOT_W, t1 = s->t1;
		size_t j = i + 1, cnt = 1;
		int same = 1;
		char col[32];

		while (j < h->nsl && h->sl[j].lane == s->lane &&
		       PLOT_X0 + (h->sl[j].t0 - tmin) / span * PLOT_W < floor(x0) + 1.0) {
			double e = PLOT_X0 + (h->sl[j].t1 - tmin) / span * PLOT_W;

			if (e > x1)
				x1 = e;
			if (h->sl[j].t1 > t1)
				t1 = h->sl[j].t1;
			same &= h->sl[j].kind == s->kind;
			cnt++;
			j++;
		}
		kind_color(col, sizeof(col), same ? s->kind : 0, h->nkinds);
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"%s>"
			"<title>", x0, s->lane * LANE_H + 3, x1 - x0 < 0.5 ? 0.5 : x1 - x0,
			LANE_H - 6, same ? col : "#999", same ? "" : " class=\"mixed\"");
		if (cnt == 1) {
			kprof_html_escape(f, kind_name(h, s->kind));
			fprintf(f, " seq %" PRIu64 ": %.3f us at %.3f ms", s->seq,
				(s->t1 - s->t0) / 1e3, (s->t0 - tmin) / 1e6);
		} else {
			fprintf(f, "%zu slices (", cnt);
			if (same)
				kprof_html_escape(f, kind_name(h, s->kind));
			else
				fputs("several kinds", f);
			fprintf(f, "), %.3f to %.3f ms", (s->t0 - tmin) / 1e6, (t1 - tmin) / 1e6);
		}
		fputs("</title></rect>\n", f);
		i = j;
	}
	fputs("</svg>\n", f);
}

/* Per kind: the data the top-ops table is built from (by the page's JS). */
static void kinds_json(FILE *f, struct html *h)
{
	fputs("<script id=\"kprof-kinds\" type=\"application/json\">[\n", f);
	for (size_t i = 0; i < h->nkinds; i++) {
		struct kindstat *k = &h->kinds[i];
		double med = NAN;

		if (k->nk) {
			qsort(k->kern, k->nk, sizeof(double), cmp_double);
			med = k->nk % 2 ? k->kern[k->nk / 2] :
				(k->kern[k->nk / 2 - 1] + k->kern[k->nk / 2]) / 2;
		}
		fputs(i ? ",\n{\"op\":" : "{\"op\":", f);
		kprof_html_json_str(f, k->op);
		fprintf(f, ",\"n\":%" PRIu64 ",\"nk\":%" PRIu64 ",\"tot_k\":%.0f,\"med_k\":%.0f,"
			"\"max_k\":%.0f,\"mean_fw\":%.0f", k->n, k->nk, k->tot_k,
			isnan(med) ? 0 : med, k->max_k, k->nfw ? k->tot_fw / (double)k->nfw : 0);
		/* no host times (tt-metal logs, no BPF): absent, shown as - */
		if (k->nhost)
			fprintf(f, ",\"mean_host\":%.0f", k->tot_host / (double)k->nhost);
		if (k->has_flops && k->has_bytes && k->bytes > 0)
			fprintf(f, ",\"ai\":%.6g", k->flops / k->bytes);
		if (k->has_flops && k->tot_k > 0)
			fprintf(f, ",\"gflops\":%.6g", k->flops / k->tot_k);
		fputc('}', f);
	}
	fputs("\n]</script>\n", f);
}

static void slowest_ops(FILE *f, struct html *h)
{
	int c_op = kprof_csv_col(&h->ops, "OP CODE");
	int c_seq = kprof_csv_col(&h->ops, "GLOBAL CALL COUNT");
	int c_k = kprof_csv_col(&h->ops, "DEVICE KERNEL DURATION [ns]");
	int c_cores = kprof_csv_col(&h->ops, "CORE COUNT");
	size_t best[TOP_SLOWEST], nb = 0;
	double bv[TOP_SLOWEST];

	/* insertion into a small sorted list: ties keep the earlier op */
	for (size_t r = 0; r < h->ops.nrows; r++) {
		double v;
		size_t p;

		if (num(h->ops.rows[r][c_k], &v))
			continue;
		for (p = nb; p > 0 && bv[p - 1] < v; p--)
			;
		if (p >= TOP_SLOWEST)
			continue;
		if (nb < TOP_SLOWEST)
			nb++;
		memmove(&bv[p + 1], &bv[p], (nb - 1 - p) * sizeof(*bv));
		memmove(&best[p + 1], &best[p], (nb - 1 - p) * sizeof(*best));
		bv[p] = v;
		best[p] = r;
	}
	fprintf(f, "<h3>The %zu slowest ops (device kernel time)</h3>\n"
		"<table id=\"slowest\"><tr><th>GLOBAL CALL COUNT</th><th>OP CODE</th>"
		"<th>CORES</th><th>kernel [us]</th></tr>\n", nb);
	for (size_t i = 0; i < nb; i++) {
		char **row = h->ops.rows[best[i]];

		fputs("<tr><td>", f);
		kprof_html_escape(f, c_seq >= 0 ? row[c_seq] : "");
		fputs("</td><td>", f);
		kprof_html_escape(f, row[c_op]);
		fputs("</td><td>", f);
		kprof_html_escape(f, c_cores >= 0 ? row[c_cores] : "");
		fprintf(f, "</td><td>%.3f</td></tr>\n", bv[i] / 1e3);
	}
	fputs("</table>\n", f);
}

/* A small text file as an escaped <pre>; 0 if it is not there. */
static int pre_file(FILE *f, const char *dir, const char *name, const char *id)
{
	char path[PATH_MAX], buf[4096];
	FILE *in;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	in = fopen(path, "re");
	if (!in)
		return 0;
	fprintf(f, "<pre id=\"%s\">", id);
	while ((n = fread(buf, 1, sizeof(buf) - 1, in)) > 0) {
		buf[n] = '\0';
		/* NUL bytes in the file would cut the escape: stop there */
		kprof_html_escape(f, buf);
		if (strlen(buf) != n)
			break;
	}
	fputs("</pre>\n", f);
	fclose(in);
	return 1;
}

/* A CSV file as an escaped HTML table (bubbles.csv, if there). */
static int csv_table(FILE *f, const char *dir, const char *name, const char *id,
		     struct kprof_err *err)
{
	struct kprof_csv_table t;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (access(path, F_OK))
		return 0;
	if (kprof_csv_load(path, &t, err))
		return -1;
	fprintf(f, "<table id=\"%s\"><tr>", id);
	for (int c = 0; c < t.ncols; c++) {
		fputs("<th>", f);
		kprof_html_escape(f, t.header[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t r = 0; r < t.nrows; r++) {
		fputs("<tr>", f);
		for (int c = 0; c < t.ncols; c++) {
			fputs("<td>", f);
			kprof_html_escape(f, t.rows[r][c]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	kprof_csv_free(&t);
	return 1;
}

static const char html_css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}\n"
	"h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.5em;border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"th,td{border:1px solid #ddd;padding:2px 8px;text-align:right}\n"
	"th{background:#f3f3f3;cursor:pointer}td:nth-child(1),td:nth-child(2){text-align:left}\n"
	"#top-ops td:first-child{text-align:left}\n"
	"pre{background:#f7f7f7;padding:.5em;overflow:auto;max-height:40em;white-space:pre-wrap}\n"
	"svg text{font:11px sans-serif}svg .tick{fill:#555}svg .grid{stroke:#eee}\n"
	"svg rect:hover{stroke:#000}.note{color:#666}\n"
	".legend span{display:inline-block;margin-right:1em}\n"
	".legend i{display:inline-block;width:10px;height:10px;margin-right:4px}\n";

/*
 * Builds the top-ops table from the embedded per-kind data; a header
 * click sorts by that column. The page is complete without it but for
 * this table (noscript says so).
 */
static const char html_js[] =
	"(function(){\n"
	"var kinds=JSON.parse(document.getElementById('kprof-kinds').textContent);\n"
	"var tot=0,ops=0;kinds.forEach(function(k){tot+=k.tot_k;ops+=k.n;});\n"
	"var cols=[['OP CODE',function(k){return k.op===''?'(no OP CODE)':k.op;}],\n"
	" ['ops',function(k){return k.n;}],\n"
	" ['kernel total [us]',function(k){return (k.tot_k/1e3).toFixed(3);}],\n"
	" ['share',function(k){return tot>0?(100*k.tot_k/tot).toFixed(1)+'%':'-';}],\n"
	" ['kernel median [us]',function(k){return k.nk?(k.med_k/1e3).toFixed(3):'-';}],\n"
	" ['kernel max [us]',function(k){return k.nk?(k.max_k/1e3).toFixed(3):'-';}],\n"
	" ['FW mean [us]',function(k){return (k.mean_fw/1e3).toFixed(3);}],\n"
	" ['host mean [us]',function(k){return k.mean_host===undefined?'-':(k.mean_host/1e3).toFixed(3);}],\n"
	" ['FLOP/byte',function(k){return k.ai===undefined?'-':k.ai.toPrecision(4);}],\n"
	" ['GFLOP/s',function(k){return k.gflops===undefined?'-':(k.gflops>=1e4?k.gflops.toFixed(0):k.gflops.toPrecision(4));}]];\n"
	"var keys=[function(k){return k.op;},function(k){return k.n;},function(k){return k.tot_k;},\n"
	" function(k){return k.tot_k;},function(k){return k.med_k;},function(k){return k.max_k;},\n"
	" function(k){return k.mean_fw;},function(k){return k.mean_host||0;},\n"
	" function(k){return k.ai||0;},function(k){return k.gflops||0;}];\n"
	"var t=document.getElementById('top-ops'),sortc=2,desc=true;\n"
	"function draw(){\n"
	" kinds.sort(function(a,b){var x=keys[sortc](a),y=keys[sortc](b);\n"
	"  var r=x<y?-1:x>y?1:(a.op<b.op?-1:a.op>b.op?1:0);return desc?-r:r;});\n"
	" while(t.firstChild)t.removeChild(t.firstChild);\n"
	" var tr=document.createElement('tr');\n"
	" cols.forEach(function(c,i){var th=document.createElement('th');th.textContent=c[0];\n"
	"  th.onclick=function(){desc=(sortc===i)?!desc:true;sortc=i;draw();};tr.appendChild(th);});\n"
	" t.appendChild(tr);\n"
	" kinds.forEach(function(k){var r=document.createElement('tr');r.className='kind';\n"
	"  r.setAttribute('data-op',k.op);r.setAttribute('data-n',k.n);\n"
	"  cols.forEach(function(c){var td=document.createElement('td');td.textContent=c[1](k);\n"
	"   r.appendChild(td);});t.appendChild(r);});\n"
	"}\n"
	"draw();\n"
	"document.getElementById('js-status').textContent=kinds.length+' op kinds, '+ops+' ops';\n"
	"})();\n";

static void write_page(FILE *f, const char *dir, struct html *h, struct kprof_err *err)
{
	int have_report, have_bub;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>kprof report</title>\n<style>\n", f);
	fputs(html_css, f);
	fputs("</style></head><body>\n<h1>kprof report</h1>\n", f);
	fprintf(f, "<p>%zu ops in ops.csv, %zu op kinds. <span id=\"js-status\" class=\"note\">"
		"</span></p>\n", h->ops.nrows, h->nkinds);

	fputs("<h2>Timeline</h2>\n", f);
	fputs("<p class=\"note\">Device lanes: ", f);
	kprof_html_escape(f, h->lane_source);
	fprintf(f, ". Host lanes: %s. Slices closer than a pixel are drawn merged "
		"(grey when of several kinds); hover for details.</p>\n",
		h->have_host ? "launch (blue) and sync (dark grey) ioctls from host_events.csv" :
		h->host_file ? "none (no host_events.csv rows: BPF did not run)" :
		"none (no host_events.csv: the input has no host data, as a tt-metal device log)");
	if (h->host_left_out)
		fprintf(f, "<p class=\"note\">%zu host events of further threads are not drawn "
			"(%d host lanes at most).</p>\n", h->host_left_out, KPROF_HTML_HOST_LANES);
	svg_timeline(f, h);
	fputs("<p class=\"legend\">", f);
	for (size_t i = 0; i < h->nkinds; i++) {
		char col[32];

		kind_color(col, sizeof(col), (int)i, h->nkinds);
		fprintf(f, "<span><i style=\"background:%s\"></i>", col);
		kprof_html_escape(f, kind_name(h, (int)i));
		fputs("</span>", f);
	}
	fputs("</p>\n", f);

	fputs("<h2>Top ops by device time</h2>\n"
	      "<noscript><p>The op-kind table needs JavaScript; ops.csv has the same data."
	      "</p></noscript>\n<table id=\"top-ops\"></table>\n", f);
	kinds_json(f, h);
	slowest_ops(f, h);

	fputs("<h2>Bottlenecks</h2>\n", f);
	have_report = pre_file(f, dir, "report.md", "report-md");
	/* a broken CSV of these is left out, the rest of the page stands */
	if (csv_table(f, dir, "roofline.csv", "roofline", err) < 0)
		fputs("<p class=\"note\">roofline.csv could not be read.</p>\n", f);
	have_bub = csv_table(f, dir, "bubbles.csv", "bubbles", err);
	if (have_bub < 0) {
		fputs("<p class=\"note\">bubbles.csv could not be read.</p>\n", f);
		have_bub = 1;
	}
	if (!have_report)
		fprintf(f, "<p class=\"note\">No report.md (roofline verdict) in this directory: "
			"the bottleneck figures here are what ops.csv and counters.csv give: "
			"share of device time per op kind, and %s.</p>\n",
			h->have_counters ? "FLOP/byte and GFLOP/s from the flops, bytes_read and "
			"bytes_written counters (columns of the table above)" :
			"no counters (no counters.csv)");
	if (!have_bub)
		fputs("<p class=\"note\">No bubbles.csv (per-core bubble analysis) in this "
		      "directory.</p>\n", f);
	fputs("<h2>summary.txt</h2>\n", f);
	if (!pre_file(f, dir, "summary.txt", "summary"))
		fputs("<p class=\"note\">No summary.txt.</p>\n", f);
	fputs("<script>\n", f);
	fputs(html_js, f);
	fputs("</script>\n</body></html>\n", f);
}

int kprof_html_write(const char *dir, struct kprof_err *err)
{
	struct html h;
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	int *kidx = NULL, ret;
	FILE *f = NULL;

	memset(&h, 0, sizeof(h));
	ret = read_ops(&h, dir, &kidx, err);
	if (ret)
		goto out;
	ret = read_counters(&h, dir, err);
	if (ret)
		goto out;
	ret = lanes_from_trace(&h, dir, err);
	if (ret < 0)
		goto out;
	if (ret == 0) {
		h.nsl = 0;
		ret = lanes_from_ops(&h, kidx, err);
		if (ret)
			goto out;
	}
	h.nlanes = h.ndev_lanes;
	ret = lanes_from_host(&h, dir, err);
	if (ret)
		goto out;

	snprintf(path, sizeof(path), "%s/report.html", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f) {
		ret = kprof_err_set(err, errno, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	write_page(f, dir, &h, err);
	if (ferror(f) | (fclose(f) != 0) || rename(tmp, path)) {
		unlink(tmp);
		ret = kprof_err_set(err, EIO, "writing %s failed", path);
	}
	f = NULL;
out:
	free(kidx);
	for (size_t i = 0; i < h.nkinds; i++) {
		free(h.kinds[i].op);
		free(h.kinds[i].kern);
	}
	free(h.kinds);
	free(h.sl);
	kprof_csv_free(&h.ops);
	return ret;
}
