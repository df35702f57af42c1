// SPDX-License-Identifier: GPL-2.0
/* report.html writer (see kprof_html.h, docs/formats.md). */
#include "kprof_html.h"
#include "kprof_trace.h"
#include "kprof_csvread.h"
#include "kprof_fmt.h"
#include "kprof_hash.h"
#include "kprof_median.h"
#include "kprof_mdhtml.h"
#include "kprof_outdir.h"
#include "kprof_report_out.h"

#include <errno.h>
#include <inttypes.h>
#include <json.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLOT_X0		170	/* label column width */
#define PLOT_W		1000
#define LANE_H		20
#define TOP_SLOWEST	20
/* roofline chart: plot area, and at most this many kinds / roofs drawn */
#define RL_W		640
#define RL_H		360
#define RL_X0		60
#define RL_Y0		20
#define RL_KINDS	40
#define RL_ROOFS	4

/*
 * The timeline is drawn per pixel column: the slices of a lane that start
 * in the same column are one rectangle. So it needs, per lane and column,
 * only the first slice, the count, the latest end and whether the kinds
 * differ, whatever the capture's length.
 */
struct cell {
	double t0, t1;		/* first slice by (t0, t1, seq), host ns */
	uint64_t seq;
	int kind;		/* op kind index, -1: host launch, -2: host sync */
	int mixed;		/* a slice of another kind than the first */
	double end;		/* latest end of all */
	uint64_t cnt;
};

struct lane {
	char name[96];
};

struct kindstat {
	char *op;
	size_t oplen;
	uint64_t n, nk;
	double med_k;
	double tot_k, tot_fw, tot_host, max_k;
	uint64_t nfw, nhost;
	double flops, bytes;	/* counter sums, if those counters exist */
	int has_flops, has_bytes;
	/* roofline.csv sums; peaks weighted by time, to give one roof a kind */
	double rl_time, rl_flops, rl_bytes, rl_pf, rl_pb, rl_cores;
};

struct slow {
	double v;
	char *seq, *op, *cores;
};

struct track {
	int64_t tid;
	char name[80];
};

/*
 * ops.csv and host_events.csv were read again for each use of them: the
 * timeline's second pass and the medians' passes. What those take from
 * them (a slice each, a kernel time each) is held from the first reading
 * instead, up to HOLD_MAX entries of each kind: past that (or without
 * memory) the entries held are given up and the file is read again, as
 * before, so that memory does not grow with the capture.
 */
#define HOLD_MAX	(1u << 15)

struct hold {
	void *v;
	size_t n, cap;
	bool on;	/* v holds every entry of its file so far */
};

/* A slice of ops.csv or host_events.csv, as add_slice() takes it. */
struct hslice {
	double t0, t1;
	uint64_t seq;
	int kind, lane;
};

/* A kernel time of ops.csv and its kind, for the medians. */
struct hkt {
	double v;
	size_t kind;
};

/* A device slice of trace.json, as the timeline's passes draw it. */
struct dslice {
	double t0, t1;		/* host ns */
	uint64_t seq;
	int64_t tid;
	int kind, lane;		/* the lane: once the tracks are known */
};

struct html {
	struct kprof_outdir *od;	/* inputs: what this report wrote there */
	const char *dir;
	size_t nops;
	struct kindstat *kinds;
	size_t nkinds, capkinds;
	struct kprof_hidx kh;	/* op -> kind */
	struct kprof_median *med;	/* the kernel time medians, while their passes last */
	struct slow slow[TOP_SLOWEST];
	size_t nslow;
	struct lane lanes[KPROF_HTML_DEV_LANES + KPROF_HTML_HOST_LANES + 1];
	int nlanes, ndev_lanes;
	struct track *tr;	/* trace.json device tracks, when used */
	size_t ntr, trcap;
	struct kprof_hidx trh;	/* tid -> track: a log can have any number */
	int per;		/* tracks per device lane */
	struct dslice *ds;	/* their slices, in the file's order */
	size_t nds, dscap;
	int64_t host_tid[KPROF_HTML_HOST_LANES];
	int host_role[KPROF_HTML_HOST_LANES];
	int nhost;
	const char *lane_source;	/* what the device lanes come from */
	int have_counters, have_host;
	int host_file;			/* host_events.csv exists (maybe empty) */
	size_t host_left_out;		/* host events of threads beyond the lanes */
	FILE *trace;		/* trace.json, if there and not too big */
	bool ops_range;		/* the ops lane's first pass made in read_ops() */
	/* timeline passes: 0 finds the time range, 1 fills the cells */
	int pass;
	size_t nsl;
	double tmin, tmax;
	struct cell *cells;	/* nlanes x (PLOT_W + 1) */
	struct hold ops_sl;	/* ops.csv's slices (struct hslice), from its first pass */
	struct hold host_sl;	/* host_events.csv's, from its first pass */
	struct hold kt;		/* ops.csv's kernel times (struct hkt), from read_ops() */
};

static void hold_drop(struct hold *hd)
{
	free(hd->v);
	*hd = (struct hold){ NULL, 0, 0, false };
}

/* hold_add() past the room there is */
static void hold_more(struct hold *hd, const void *e, size_t elem)
{
	if (!hd->on)
		return;
	if (hd->n == HOLD_MAX || kprof_report_grow(&hd->v, &hd->cap, hd->n, elem, 1024, NULL)) {
		hold_drop(hd);
		return;
	}
	memcpy((char *)hd->v + hd->n * elem, e, elem);
	hd->n++;
}

/*
 * e (elem bytes) appended to hd, or hd given up (HOLD_MAX, no memory).
 * cap doubles from 1024 to HOLD_MAX at most, and is 0 once given up.
 */
static inline void hold_add(struct hold *hd, const void *e, size_t elem)
{
	if (hd->n < hd->cap) {
		memcpy((char *)hd->v + hd->n * elem, e, elem);
		hd->n++;
	} else {
		hold_more(hd, e, elem);
	}
}

static inline void hold_slice(struct hold *hd, double t0, double t1, uint64_t seq, int kind,
			      int lane)
{
	struct hslice e = { t0, t1, seq, kind, lane };

	hold_add(hd, &e, sizeof(e));
}

/*
 * Output put together in memory and written a buffer at a time: the
 * timeline's rects (up to PLOT_W + 1 a lane) were most of the page's
 * writing as a stdio call per piece.
 */
struct obuf {
	FILE *f;
	size_t n;
	char b[4096];
};

static void ob_flush(struct obuf *o)
{
	fwrite(o->b, 1, o->n, o->f);
	o->n = 0;
}

/* ob_mem() past the room there is */
static void ob_mem_more(struct obuf *o, const char *s, size_t n)
{
	ob_flush(o);
	if (n > sizeof(o->b)) {
		fwrite(s, 1, n, o->f);
		return;
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

/* inline: most pieces are literals, copied as such */
static inline void ob_mem(struct obuf *o, const char *s, size_t n)
{
	if (n <= sizeof(o->b) - o->n) {
		memcpy(o->b + o->n, s, n);
		o->n += n;
	} else {
		ob_mem_more(o, s, n);
	}
}

static inline void ob_str(struct obuf *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

/* v as "%.*f" would write it */
static void ob_fixed(struct obuf *o, double v, unsigned int prec)
{
	int n;

	if (sizeof(o->b) - o->n < KPROF_FMT_FIXED_MAX)
		ob_flush(o);
	n = kprof_fmt_fixed(o->b + o->n, KPROF_FMT_FIXED_MAX, v, prec);
	o->n += n < KPROF_FMT_FIXED_MAX ? (size_t)n : KPROF_FMT_FIXED_MAX - 1;
}

/* v as "%" PRIu64 would write it */
static void ob_u64(struct obuf *o, uint64_t v)
{
	char b[20];

	ob_mem(o, b, (size_t)(kprof_fmt_u64(b, v) - b));
}

/* s with the five characters HTML gives meaning to written as entities */
static void ob_escape(struct obuf *o, const char *s)
{
	const char *run = s;

	for (; *s; s++) {
		const char *e;

		switch (*s) {
		case '&':
			e = "&amp;";
			break;
		case '<':
			e = "&lt;";
			break;
		case '>':
			e = "&gt;";
			break;
		case '"':
			e = "&quot;";
			break;
		case '\'':
			e = "&#39;";
			break;
		default:
			continue;
		}
		ob_mem(o, run, (size_t)(s - run));
		ob_str(o, e);
		run = s + 1;
	}
	ob_mem(o, run, (size_t)(s - run));
}

void kprof_html_escape(FILE *f, const char *s)
{
	struct obuf o;

	o.f = f;
	o.n = 0;
	ob_escape(&o, s);
	ob_flush(&o);
}

void kprof_html_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') {
			fprintf(f, "\\u%04x", *p);
		} else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			/* U+2028/2029: line breaks to older JS parsers */
			fprintf(f, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
			p += 2;
		} else {
			fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* a byte json_num's numbers are made of */
static int json_num_byte(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' ||
	       c == '-';
}

/*
 * json_num() and num() for the numbers kprof writes in trace.json and the
 * CSVs ([-]digits[.digits], at most 15 digits): 1 with *d or *i set, 0
 * for their full path. strtod was most of report.html's reading of
 * trace.json. The value is
 * the same: the digits as an integer below 2^53 and 10^k (k <= 15) are
 * exact doubles, and one IEEE division rounds their quotient to the
 * nearest double, as strtod rounds the decimal.
 */
static inline __attribute__((always_inline))
int json_num_short(char *p, char **end, double *d, int64_t *i)
{
	static const double p10[16] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
		1e14, 1e15,
	};
	char *q = p + (*p == '-'), *f;
	uint64_t m = 0;
	unsigned int c;
	size_t nd;
	int k = -1;

	/*
	 * the integer digits, then (a double's) the fraction's; counted
	 * after the loops, which stay short (m wraps past 19 digits, unused)
	 */
	for (f = q; (c = (unsigned int)(unsigned char)*q - '0') < 10; q++)
		m = m * 10 + c;
	nd = (size_t)(q - f);
	if (*q == '.' && nd && d) {
		for (f = ++q; (c = (unsigned int)(unsigned char)*q - '0') < 10; q++)
			m = m * 10 + c;
		k = (int)(q - f);
		nd += (size_t)k;
	}
	if (!nd || nd > 15 || !k || json_num_byte(*q))
		return 0;
	if (d) {
		double v = k > 0 ? (double)m / p10[k] : (double)m;

		*d = *p == '-' ? -v : v;
	} else {
		*i = *p == '-' ? -(int64_t)m : (int64_t)m;
	}
	*end = q;
	return 1;
}

/* num() for any field */
static int num_any(const char *s, double *v)
{
	char *end;

	if (!s || !*s)
		return -1;
	/* the numbers kprof writes, without strtod (the same value) */
	if (json_num_short((char *)s, &end, v, NULL))
		return *end ? -1 : 0;
	errno = 0;
	*v = strtod(s, &end);
	return (errno || *end || !isfinite(*v)) ? -1 : 0;
}

/*
 * The value of 8 decimal digits at p (the first the most significant),
 * or -1 if a byte is not a digit: a few operations on the 8 bytes as one
 * little-endian word, where a loop took about 5 instructions a digit.
 */
static inline int64_t digits8(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x;

	memcpy(&x, p, sizeof(x));
	/* each byte '0'..'9': its high half 3, its low half below 10 */
	if ((x & 0xf0f0f0f0f0f0f0f0ULL) != 0x3030303030303030ULL ||
	    ((x + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) != 0x3030303030303030ULL)
		return -1;
	x -= 0x3030303030303030ULL;
	/* pairs, then fours, then all eight: each step fits its lanes */
	x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffULL;
	x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffULL;
	return (int64_t)((x * 10000 + (x >> 32)) & 0xffffffffULL);
#else
	int64_t m = 0;

	for (int i = 0; i < 8; i++) {
		unsigned int c = (unsigned int)(unsigned char)p[i] - '0';

		if (c > 9)
			return -1;
		m = m * 10 + c;
	}
	return m;
#endif
}

/*
 * A field's number (len: its length), as num_any() reads it. The cells
 * kprof writes are mostly integers of up to 15 digits: their value is
 * (double)m, what json_num_short() gives them, without its scan.
 */
/*
 * A CSV cell's number as an integer: out of range (a file not kprof's)
 * gives 0, where the conversion would be undefined
 */
static uint64_t to_u64(double v)
{
	return v >= 0 && v < 18446744073709551616.0 ? (uint64_t)v : 0;
}

static int64_t to_i64(double v)
{
	return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (int64_t)v : 0;
}

static inline int num(const char *s, size_t len, double *v)
{
	size_t neg, n, i = 0;
	uint64_t m = 0;

	if (!s)
		return -1;
	neg = *s == '-';
	n = len - neg;
	if (n - 1 >= 15)
		return num_any(s, v);
	s += neg;
	if (n >= 8) {
		int64_t d = digits8(s);

		if (d < 0)
			return num_any(s - neg, v);
		m = (uint64_t)d;
		i = 8;
	}
	for (; i < n; i++) {
		unsigned int c = (unsigned int)(unsigned char)s[i] - '0';

		if (c > 9)
			return num_any(s - neg, v);
		m = m * 10 + c;
	}
	*v = neg ? -(double)m : (double)m;
	return 0;
}

struct kind_key {
	const struct kindstat *k;
	const char *op;
	size_t len;
};

static int kind_eq(const void *key, size_t i)
{
	const struct kind_key *q = key;

	return q->k[i].oplen == q->len && !memcmp(q->k[i].op, q->op, q->len);
}

static size_t kind_hash(const void *arr, size_t i)
{
	const struct kindstat *k = &((const struct kindstat *)arr)[i];

	return kprof_hash_mem(k->op, k->oplen);
}

/* Index of the kind named op (len bytes), or -1. */
static int find_kind(const struct html *h, const char *op, size_t len)
{
	struct kind_key q = { h->kinds, op, len };
	size_t pos;

	if (!h->kh.cap)
		return -1;
	pos = kprof_hidx_slot(&h->kh, kprof_hash_mem(op, len), kind_eq, &q);
	return h->kh.slot[pos] ? (int)(h->kh.slot[pos] - 1) : -1;
}

/* Index of op's kind, added in order of first appearance; -1: no memory. */
static int kind_index(struct html *h, const char *op, size_t len)
{
	int ki = find_kind(h, op, len);
	struct kind_key q;
	struct kindstat *k;

	if (ki >= 0)
		return ki;
	if (kprof_report_grow(&h->kinds, &h->capkinds, h->nkinds, sizeof(*h->kinds), 16, NULL) ||
	    kprof_hidx_reserve(&h->kh, h->nkinds, kind_hash, h->kinds))
		return -1;
	k = &h->kinds[h->nkinds];
	memset(k, 0, sizeof(*k));
	k->op = malloc(len + 1);
	if (!k->op)
		return -1;
	memcpy(k->op, op, len);
	k->op[len] = '\0';
	k->oplen = len;
	q = (struct kind_key){ h->kinds, op, len };
	h->kh.slot[kprof_hidx_slot(&h->kh, kprof_hash_mem(op, len), kind_eq, &q)] = h->nkinds + 1;
	return (int)h->nkinds++;
}

/*
 * A slice of the timeline: pass 0 measures the time range, pass 1 draws
 * (inline: a call per slice cost a third of it).
 */
static inline void add_slice(struct html *h, double t0, double t1, int kind, uint64_t seq,
			     int lane)
{
	double span = h->tmax > h->tmin ? h->tmax - h->tmin : 1;
	double x0;
	struct cell *c;
	long col;

	if (t1 < t0)
		t1 = t0;
	if (h->pass == 0) {
		if (t0 < h->tmin)
			h->tmin = t0;
		if (t1 > h->tmax)
			h->tmax = t1;
		h->nsl++;
		return;
	}
	x0 = PLOT_X0 + (t0 - h->tmin) / span * PLOT_W;
	col = (long)floor(x0) - PLOT_X0;
	if (col < 0)
		col = 0;
	if (col > PLOT_W)
		col = PLOT_W;
	c = &h->cells[(size_t)lane * (PLOT_W + 1) + (size_t)col];
	if (!c->cnt) {
		*c = (struct cell){ t0, t1, seq, kind, 0, t1, 0 };
	} else {
		c->mixed |= kind != c->kind;
		if (t0 < c->t0 || (t0 == c->t0 && (t1 < c->t1 || (t1 == c->t1 && seq < c->seq)))) {
			c->t0 = t0;
			c->t1 = t1;
			c->seq = seq;
			c->kind = kind;
		}
		if (t1 > c->end)
			c->end = t1;
	}
	c->cnt++;
}

/* The slices held in hd, again (the timeline's second pass). */
static void add_held(struct html *h, const struct hold *hd)
{
	const struct hslice *e = hd->v;

	for (size_t i = 0; i < hd->n; i++)
		add_slice(h, e[i].t0, e[i].t1, e[i].kind, e[i].seq, e[i].lane);
}

/* One of the 20 slowest ops: kept sorted, ties keep the earlier op. */
static int note_slow(struct html *h, double v, char **row, int c_seq, int c_op, int c_cores)
{
	struct slow e;
	size_t p;

	for (p = h->nslow; p > 0 && h->slow[p - 1].v < v; p--)
		;
	if (p >= TOP_SLOWEST)
		return 0;
	e.v = v;
	e.seq = strdup(c_seq >= 0 ? row[c_seq] : "");
	e.op = strdup(row[c_op]);
	e.cores = strdup(c_cores >= 0 ? row[c_cores] : "");
	if (!e.seq || !e.op || !e.cores) {
		free(e.seq);
		free(e.op);
		free(e.cores);
		return -ENOMEM;
	}
	if (h->nslow == TOP_SLOWEST) {
		struct slow *last = &h->slow[TOP_SLOWEST - 1];

		free(last->seq);
		free(last->op);
		free(last->cores);
	} else {
		h->nslow++;
	}
	memmove(&h->slow[p + 1], &h->slow[p], (h->nslow - 1 - p) * sizeof(*h->slow));
	h->slow[p] = e;
	return 0;
}

/* The ops.csv columns the page uses (GLOBAL CALL COUNT .. END TS optional). */
struct ops_cols {
	int op, k, fw, host, seq, cores, t0, t1;
};

static int open_ops(struct html *h, struct kprof_csv_reader *r, struct ops_cols *c,
		    struct kprof_err *err)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/ops.csv", h->dir);
	ret = kprof_outdir_reopen(h->od, "ops.csv", err);
	if (ret == -ENOENT)
		return kprof_err_set(err, ENOENT,
				     "%s: not written by this report (the page is made from it)",
				     path);
	if (ret >= 0)
		ret = kprof_csv_open_fd(ret, path, r, err);
	if (ret)
		return ret;
	c->op = kprof_csv_rcol(r, "OP CODE");
	c->k = kprof_csv_rcol(r, "DEVICE KERNEL DURATION [ns]");
	c->fw = kprof_csv_rcol(r, "DEVICE FW DURATION [ns]");
	c->host = kprof_csv_rcol(r, "HOST DURATION [ns]");
	c->seq = kprof_csv_rcol(r, "GLOBAL CALL COUNT");
	c->cores = kprof_csv_rcol(r, "CORE COUNT");
	c->t0 = kprof_csv_rcol(r, "DEVICE FW START TS [ns]");
	c->t1 = kprof_csv_rcol(r, "DEVICE FW END TS [ns]");
	if (c->op < 0 || c->k < 0 || c->fw < 0 || c->host < 0) {
		kprof_csv_close(r);
		return kprof_err_set(err, EBADMSG, "%s: not a kprof ops.csv (columns missing)",
				     path);
	}
	return 0;
}

/*
 * Per-kind statistics and the slowest ops, one row at a time; with them,
 * when the device lane will be drawn from ops.csv (no trace.json to
 * read), that lane's time range: the timeline's first pass. The kernel
 * times and the lane's slices are held for the passes after (struct hold).
 */
static int read_ops(struct html *h, struct kprof_err *err)
{
	struct kprof_csv_reader r;
	struct ops_cols c;
	int ret = open_ops(h, &r, &c, err);

	if (ret)
		return ret;
	h->ops_range = !h->trace && c.t0 >= 0 && c.t1 >= 0;
	h->ops_sl.on = h->ops_range;
	h->kt.on = true;
	/* FW START/END TS: for the ops lane's range */
	kprof_csv_select(&r, (const int[]){ c.op, c.k, c.fw, c.host, c.seq, c.cores,
			 h->ops_range ? c.t0 : -1, h->ops_range ? c.t1 : -1 }, 8);
	while ((ret = kprof_csv_next(&r, err)) > 0) {
		char **row = r.row;
		int ki = kind_index(h, row[c.op], r.len[c.op]);
		struct kindstat *k;
		double v, v1;

		if (ki < 0) {
			ret = kprof_err_set(err, ENOMEM, "out of memory");
			break;
		}
		h->nops++;
		k = &h->kinds[ki];
		k->n++;
		if (!num(row[c.k], r.len[c.k], &v)) {
			k->nk++;
			k->tot_k += v;
			if (v > k->max_k)
				k->max_k = v;
			if (note_slow(h, v, row, c.seq, c.op, c.cores)) {
				ret = kprof_err_set(err, ENOMEM, "out of memory");
				break;
			}
			hold_add(&h->kt, &(struct hkt){ v, (size_t)ki }, sizeof(struct hkt));
		}
		if (!num(row[c.fw], r.len[c.fw], &v)) {
			k->tot_fw += v;
			k->nfw++;
		}
		if (!num(row[c.host], r.len[c.host], &v)) {
			k->tot_host += v;
			k->nhost++;
		}
		if (h->ops_range && !num(row[c.t0], r.len[c.t0], &v) &&
		    !num(row[c.t1], r.len[c.t1], &v1)) {
			add_slice(h, v, v1, ki, 0, 0);
			if (h->ops_sl.on) {
				/* the second pass's slice, as slices_from_ops() makes it */
				double s = 0;

				if (c.seq >= 0)
					num(row[c.seq], r.len[c.seq], &s);
				hold_slice(&h->ops_sl, v, v1, to_u64(s), ki, 0);
			}
		}
	}
	kprof_csv_close(&r);
	return ret;
}

/*
 * The median kernel time per kind, exact, in bounded memory: each pass
 * kprof_median needs (one when the kernel times fit
 * KPROF_HTML_MEDIAN_BUDGET) is given the kernel times read_ops() held,
 * or, past HOLD_MAX of them, reads ops.csv again; then, when the device
 * lane is drawn from ops.csv and its slices were not held either, the
 * timeline's second pass over it is the first of these.
 */
static int medians_begin(struct html *h, struct kprof_err *err)
{
	uint64_t *counts = calloc(h->nkinds ? h->nkinds : 1, sizeof(*counts));

	if (!counts)
		return kprof_err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < h->nkinds; i++)
		counts[i] = h->kinds[i].nk;
	h->med = kprof_median_new(h->nkinds, counts, KPROF_HTML_MEDIAN_BUDGET, err);
	free(counts);
	return h->med ? 0 : -ENOMEM;
}

/* A row's kernel time (column col) for the median pass under way; ki: its kind. */
static void median_add(struct html *h, const struct kprof_csv_reader *r, int col, int ki)
{
	double v;

	if (ki >= 0 && !num(r->row[col], r->len[col], &v))
		kprof_median_add(h->med, (size_t)ki, v);
}

/* The median passes left, over the held kernel times or ops.csv; then each kind's median. */
static int medians_end(struct html *h, struct kprof_err *err)
{
	int ret = 0;

	while (!ret && !kprof_median_done(h->med)) {
		struct kprof_csv_reader r;
		struct ops_cols c;

		if (h->kt.on) {
			const struct hkt *e = h->kt.v;

			for (size_t i = 0; i < h->kt.n; i++)
				kprof_median_add(h->med, e[i].kind, e[i].v);
			ret = kprof_median_pass_end(h->med, err);
			continue;
		}
		ret = open_ops(h, &r, &c, err);
		if (ret)
			break;
		kprof_csv_select(&r, (const int[]){ c.op, c.k }, 2);
		while ((ret = kprof_csv_next(&r, err)) > 0)
			median_add(h, &r, c.k, find_kind(h, r.row[c.op], r.len[c.op]));
		kprof_csv_close(&r);
		if (!ret)
			ret = kprof_median_pass_end(h->med, err);
	}
	for (size_t i = 0; !ret && i < h->nkinds; i++)
		h->kinds[i].med_k = kprof_median_get(h->med, i);
	kprof_median_free(h->med);
	h->med = NULL;
	hold_drop(&h->kt);
	return ret;
}

/*
 * A field (len bytes, no NUL in it) is the literal lit: strcmp's answer
 * from the length and a memcmp of a known size, inline.
 */
#define field_is(s, len, lit)	((len) == sizeof(lit) - 1 && !memcmp(s, lit, sizeof(lit) - 1))

/* Whether a counters.csv COUNTER (len bytes) is one the page sums (the sim's names). */
static bool counter_used(const char *name, size_t len)
{
	return field_is(name, len, "flops") || field_is(name, len, "bytes_read") ||
	       field_is(name, len, "bytes_written");
}

/*
 * flops and bytes per kind from counters.csv (counter names of the sim).
 * A row adds its kind (when its SUM is a number) and, for those counters,
 * its SUM: a row of a kind already there and another counter needs
 * neither its number read nor its kind looked up again (a kind's rows
 * come together). Such rows are nearly all of them, or all (no sim
 * counters): the file is read first without SUM, the last column, whose
 * splitting was a good part of each row's cost; at the first row that
 * needs it, it is read again from the start with SUM (*full).
 */
static int counters_pass(struct html *h, bool *full, struct kprof_err *err)
{
	struct kprof_csv_reader r;
	char path[PATH_MAX];
	int co, cc, cs, ret, ki = -1;

	snprintf(path, sizeof(path), "%s/counters.csv", h->dir);
	ret = kprof_outdir_reopen(h->od, "counters.csv", err);
	if (ret == -ENOENT)
		return 0;
	if (ret >= 0)
		ret = kprof_csv_open_fd(ret, path, &r, err);
	if (ret)
		return ret;
	co = kprof_csv_rcol(&r, "OP CODE");
	cc = kprof_csv_rcol(&r, "COUNTER");
	cs = kprof_csv_rcol(&r, "SUM");
	if (co < 0 || cc < 0 || cs < 0) {
		kprof_csv_close(&r);
		return kprof_err_set(err, EBADMSG, "%s: not a kprof counters.csv", path);
	}
	h->have_counters = 1;
	kprof_csv_select(&r, (const int[]){ co, cc, *full ? cs : -1 }, 3);
	while ((ret = kprof_csv_next(&r, err)) > 0) {
		const char *name = r.row[cc];
		const char *op = r.row[co];
		size_t len = r.len[co];
		bool used = counter_used(name, r.len[cc]);
		double v;

		/* the kind of the row before, or another */
		if (ki < 0 || h->kinds[ki].oplen != len || memcmp(h->kinds[ki].op, op, len))
			ki = find_kind(h, op, len);
		if (ki >= 0 && !used)
			continue;
		if (!*full) {
			*full = true;	/* nothing was changed before this row */
			ret = 0;
			break;
		}
		if (num(r.row[cs], r.len[cs], &v))
			continue;
		ki = kind_index(h, op, len);
		if (ki < 0) {
			ret = kprof_err_set(err, ENOMEM, "out of memory");
			break;
		}
		if (field_is(name, r.len[cc], "flops")) {
			h->kinds[ki].flops += v;
			h->kinds[ki].has_flops = 1;
		} else if (used) {
			h->kinds[ki].bytes += v;
			h->kinds[ki].has_bytes = 1;
		}
	}
	kprof_csv_close(&r);
	return ret;
}

static int read_counters(struct html *h, struct kprof_err *err)
{
	bool full = false;
	int ret = counters_pass(h, &full, err);

	if (!ret && full)
		ret = counters_pass(h, &full, err);
	return ret;
}

static int cmp_track(const void *a, const void *b)
{
	int64_t x = ((const struct track *)a)->tid, y = ((const struct track *)b)->tid;

	return (x > y) - (x < y);
}

/*
 * strncmp(p, lit, n) == 0 for a lit of n bytes without a NUL, lim the end
 * of p's line: a memcmp of a known size (at()), not a call per key.
 */
static inline bool at_n(const char *p, const char *lim, const char *lit, size_t n)
{
	return (size_t)(lim - p) >= n && !memcmp(p, lit, n);
}

#define at(p, lim, lit)	at_n(p, lim, lit, sizeof(lit) - 1)

/* The integer value of a line's only "pid" key; 0: none, or not that. */
static int line_pid(const char *s, long long *pid)
{
	const char *p = strstr(s, "\"pid\":");
	char *end;

	/* once, and no escape that could hide another in a string */
	if (!p || strstr(p + 6, "\"pid\":") || strchr(s, '\\'))
		return 0;
	errno = 0;
	*pid = strtoll(p + 6, &end, 10);
	return end != p + 6 && !errno && (*end == ',' || *end == '}');
}

/*
 * Only slices ("X") and names ("M") of device tracks (pid 1) are drawn.
 * The rest, most of trace.json's lines (zone slices, counters, flows,
 * the host's calls), is skipped before json-c builds an object of it,
 * which took most of a report's time. A key such as "tid": can only
 * occur unescaped as a key, so a line holding it with another value is
 * such an event; anything else is parsed.
 */
static bool trace_skip_line(const char *s, const char *lim)
{
	/* (kprof writes the phase first) */
	const char *ph = at(s, lim, "{\"ph\":\"") ? s + 1 : strstr(s, "\"ph\":\""), *t;
	unsigned long long tid;
	long long pid;
	char *end;

	if (ph && ph[6] != 'X' && ph[6] != 'M')
		return true;
	/* the host's call slices and names (an NVIDIA report's most lines) */
	if (line_pid(s, &pid) && pid != 1)
		return true;
	t = strstr(s, "\"tid\":");	/* only when the phase did not decide */
	if (!t)
		return false;
	t += 6;
	tid = strtoull(t, &end, 10);
	return end != t && tid >= KPROF_TRACE_ZONE_TID;
}

/*
 * A line of trace.json as kprof writes it (the header line, then one
 * event per line, then "]}"), trimmed of blanks and its ',' in place:
 * NULL for the lines that hold no event. *lim: its end (its NUL).
 */
static char *trace_line(char *s, size_t n, char **lim)
{
	/* blanks, and NULs (strchr(" \t\r\n", c) took those too) */
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
		     s[n - 1] == '\n' || !s[n - 1]))
		n--;
	if (n && s[n - 1] == ',')
		n--;
	s[n] = '\0';
	*lim = s + n;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || !strcmp(s, "]}") || !strcmp(s, "]"))
		return NULL;
	if (s[strlen(s) - 1] == '[' && strstr(s, "\"traceEvents\""))
		return NULL;
	return s;
}

static FILE *trace_open(const struct html *h)
{
	int fd = kprof_outdir_reopen(h->od, "trace.json", NULL);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	f = NULL;
	if (!fstat(fd, &st) && st.st_size <= (off_t)KPROF_HTML_TRACE_MAX)
		f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return NULL;
	}
	return f;
}

struct track_key {
	const struct track *tr;
	int64_t tid;
};

static int track_eq(const void *key, size_t i)
{
	const struct track_key *k = key;

	return k->tr[i].tid == k->tid;
}

static size_t track_hash(const void *arr, size_t i)
{
	return kprof_hash_u64((uint64_t)((const struct track *)arr)[i].tid);
}

/* Index of tid's track, or h->ntr. */
static size_t track_of(const struct html *h, int64_t tid)
{
	struct track_key k = { h->tr, tid };
	size_t pos;

	if (!h->trh.cap)
		return h->ntr;
	pos = kprof_hidx_slot(&h->trh, kprof_hash_u64((uint64_t)tid), track_eq, &k);
	return h->trh.slot[pos] ? h->trh.slot[pos] - 1 : h->ntr;
}

/* tid's track, added ("track TID") if new: its index, or -ENOMEM. */
static long track_add(struct html *h, int64_t tid, struct kprof_err *err)
{
	size_t j = track_of(h, tid);
	struct track_key k = { h->tr, tid };

	if (j < h->ntr)
		return (long)j;
	if (kprof_report_grow(&h->tr, &h->trcap, h->ntr, sizeof(*h->tr), 64, err))
		return -ENOMEM;
	if (kprof_hidx_reserve(&h->trh, h->ntr, track_hash, h->tr))
		return kprof_err_set(err, ENOMEM, "out of memory");
	k.tr = h->tr;
	h->trh.slot[kprof_hidx_slot(&h->trh, kprof_hash_u64((uint64_t)tid), track_eq, &k)] = j + 1;
	h->tr[j].tid = tid;
	snprintf(h->tr[j].name, sizeof(h->tr[j].name), "track %" PRId64, tid);
	h->ntr++;
	return (long)j;
}

/* A device track: a pid 1 thread with slices or a name (not a zone track). */
static int track_event(struct html *h, json_object *e, struct kprof_err *err)
{
	json_object *v, *ph, *nm0;
	int64_t tid;
	long j;
	int named;

	if (!json_object_object_get_ex(e, "pid", &v) || json_object_get_int(v) != 1 ||
	    !json_object_object_get_ex(e, "tid", &v))
		return 0;
	tid = json_object_get_int64(v);
	/* Zone tracks (per RISC) would crowd out the core lanes. */
	if (tid >= KPROF_TRACE_ZONE_TID)
		return 0;
	named = json_object_object_get_ex(e, "name", &nm0) &&
		!strcmp(json_object_get_string(nm0), "thread_name");
	/* tracks: threads with slices or a name (counters are not) */
	if (!named && (!json_object_object_get_ex(e, "ph", &ph) ||
		       strcmp(json_object_get_string(ph), "X")))
		return 0;
	j = track_add(h, tid, err);
	if (j < 0)
		return (int)j;
	if (named) {
		json_object *a, *nm;

		if (json_object_object_get_ex(e, "args", &a) &&
		    json_object_object_get_ex(a, "name", &nm))
			snprintf(h->tr[j].name, sizeof(h->tr[j].name), "%s",
				 json_object_get_string(nm));
	}
	return 0;
}

/*
 * A line track_event() would leave as it is: one slice of a track it has
 * (its only "tid": key names one, no "thread_name", no escapes that could
 * spell it). Nearly every line after a track's first: json-c's object for
 * each was most of report.html's time.
 */
static bool known_track_line(const struct html *h, const char *s)
{
	const char *t = strstr(s, "\"tid\":");
	long long tid;
	char *end;

	if (!t || strstr(t + 6, "\"tid\":") || strstr(s, "thread_name") || strchr(s, '\\'))
		return false;
	errno = 0;
	tid = strtoll(t + 6, &end, 10);
	if (end == t + 6 || errno || (*end != ',' && *end != '}'))
		return false;
	return track_of(h, tid) != h->ntr;
}

/* What report.html takes from a device slice of trace.json. */
struct slice_in {
	int64_t tid;
	double ts, dur;		/* us */
	uint64_t seq;
	const char *name;
	size_t len;		/* strlen(name) */
};

/*
 * A device slice kept for the timeline (of a track, if its tid turns out
 * to be one when the whole file is read).
 */
static int slice_keep(struct html *h, const struct slice_in *in, struct kprof_err *err)
{
	int ki = find_kind(h, in->name, in->len);
	struct dslice *d;

	/* trace.json names ops without an OP CODE "op SEQ" */
	if (ki < 0)
		ki = find_kind(h, "", 0);
	if (ki < 0)
		return 0;
	if (kprof_report_grow(&h->ds, &h->dscap, h->nds, sizeof(*h->ds), 1024, err))
		return -ENOMEM;
	d = &h->ds[h->nds++];
	d->t0 = round(in->ts * 1000);
	d->t1 = round((in->ts + in->dur) * 1000);
	d->seq = in->seq;
	d->tid = in->tid;
	d->kind = ki;
	return 0;
}

/* A pid 1 slice from json-c's object (its track is checked later). */
static bool slice_event(json_object *e, struct slice_in *in)
{
	json_object *v, *a;

	if (!json_object_object_get_ex(e, "ph", &v) || strcmp(json_object_get_string(v), "X") ||
	    !json_object_object_get_ex(e, "pid", &v) || json_object_get_int(v) != 1 ||
	    !json_object_object_get_ex(e, "tid", &v))
		return false;
	in->tid = json_object_get_int64(v);
	if (!json_object_object_get_ex(e, "ts", &v))
		return false;
	in->ts = json_object_get_double(v);
	in->dur = json_object_object_get_ex(e, "dur", &v) ? json_object_get_double(v) : 0;
	in->seq = 0;
	if (json_object_object_get_ex(e, "args", &a) && json_object_object_get_ex(a, "seq", &v))
		in->seq = (uint64_t)json_object_get_int64(v);
	if (!json_object_object_get_ex(e, "name", &v))
		return false;
	in->name = json_object_get_string(v);
	in->len = strlen(in->name);
	return true;
}

/*
 * A JSON number at p (what json-c takes: '-' or a digit first, then
 * digits, '.', 'e', 'E', '+', '-') read with strtod or strtoll (whole:
 * 1, NAN or ERANGE: 0); *end after it.
 */
static int json_num(char *p, char **end, double *d, int64_t *i)
{
	size_t n;

	if (json_num_short(p, end, d, i))
		return 1;
	n = strspn(p, "0123456789.eE+-");

	if (!n || !(*p == '-' || (*p >= '0' && *p <= '9')))
		return 0;
	errno = 0;
	if (d)
		*d = strtod(p, end);
	else
		*i = strtoll(p, end, 10);
	return *end == p + n && !errno && !(d && isnan(*d));
}

/*
 * An op slice line exactly as kprof_trace writes it:
 *   {"ph":"X","cat":"op","pid":1,"tid":T,"name":"N","ts":S,"dur":D,"args":{"seq":Q}}
 * with N free of escapes and control bytes, read without json-c (an
 * object per slice was most of report.html's time with a trace.json):
 * the fields slice_event() gets from json-c. Any other line goes to json-c.
 */
static bool op_slice_line(char *s, const char *lim, struct slice_in *in)
{
	static const char head[] = "{\"ph\":\"X\",\"cat\":\"op\",\"pid\":1,\"tid\":";
	char *p, *q, *end;
	int64_t seq;

	if (!at(s, lim, head) || !json_num(s + sizeof(head) - 1, &end, NULL, &in->tid) ||
	    !at(end, lim, ",\"name\":\""))
		return false;
	p = end + 9;
	for (q = p; *q != '"'; q++)
		if ((unsigned char)*q < 0x20 || *q == '\\')
			return false;	/* the end of the line (NUL) too */
	if (!at(q, lim, "\",\"ts\":") || !json_num(q + 7, &end, &in->ts, NULL) ||
	    !at(end, lim, ",\"dur\":") || !json_num(end + 7, &end, &in->dur, NULL) ||
	    !at(end, lim, ",\"args\":{\"seq\":") || !json_num(end + 15, &end, NULL, &seq) ||
	    strcmp(end, "}}"))
		return false;
	*q = '\0';
	in->name = p;
	in->len = (size_t)(q - p);
	in->seq = (uint64_t)seq;
	return true;
}

/*
 * One line of trace.json for both what it gives: device tracks (pid 1
 * threads with slices or a name) and the device slices, kept for the
 * timeline's two passes (one reading of the file where there were three;
 * KPROF_HTML_TRACE_MAX bounds the slices kept). A slice stops being taken
 * at the first line json-c cannot parse; *slices says whether that came.
 * 0, 1 at a line not in kprof's layout that the tracks need, or < 0.
 */
static int trace_event_line(struct html *h, char *s, const char *lim, bool *slices,
			    json_tokener *tok, struct kprof_err *err)
{
	struct slice_in in;
	json_object *e;
	bool known;
	int ret = 0;

	/* most lines, with a track of their own (no zone track) */
	if (op_slice_line(s, lim, &in)) {
		/* trace_skip_line()'s test: a negative tid is no track */
		if ((uint64_t)in.tid < KPROF_TRACE_ZONE_TID) {
			long j = track_add(h, in.tid, err);

			if (j < 0)
				return (int)j;
		}
		return *slices ? slice_keep(h, &in, err) : 0;
	}
	if (trace_skip_line(s, lim))
		return 0;
	known = known_track_line(h, s);
	if (known && !*slices)
		return 0;
	/* One tokener for the whole file, not one per line. */
	json_tokener_reset(tok);
	e = json_tokener_parse_ex(tok, s, -1);
	if (json_tokener_get_error(tok) != json_tokener_success || !e ||
	    !json_object_is_type(e, json_type_object)) {
		json_object_put(e);
		if (!known)
			return 1;
		*slices = false;
		return 0;
	}
	if (!known)
		ret = track_event(h, e, err);
	if (!ret && *slices && slice_event(e, &in))
		ret = slice_keep(h, &in, err);
	json_object_put(e);
	return ret;
}

/*
 * trace.json read once, one line at a time. 0 when all was read (or there
 * is no usable file), 1 at a line not in kprof's layout, or < 0.
 */
static int trace_read(struct html *h, struct kprof_err *err)
{
	FILE *f = h->trace;
	json_tokener *tok;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	bool slices = true;
	int ret = 0;

	if (!f)
		return 0;
	h->trace = NULL;
	tok = json_tokener_new();
	if (!tok) {
		fclose(f);
		return kprof_err_set(err, ENOMEM, "out of memory");
	}
	while (!ret && (got = getline(&line, &cap, f)) >= 0) {
		char *lim, *s = trace_line(line, (size_t)got, &lim);

		if (s)
			ret = trace_event_line(h, s, lim, &slices, tok, err);
	}
	json_tokener_free(tok);
	free(line);
	fclose(f);
	return ret;
}

/*
 * Device tracks of trace.json, grouped into at most KPROF_HTML_DEV_LANES
 * lanes, and their slices. Returns 1 when used, 0 when not there or not
 * usable.
 */
static int trace_tracks(struct html *h, struct kprof_err *err)
{
	int ret = trace_read(h, err);
	size_t n = 0;

	if (ret < 0)
		return ret;
	kprof_hidx_free(&h->trh);
	if (ret || !h->ntr) {
		h->ntr = 0;
		h->nds = 0;
		return 0;
	}
	qsort(h->tr, h->ntr, sizeof(*h->tr), cmp_track);
	/* indexed again in the sorted order, for the slices' lanes */
	if (kprof_hidx_reserve(&h->trh, h->ntr, track_hash, h->tr))
		return kprof_err_set(err, ENOMEM, "out of memory");
	h->per = (int)((h->ntr + KPROF_HTML_DEV_LANES - 1) / KPROF_HTML_DEV_LANES);
	h->ndev_lanes = (int)((h->ntr + (size_t)h->per - 1) / (size_t)h->per);
	for (int l = 0; l < h->ndev_lanes; l++) {
		size_t a = (size_t)l * (size_t)h->per, b = a + (size_t)h->per - 1;

		if (b >= h->ntr)
			b = h->ntr - 1;
		if (a == b)
			snprintf(h->lanes[l].name, sizeof(h->lanes[l].name), "%s", h->tr[a].name);
		else
			snprintf(h->lanes[l].name, sizeof(h->lanes[l].name), "%.40s .. %.40s",
				 h->tr[a].name, h->tr[b].name);
	}
	/* the slices of tracks, in the file's order, with their lanes */
	for (size_t i = 0; i < h->nds; i++) {
		size_t j = track_of(h, h->ds[i].tid);

		if (j == h->ntr)
			continue;
		h->ds[n] = h->ds[i];
		h->ds[n++].lane = (int)(j / (size_t)h->per);
	}
	h->nds = n;
	h->lane_source = "trace.json device tracks";
	return 1;
}

/* One device lane from ops.csv FW start/end when trace.json is not usable. */
static int slices_from_ops(struct html *h, struct kprof_err *err)
{
	struct kprof_csv_reader r;
	struct ops_cols c;
	int ret = open_ops(h, &r, &c, err);
	bool med;

	if (ret)
		return ret;
	/* the second pass is the medians' first, when they have one to make */
	med = h->pass && h->med && !kprof_median_done(h->med) && !h->kt.on && c.t0 >= 0 &&
	      c.t1 >= 0;
	/* the first pass holds the second's slices */
	h->ops_sl.on = !h->pass;
	kprof_csv_select(&r, (const int[]){ c.op, c.t0, c.t1, c.seq, med ? c.k : -1 }, 5);
	while (c.t0 >= 0 && c.t1 >= 0 && (ret = kprof_csv_next(&r, err)) > 0) {
		double a, b, s = 0;
		int ki = find_kind(h, r.row[c.op], r.len[c.op]);

		if (med)
			median_add(h, &r, c.k, ki);
		if (ki < 0 || num(r.row[c.t0], r.len[c.t0], &a) ||
		    num(r.row[c.t1], r.len[c.t1], &b))
			continue;
		if (c.seq >= 0)
			num(r.row[c.seq], r.len[c.seq], &s);
		add_slice(h, a, b, ki, to_u64(s), 0);
		hold_slice(&h->ops_sl, a, b, to_u64(s), ki, 0);
	}
	kprof_csv_close(&r);
	if (!ret && med)
		ret = kprof_median_pass_end(h->med, err);
	return ret;
}

/*
 * Host lanes: one per traced thread and role (launch and sync slices).
 * Pass 0 assigns the lanes in order of first appearance.
 */
static int slices_from_host(struct html *h, struct kprof_err *err)
{
	struct kprof_csv_reader r;
	char path[PATH_MAX];
	int cr, ct, cc, c0, c1, cq, ret;

	snprintf(path, sizeof(path), "%s/host_events.csv", h->dir);
	ret = kprof_outdir_reopen(h->od, "host_events.csv", err);
	if (ret == -ENOENT)
		return 0;
	h->host_file = 1;
	if (ret >= 0)
		ret = kprof_csv_open_fd(ret, path, &r, err);
	if (ret)
		return ret;
	cr = kprof_csv_rcol(&r, "ROLE");
	ct = kprof_csv_rcol(&r, "TID");
	cc = kprof_csv_rcol(&r, "COMM");
	c0 = kprof_csv_rcol(&r, "ENTER TS [ns]");
	c1 = kprof_csv_rcol(&r, "EXIT TS [ns]");
	cq = kprof_csv_rcol(&r, "SEQ");
	if (cr < 0 || ct < 0 || cc < 0 || c0 < 0 || c1 < 0 || cq < 0) {
		kprof_csv_close(&r);
		return kprof_err_set(err, EBADMSG, "%s: not a kprof host_events.csv", path);
	}
	/* COMM names a lane, in the first pass */
	kprof_csv_select(&r, (const int[]){ cr, ct, c0, c1, cq, h->pass ? -1 : cc }, 6);
	/* the first pass holds the second's slices */
	h->host_sl.on = !h->pass;
	while ((ret = kprof_csv_next(&r, err)) > 0) {
		char **row = r.row;
		double a, b, tid, seq = 0;
		int l, sync;

		if (num(row[c0], r.len[c0], &a) || num(row[c1], r.len[c1], &b) ||
		    num(row[ct], r.len[ct], &tid))
			continue;
		num(row[cq], r.len[cq], &seq);
		sync = field_is(row[cr], r.len[cr], "sync");
		for (l = 0; l < h->nhost && (h->host_tid[l] != to_i64(tid) ||
					     h->host_role[l] != sync); l++)
			;
		if (l == h->nhost) {
			struct lane *ln;

			if (h->pass || h->nhost == KPROF_HTML_HOST_LANES) {
				h->host_left_out += !h->pass;
				continue;
			}
			h->host_tid[l] = to_i64(tid);
			h->host_role[l] = sync;
			h->nhost++;
			ln = &h->lanes[h->ndev_lanes + l];
			snprintf(ln->name, sizeof(ln->name), "%s %.40s (%" PRId64 ")",
				 sync ? "sync" : "launch", row[cc], to_i64(tid));
		}
		add_slice(h, a, b, sync ? -2 : -1, to_u64(seq), h->ndev_lanes + l);
		hold_slice(&h->host_sl, a, b, to_u64(seq), sync ? -2 : -1, h->ndev_lanes + l);
	}
	kprof_csv_close(&r);
	h->have_host = h->nhost > 0;
	return ret;
}

/* What the device lanes come from when trace.json gives no tracks. */
#define OPS_LANE_SOURCE "ops.csv DEVICE FW START/END TS (trace.json not there, too big or not in kprof's one-event-per-line layout)"

/*
 * The timeline in two passes, time range then cells (trace.json: its kept
 * slices; ops.csv: its first pass made in read_ops() when it could be;
 * the second pass of ops.csv and host_events.csv: the slices held in the
 * first, unless there were too many).
 */
static int timeline(struct html *h, struct kprof_err *err)
{
	int from_trace = trace_tracks(h, err);

	if (from_trace < 0)
		return from_trace;
	if (!from_trace) {
		h->ndev_lanes = 1;
		snprintf(h->lanes[0].name, sizeof(h->lanes[0].name), "device (all cores)");
		h->lane_source = OPS_LANE_SOURCE;
	}
	for (h->pass = 0; h->pass < 2; h->pass++) {
		int ret = 0;

		/* the second pass: the slices held in the first, in the same order */
		if (h->pass && h->ops_sl.on)
			add_held(h, &h->ops_sl);
		else if (!from_trace && (h->pass || !h->ops_range))
			ret = slices_from_ops(h, err);

		for (size_t i = 0; i < h->nds; i++) {
			const struct dslice *d = &h->ds[i];

			add_slice(h, d->t0, d->t1, d->kind, d->seq, d->lane);
		}

		if (!ret && h->pass && h->host_sl.on)
			add_held(h, &h->host_sl);
		else if (!ret)
			ret = slices_from_host(h, err);
		if (ret)
			return ret;
		h->nlanes = h->ndev_lanes + h->nhost;
		if (h->pass == 0) {
			if (!h->nsl)
				return 0;
			h->cells = calloc((size_t)h->nlanes * (PLOT_W + 1), sizeof(*h->cells));
			if (!h->cells)
				return kprof_err_set(err, ENOMEM, "out of memory");
		}
	}
	return 0;
}

/*
 * Stable colour per op kind: hue from the kind's index in name order
 * ("hsl(%d,60%%,55%%)", without snprintf: a rect each).
 */
static void kind_color(char out[32], int kind, size_t nkinds)
{
	int hue;

	if (kind == -1) {
		strcpy(out, "#4c78a8");
	} else if (kind == -2) {
		strcpy(out, "#333");
	} else {
		hue = (int)((unsigned int)kind * 360u / (unsigned int)(nkinds ? nkinds : 1));
		memcpy(out, "hsl(", 4);
		/* hue is not negative: its "%d" is its "%" PRIu64, at most 10 bytes */
		strcpy(kprof_fmt_u64(out + 4, (uint64_t)hue), ",60%,55%)");
	}
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
	double tmin = h->tmin, span = h->tmax > h->tmin ? h->tmax - h->tmin : 1;
	int height = (h->nlanes + 1) * LANE_H + 10;
	struct obuf o;
	char tail[48];

	if (!h->nsl) {
		fputs("<p>No timed slices (no device times in ops.csv).</p>\n", f);
		return;
	}
	fprintf(f,
		"<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		PLOT_X0 + PLOT_W + 10, height, PLOT_X0 + PLOT_W + 10, height);
	for (int l = 0; l < h->nlanes; l++) {
		fprintf(f, "<text class=\"lane\" x=\"4\" y=\"%d\">", l * LANE_H + 14);
		kprof_html_escape(f, h->lanes[l].name);
		fprintf(f,
			"</text><line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>\n",
			PLOT_X0, PLOT_X0 + PLOT_W, (l + 1) * LANE_H, (l + 1) * LANE_H);
	}
	/* time axis: 5 ticks, ms from the first slice */
	for (int t = 0; t <= 4; t++) {
		int x = PLOT_X0 + PLOT_W * t / 4;

		fprintf(f,
			"<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"%s\">%.3f ms</text>\n",
			x, h->nlanes * LANE_H + 14, t == 0 ? "start" : t == 4 ? "end" : "middle",
			span * t / 4 / 1e6);
	}
	/*
	 * One rectangle per lane and pixel column that slices start in, so
	 * the SVG has at most PLOT_W + 1 rects per lane whatever the capture
	 * size.
	 */
	o.f = f;
	o.n = 0;
	/* the rects' height, the same for all */
	snprintf(tail, sizeof(tail), "\" height=\"%d\" fill=\"", LANE_H - 6);
	for (int l = 0; l < h->nlanes; l++) {
		/* the lane's rects' y, between x and width */
		char mid[48];
		int nmid = snprintf(mid, sizeof(mid), "\" y=\"%d\" width=\"", l * LANE_H + 3);

		for (int col = 0; col <= PLOT_W; col++) {
			const struct cell *s = &h->cells[(size_t)l * (PLOT_W + 1) + (size_t)col];
			double x0 = PLOT_X0 + (s->t0 - tmin) / span * PLOT_W;
			double x1 = PLOT_X0 + (s->end - tmin) / span * PLOT_W;
			char colr[32];

			if (!s->cnt)
				continue;
			ob_str(&o, "<rect x=\"");
			ob_fixed(&o, x0, 1);
			ob_mem(&o, mid, (size_t)nmid);
			ob_fixed(&o, x1 - x0 < 0.5 ? 0.5 : x1 - x0, 1);
			ob_str(&o, tail);
			if (s->mixed) {
				ob_str(&o, "#999\" class=\"mixed\"><title>");
			} else {
				kind_color(colr, s->kind, h->nkinds);
				ob_str(&o, colr);
				ob_str(&o, "\"><title>");
			}
			if (s->cnt == 1) {
				ob_escape(&o, kind_name(h, s->kind));
				ob_str(&o, " seq ");
				ob_u64(&o, s->seq);
				ob_str(&o, ": ");
				ob_fixed(&o, (s->t1 - s->t0) / 1e3, 3);
				ob_str(&o, " us at ");
				ob_fixed(&o, (s->t0 - tmin) / 1e6, 3);
				ob_str(&o, " ms");
			} else {
				ob_u64(&o, s->cnt);
				ob_str(&o, " slices (");
				if (!s->mixed)
					ob_escape(&o, kind_name(h, s->kind));
				else
					ob_str(&o, "several kinds");
				ob_str(&o, "), ");
				ob_fixed(&o, (s->t0 - tmin) / 1e6, 3);
				ob_str(&o, " to ");
				ob_fixed(&o, (s->end - tmin) / 1e6, 3);
				ob_str(&o, " ms");
			}
			ob_str(&o, "</title></rect>\n");
		}
	}
	ob_flush(&o);
	fputs("</svg>\n", f);
}

/* Per kind: the data the top-ops table is built from (by the page's JS). */
static void kinds_json(FILE *f, struct html *h)
{
	fputs("<script id=\"kprof-kinds\" type=\"application/json\">[\n", f);
	for (size_t i = 0; i < h->nkinds; i++) {
		struct kindstat *k = &h->kinds[i];

		fputs(i ? ",\n{\"op\":" : "{\"op\":", f);
		kprof_html_json_str(f, k->op);
		fprintf(f, ",\"n\":%" PRIu64 ",\"nk\":%" PRIu64, k->n, k->nk);
		fprintf(f, ",\"tot_k\":%.0f,\"med_k\":%.0f,\"max_k\":%.0f,\"mean_fw\":%.0f",
			k->tot_k, k->nk ? k->med_k : 0, k->max_k,
			k->nfw ? k->tot_fw / (double)k->nfw : 0);
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
	fprintf(f, "<h3>The %zu slowest ops (device kernel time)</h3>\n", h->nslow);
	fputs("<table id=\"slowest\"><tr><th>GLOBAL CALL COUNT</th><th>OP CODE</th>", f);
	fputs("<th>CORES</th><th>kernel [us]</th></tr>\n", f);
	for (size_t i = 0; i < h->nslow; i++) {
		fputs("<tr><td>", f);
		kprof_html_escape(f, h->slow[i].seq);
		fputs("</td><td>", f);
		kprof_html_escape(f, h->slow[i].op);
		fputs("</td><td>", f);
		kprof_html_escape(f, h->slow[i].cores);
		fprintf(f, "</td><td>%.3f</td></tr>\n", h->slow[i].v / 1e3);
	}
	fputs("</table>\n", f);
}

/* A small text file as an escaped <pre>; 0 if it is not there. */
static int pre_file(FILE *f, struct html *h, const char *name, const char *id)
{
	int fd = kprof_outdir_reopen(h->od, name, NULL);
	char buf[4096];
	FILE *in;
	size_t n;

	in = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!in) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
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

/* report.md rendered as HTML (its headings below the page's); 0 if absent. */
static int put_verdict_section(FILE *f, struct html *h)
{
	int fd = kprof_outdir_reopen(h->od, "report.md", NULL);
	FILE *in = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!in) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	fputs("<div id=\"verdict\">\n", f);
	if (kprof_md_to_html(in, f, 2))
		fputs("<p class=\"note\">report.md could not be read to the end.</p>\n", f);
	fputs("</div>\n", f);
	fclose(in);
	return 1;
}

/* roofline.csv summed per op kind (h->kinds); 0 absent, -1 unreadable. */
static int roofline_sums(struct html *h, struct kprof_err *err)
{
	enum { C_OP, C_CORES, C_TIME, C_FLOPS, C_BYTES, C_PF, C_PB, NC };
	static const char *const name[NC] = {
		"OP CODE", "CORES", "TIME [ns]", "FLOPS", "BYTES", "PEAK [GFLOP/s]", "PEAK [GB/s]",
	};
	struct kprof_csv_reader r;
	char path[PATH_MAX];
	int col[NC], ret;

	int fd = kprof_outdir_reopen(h->od, "roofline.csv", err);

	snprintf(path, sizeof(path), "%s/roofline.csv", h->dir);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0 || kprof_csv_open_fd(fd, path, &r, err))
		return -1;
	for (int i = 0; i < NC; i++)
		col[i] = kprof_csv_rcol(&r, name[i]);
	for (int i = 0; i < NC; i++)
		if (col[i] < 0) {
			kprof_err_set(err, -EINVAL, "%s: no column '%s'", path, name[i]);
			kprof_csv_close(&r);
			return -1;
		}
	while ((ret = kprof_csv_next(&r, err)) == 1) {
		double v[NC];
		struct kindstat *k;
		int ki;

		for (int i = 1; i < NC; i++)
			if (num(r.row[col[i]], r.len[col[i]], &v[i]))
				v[i] = 0;
		if (v[C_TIME] <= 0)
			continue;
		ki = kind_index(h, r.row[col[C_OP]], r.len[col[C_OP]]);
		if (ki < 0) {
			ret = -ENOMEM;
			kprof_err_set(err, ret, "out of memory for op kinds");
			break;
		}
		k = &h->kinds[ki];
		k->rl_time += v[C_TIME];
		k->rl_flops += v[C_FLOPS];
		k->rl_bytes += v[C_BYTES];
		k->rl_pf += v[C_PF] * v[C_TIME];
		k->rl_pb += v[C_PB] * v[C_TIME];
		k->rl_cores += v[C_CORES] * v[C_TIME];
	}
	kprof_csv_close(&r);
	return ret < 0 ? -1 : 1;
}

static int cmp_rl_time(const void *a, const void *b, void *arg)
{
	const struct kindstat *k = arg;
	double x = k[*(const size_t *)a].rl_time, y = k[*(const size_t *)b].rl_time;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Rates as people read them: whole numbers from 10^4 up, else 4 digits. */
static const char *gfmt(char buf[32], double v)
{
	snprintf(buf, 32, v >= 1e4 && v < 1e15 ? "%.0f" : "%.4g", v);
	return buf;
}

static double pf_ridge(const double roof[3])
{
	return roof[0] / roof[1];
}

struct rl_axes {
	double x0, x1, y0, y1;	/* decades: log10 of the ranges */
};

static double rl_x(const struct rl_axes *a, double v)
{
	return RL_X0 + (log10(v) - a->x0) / (a->x1 - a->x0) * RL_W;
}

static double rl_y(const struct rl_axes *a, double v)
{
	return RL_Y0 + RL_H - (log10(v) - a->y0) / (a->y1 - a->y0) * RL_H;
}

/* Log-log axes with a grid line and label per decade. */
static void rl_grid(FILE *f, const struct rl_axes *a)
{
	for (int d = (int)a->x0; d <= (int)a->x1; d++) {
		double x = rl_x(a, pow(10, d));

		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d</text>\n",
			x, RL_Y0, x, RL_Y0 + RL_H, x, RL_Y0 + RL_H + 14, d);
	}
	for (int d = (int)a->y0; d <= (int)a->y1; d++) {
		double y = rl_y(a, pow(10, d));

		fprintf(f,
			"<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/><text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n",
			RL_X0, y, RL_X0 + RL_W, y, RL_X0 - 4, y + 4, d);
	}
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity [FLOP/byte]</text>\n"
		"<text transform=\"translate(14,%d) rotate(-90)\" text-anchor=\"middle\">achieved [GFLOP/s]</text>\n",
		RL_X0 + RL_W / 2, RL_Y0 + RL_H + 32, RL_Y0 + RL_H / 2);
}

/*
 * The roofline as a log-log chart: one roof (bandwidth slope, then the
 * compute ceiling) per distinct peak pair, one point per op kind at its
 * summed intensity and achieved rate, its area proportional to its time.
 * Then the same figures as a table, one row per kind.
 */
static int put_roofline_section(FILE *f, struct html *h, struct kprof_err *err)
{
	double roof[RL_ROOFS][3], tot = 0;
	struct rl_axes a = { INFINITY, -INFINITY, INFINITY, -INFINITY };
	size_t *ord, n = 0, nroof = 0, nplot;
	int r = roofline_sums(h, err);

	if (r <= 0)
		return r;
	ord = malloc((h->nkinds ? h->nkinds : 1) * sizeof(*ord));
	if (!ord)
		return -1;
	for (size_t i = 0; i < h->nkinds; i++)
		if (h->kinds[i].rl_time > 0) {
			ord[n++] = i;
			tot += h->kinds[i].rl_time;
		}
	qsort_r(ord, n, sizeof(*ord), cmp_rl_time, h->kinds);
	nplot = n < RL_KINDS ? n : RL_KINDS;
	for (size_t j = 0; j < nplot; j++) {
		struct kindstat *k = &h->kinds[ord[j]];
		double pf = k->rl_pf / k->rl_time, pb = k->rl_pb / k->rl_time;
		size_t q;

		if (k->rl_flops > 0 && k->rl_bytes > 0) {
			double ai = k->rl_flops / k->rl_bytes, g = k->rl_flops / k->rl_time;

			a.x0 = fmin(a.x0, ai);
			a.x1 = fmax(a.x1, ai);
			a.y0 = fmin(a.y0, g);
			a.y1 = fmax(a.y1, g);
		}
		if (pf <= 0 || pb <= 0)
			continue;
		/* roofs equal to 3 significant digits are one roof */
		for (q = 0; q < nroof; q++)
			if (fabs(roof[q][0] - pf) <= 1e-3 * pf &&
			    fabs(roof[q][1] - pb) <= 1e-3 * pb)
				break;
		if (q == nroof && nroof < RL_ROOFS) {
			roof[nroof][0] = pf;
			roof[nroof][1] = pb;
			roof[nroof++][2] = k->rl_cores / k->rl_time;
			a.x0 = fmin(a.x0, pf / pb);
			a.x1 = fmax(a.x1, pf / pb);
			a.y1 = fmax(a.y1, pf);
		}
	}
	fputs("<h3>Roofline</h3>\n", f);
	if (isfinite(a.x0) && isfinite(a.y0)) {
		a.x0 = floor(log10(a.x0) - 0.3);
		a.x1 = ceil(log10(a.x1) + 0.3);
		a.y0 = floor(log10(a.y0) - 0.3);
		a.y1 = ceil(log10(a.y1) + 0.3);
		fprintf(f,
			"<svg id=\"roofline-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"roofline chart\">\n",
			RL_X0 + RL_W + 20, RL_Y0 + RL_H + 44);
		rl_grid(f, &a);
		for (size_t q = 0; q < nroof; q++) {
			double xr = pf_ridge(roof[q]), xe = pow(10, a.x1);
			/* the slope starts where it enters the plot */
			double xl = fmax(pow(10, a.x0), pow(10, a.y0) / roof[q][1]);
			char b0[32], b1[32];

			fprintf(f,
				"<polyline class=\"roof\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"><title>roof: %s GFLOP/s, %s GB/s, ridge %.4g FLOP/B (%.0f cores)</title></polyline>\n",
				rl_x(&a, xl), rl_y(&a, roof[q][1] * xl), rl_x(&a, xr),
				rl_y(&a, roof[q][0]), rl_x(&a, xe), rl_y(&a, roof[q][0]),
				gfmt(b0, roof[q][0]), gfmt(b1, roof[q][1]), xr, roof[q][2]);
			fprintf(f,
				"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s GFLOP/s (%.0f cores)</text>\n",
				rl_x(&a, xe) - 2, rl_y(&a, roof[q][0]) - 3, gfmt(b0, roof[q][0]),
				roof[q][2]);
		}
		for (size_t j = nplot; j-- > 0;) {	/* largest drawn last, on top */
			struct kindstat *k = &h->kinds[ord[j]];
			char col[32];
			double ai, g, rad;

			if (k->rl_flops <= 0 || k->rl_bytes <= 0)
				continue;
			ai = k->rl_flops / k->rl_bytes;
			g = k->rl_flops / k->rl_time;
			rad = 3 + 17 * sqrt(k->rl_time / tot);
			kind_color(col, (int)ord[j], h->nkinds);
			fprintf(f, "<g class=\"rl-kind\" data-op=\"");
			kprof_html_escape(f, k->op);
			fprintf(f,
				"\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"><title>",
				rl_x(&a, ai), rl_y(&a, g), rad, col);
			kprof_html_escape(f, kind_name(h, (int)ord[j]));
			fprintf(f,
				": %.4g FLOP/B, %.4g GFLOP/s, %.1f%% of the time</title></circle><text x=\"%.1f\" y=\"%.1f\">",
				ai, g, 100 * k->rl_time / tot, rl_x(&a, ai) + rad + 2,
				rl_y(&a, g) + 4);
			kprof_html_escape(f, kind_name(h, (int)ord[j]));
			fputs("</text></g>\n", f);
		}
		fputs("</svg>\n", f);
	}
	fputs("<p class=\"note\">One point per op kind, its area proportional to the kind's ", f);
	fputs("device time; a roof per distinct peak (ops on fewer cores or at another clock ", f);
	fputs("have lower roofs). ", f);
	if (n > nplot)
		fputs("Only the kinds with the most time are drawn (the table has all).", f);
	fputs(" Per-op figures: roofline.csv.</p>\n", f);
	fputs("<table id=\"roofline\"><thead><tr><th>OP CODE</th><th>TIME [ns]</th>", f);
	fputs("<th>SHARE</th><th>INTENSITY [FLOP/B]</th><th>ACHIEVED [GFLOP/s]</th>", f);
	fputs("<th>ATTAINABLE [GFLOP/s]</th><th>EFFICIENCY %</th></tr></thead><tbody>\n", f);
	for (size_t j = 0; j < n; j++) {
		struct kindstat *k = &h->kinds[ord[j]];
		double pf = k->rl_pf / k->rl_time, pb = k->rl_pb / k->rl_time;

		fputs("<tr><td>", f);
		kprof_html_escape(f, kind_name(h, (int)ord[j]));
		fprintf(f, "</td><td>%.0f</td><td>%.1f%%</td>", k->rl_time, 100 * k->rl_time / tot);
		if (k->rl_flops > 0 && k->rl_bytes > 0) {
			double ai = k->rl_flops / k->rl_bytes, g = k->rl_flops / k->rl_time;
			double att = fmin(pf, pb * ai);

			char b0[32], b1[32];

			fprintf(f, "<td>%.4g</td><td>%s</td><td>%s</td><td>%.1f</td></tr>\n",
				ai, gfmt(b0, g), gfmt(b1, att), att > 0 ? 100 * g / att : 0);
		} else {
			fputs("<td>-</td><td>-</td><td>-</td><td>-</td></tr>\n", f);
		}
	}
	fputs("</tbody></table>\n", f);
	free(ord);
	return 1;
}

/* A CSV file as an escaped HTML table (bubbles.csv, if there). */
static int csv_table(FILE *f, struct html *h, const char *name, const char *id,
		     struct kprof_err *err)
{
	struct kprof_csv_table t;
	char path[PATH_MAX];
	struct obuf o;
	int fd = kprof_outdir_reopen(h->od, name, err);

	snprintf(path, sizeof(path), "%s/%s", h->dir, name);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0 || kprof_csv_load_fd(fd, path, &t, err))
		return -1;
	fprintf(f, "<table id=\"%s\"><tr>", id);
	/* its cells put together in memory (a stdio call per piece was most of its cost) */
	o.f = f;
	o.n = 0;
	for (int c = 0; c < t.ncols; c++) {
		ob_str(&o, "<th>");
		ob_escape(&o, t.header[c]);
		ob_str(&o, "</th>");
	}
	ob_str(&o, "</tr>\n");
	for (size_t r = 0; r < t.nrows; r++) {
		ob_str(&o, "<tr>");
		for (int c = 0; c < t.ncols; c++) {
			ob_str(&o, "<td>");
			ob_escape(&o, t.rows[r][c]);
			ob_str(&o, "</td>");
		}
		ob_str(&o, "</tr>\n");
	}
	ob_str(&o, "</table>\n");
	ob_flush(&o);
	kprof_csv_free(&t);
	return 1;
}

static const char html_css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}\n"
	"h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.5em;border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"th,td{border:1px solid #ddd;padding:2px 8px;text-align:right}\n"
	"th{background:#f3f3f3;cursor:pointer;white-space:normal;vertical-align:bottom}\n"
	"td:nth-child(1),td:nth-child(2){text-align:left}\n"
	"table{max-width:100%;font-size:13px}td{white-space:nowrap}\n"
	"#roofline td:nth-child(2){text-align:right}\n"
	"table.md th{cursor:auto}table.md td,table.md th{text-align:left}\n"
	"table.md .r{text-align:right}table.md .c{text-align:center}\n"
	"#verdict h3{font-size:1.1em}#verdict h4{font-size:1em}\n"
	"svg .roof{fill:none;stroke:#b22;stroke-width:1.5;stroke-dasharray:6 3}\n"
	"svg .rl-kind circle{fill-opacity:.75;stroke:#333}\n"
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

static void write_page(FILE *f, struct html *h, struct kprof_err *err)
{
	int have_report, have_bub;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n", f);
	fputs("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ", f);
	fputs("style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>kprof report</title>\n<style>\n", f);
	fputs(html_css, f);
	fputs("</style></head><body>\n<h1>kprof report</h1>\n", f);
	fprintf(f,
		"<p>%zu ops in ops.csv, %zu op kinds. <span id=\"js-status\" class=\"note\"></span></p>\n",
		h->nops, h->nkinds);

	fputs("<h2>Timeline</h2>\n", f);
	fputs("<p class=\"note\">Device lanes: ", f);
	kprof_html_escape(f, h->lane_source);
	fprintf(f,
		". Host lanes: %s. Slices closer than a pixel are drawn merged (grey when of several kinds); hover for details.</p>\n",
		h->have_host ? "launch (blue) and sync (dark grey) ioctls from host_events.csv" :
		h->host_file ? "none (no host_events.csv rows: BPF did not run)" :
		"none (no host_events.csv: the input has no host data, as a tt-metal device log)");
	if (h->host_left_out)
		fprintf(f,
			"<p class=\"note\">%zu host events of further threads are not drawn (%d host lanes at most).</p>\n",
			h->host_left_out, KPROF_HTML_HOST_LANES);
	svg_timeline(f, h);
	fputs("<p class=\"legend\">", f);
	for (size_t i = 0; i < h->nkinds; i++) {
		char col[32];

		kind_color(col, (int)i, h->nkinds);
		fprintf(f, "<span><i style=\"background:%s\"></i>", col);
		kprof_html_escape(f, kind_name(h, (int)i));
		fputs("</span>", f);
	}
	fputs("</p>\n", f);

	fputs("<h2>Top ops by device time</h2>\n"
	      "<noscript><p>The op-kind table needs JavaScript; ops.csv has the same data.</p>", f);
	fputs("</noscript>\n<table id=\"top-ops\"></table>\n", f);
	kinds_json(f, h);
	slowest_ops(f, h);

	fputs("<h2>Bottlenecks</h2>\n", f);
	have_report = put_verdict_section(f, h);
	/* a broken CSV of these is left out, the rest of the page stands */
	if (put_roofline_section(f, h, err) < 0)
		fputs("<p class=\"note\">roofline.csv could not be read.</p>\n", f);
	have_bub = csv_table(f, h, "bubbles.csv", "bubbles", err);
	if (have_bub < 0) {
		fputs("<p class=\"note\">bubbles.csv could not be read.</p>\n", f);
		have_bub = 1;
	}
	if (!have_report) {
		fputs("<p class=\"note\">No report.md (roofline verdict) in this directory: ", f);
		fputs("the bottleneck figures here are what ops.csv and counters.csv give: ", f);
		fputs("share of device time per op kind, and ", f);
		if (h->have_counters) {
			fputs("FLOP/byte and GFLOP/s from the flops, bytes_read and ", f);
			fputs("bytes_written counters (columns of the table above)", f);
		} else {
			fputs("no counters (no counters.csv)", f);
		}
		fputs(".</p>\n", f);
	}
	if (!have_bub) {
		fputs("<p class=\"note\">No bubbles.csv (per-core bubble analysis) in this ", f);
		fputs("directory.</p>\n", f);
	}
	fputs("<h2>summary.txt</h2>\n", f);
	if (!pre_file(f, h, "summary.txt", "summary"))
		fputs("<p class=\"note\">No summary.txt.</p>\n", f);
	fputs("<script>\n", f);
	fputs(html_js, f);
	fputs("</script>\n</body></html>\n", f);
}

int kprof_html_write(struct kprof_outdir *od, struct kprof_err *err)
{
	struct kprof_outfile of;
	struct html h;
	int ret;

	memset(&h, 0, sizeof(h));
	h.od = od;
	h.dir = kprof_outdir_path(od);
	h.tmin = INFINITY;
	h.tmax = -INFINITY;
	/* opened first: without it, read_ops() measures the ops lane */
	h.trace = trace_open(&h);
	ret = read_ops(&h, err);
	if (!ret)
		ret = medians_begin(&h, err);
	/* with trace.json, before its slices are held (else: in the timeline's pass) */
	if (!ret && h.trace)
		ret = medians_end(&h, err);
	if (!ret)
		ret = read_counters(&h, err);
	if (!ret)
		ret = timeline(&h, err);
	if (!ret && h.med)
		ret = medians_end(&h, err);
	if (!ret)
		ret = kprof_outfile_create(od, "report.html", &of, err);
	if (ret)
		goto out;
	write_page(of.f, &h, err);
	ret = kprof_outfile_commit(&of, 0, err);
out:
	for (size_t i = 0; i < h.nkinds; i++)
		free(h.kinds[i].op);
	free(h.kinds);
	kprof_hidx_free(&h.kh);
	kprof_median_free(h.med);
	if (h.trace)
		fclose(h.trace);
	for (size_t i = 0; i < h.nslow; i++) {
		free(h.slow[i].seq);
		free(h.slow[i].op);
		free(h.slow[i].cores);
	}
	free(h.tr);
	free(h.ds);
	kprof_hidx_free(&h.trh);
	free(h.cells);
	hold_drop(&h.ops_sl);
	hold_drop(&h.host_sl);
	hold_drop(&h.kt);
	return ret;
}
