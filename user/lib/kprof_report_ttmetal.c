// SPDX-License-Identifier: GPL-2.0
/*
 * Reports from a tt-metal profile_log_device.csv (kprof_ttmetal.h parses
 * it) -> ops.csv, device_log.csv, trace.json, summary.txt, params.json
 * and report.html. One pass over the file: every row to device_log.csv,
 * every zone marker to the aggregation engine, which holds every op to
 * the end (the log is not in time order); there the cores are sorted (a
 * core's id is its place) and the ops written.
 */
#include "kprof_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json.h>

#include "kprof_agg.h"
#include "kprof_hash.h"
#include "kprof_report_out.h"
#include "kprof_text.h"
#include "kprof_timesync.h"
#include "kprof_trace.h"
#include "kprof_ttmetal.h"
#include "kprof_writers.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* RISC types in tt-metal's ops_perf column order; others are appended. */
static const char *const tt_riscs[] = { "BRISC", "NCRISC", "TRISC_0", "TRISC_1",
					"TRISC_2", "ERISC" };

struct tt_core {
	uint32_t slot, x, y;
};

/*
 * A zone name and type seen in the log, with what its rows need: its
 * zone kind and the end of its device_log.csv rows, made once (rows of a
 * few such pairs make up a log).
 */
struct tt_zt {
	char *text;		/* the zone name, NUL, the type, NUL */
	size_t zlen, tlen, h;
	int kind;
	struct kprof_devlog_part tail;	/* n -1: its rows go the general way */
};

/* pairs kept, and their longest texts: a bound on the memory they take */
#define TT_ZT_MAX	4096
#define TT_ZT_ZONE	64
#define TT_ZT_TYPE	32

struct tt_ctx {
	char riscs[KPROF_MAX_RISCS][16];
	unsigned int nriscs;
	/*
	 * first-seen order: a marker's core is its index here until the end,
	 * when the cores are sorted and renamed by their place (rank)
	 */
	struct tt_core *cores;
	size_t ncores, cap;
	struct kprof_hidx ch;		/* core -> index + 1 */
	uint32_t *rank;
	struct kprof_tsfit fit;
	struct kprof_agg *agg;
	struct kprof_out *out;
	struct kprof_outdir *od;
	const struct kprof_report_opts *opts;
	const char *csv;		/* in messages */
	int opened;
	struct kprof_err *err;
	uint64_t rows, markers, other_rows;
	char freq[32];			/* CHIP_FREQ as written in the outputs */
	/*
	 * the last row's RISC type (its index and text) and core, and the
	 * start of their device_log.csv rows: a log's rows come a core and
	 * RISC at a time
	 */
	int last_r;
	size_t last_rlen;		/* 0: none yet */
	char last_risc[16];
	struct tt_core last_core;
	long last_c;			/* -1: none yet */
	int head_r;
	long head_c;			/* the head's; -1: none made */
	struct kprof_devlog_part head;
	struct tt_zt *zt;
	size_t nzt, ztcap;
	struct kprof_hidx zh;		/* zone and type -> index + 1 */
};

static int tt_risc_index(struct tt_ctx *t, const char *name)
{
	for (unsigned int i = 0; i < t->nriscs; i++)
		if (!strcmp(t->riscs[i], name))
			return (int)i;
	return -1;
}

static int cmp_core(const void *a, const void *b)
{
	const struct tt_core *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->y != y->y)
		return x->y < y->y ? -1 : 1;
	return (x->x > y->x) - (x->x < y->x);
}

static size_t core_hash(const struct tt_core *c)
{
	return kprof_hash_u64(((uint64_t)c->slot << 42) ^ ((uint64_t)c->y << 21) ^ c->x);
}

static size_t core_hash_at(const void *arr, size_t i)
{
	return core_hash(&((const struct tt_core *)arr)[i]);
}

struct core_key {
	const struct tt_core *cores, *key;
};

static int core_eq(const void *key, size_t i)
{
	const struct core_key *k = key;

	return !cmp_core(&k->cores[i], k->key);
}

/* key's index in cores (added if new), or -1 with t->err set */
static long tt_core_index(struct tt_ctx *t, const struct tt_core *key)
{
	struct core_key k = { t->cores, key };
	size_t h = core_hash(key), pos;

	if (t->ch.cap) {
		pos = kprof_hidx_slot(&t->ch, h, core_eq, &k);
		if (t->ch.slot[pos])
			return (long)t->ch.slot[pos] - 1;
	}
	if (kprof_hidx_reserve(&t->ch, t->ncores, core_hash_at, t->cores)) {
		kprof_err_set(t->err, ENOMEM, "out of memory");
		return -1;
	}
	if (kprof_report_grow(&t->cores, &t->cap, t->ncores, sizeof(*t->cores), 64, t->err))
		return -1;
	k.cores = t->cores;
	pos = kprof_hidx_slot(&t->ch, h, core_eq, &k);
	t->cores[t->ncores++] = *key;
	t->ch.slot[pos] = t->ncores;
	return (long)t->ncores - 1;
}

static int zone_kind(const char *zone, const char *type)
{
	size_t n = strlen(zone);
	int start, fw, kernel;

	if (!strcasecmp(type, "ZONE_START") || !strcasecmp(type, "begin"))
		start = 1;
	else if (!strcasecmp(type, "ZONE_END") || !strcasecmp(type, "end"))
		start = 0;
	else
		return 0;	/* TS_DATA, TS_EVENT, ZONE_TOTAL: not timing zones */
	fw = n >= 3 && !strcmp(zone + n - 3, "-FW");
	kernel = n >= 7 && !strcmp(zone + n - 7, "-KERNEL");
	if (fw)
		return start ? KPROF_MARK_FW_START : KPROF_MARK_FW_END;
	if (kernel)
		return start ? KPROF_MARK_KERNEL_START : KPROF_MARK_KERNEL_END;
	return start ? KPROF_MARK_ZONE_START : KPROF_MARK_ZONE_END;
}

/*
 * n bytes at a and at b the same: short ones (RISC, zone and type names)
 * by two overlapping word compares each, no call
 */
static inline int same_text(const char *a, const char *b, size_t n)
{
	uint64_t a0, a1, b0, b1;
	uint32_t c0, c1, d0, d1;

	if (n >= 8 && n <= 16) {
		memcpy(&a0, a, 8);
		memcpy(&a1, a + n - 8, 8);
		memcpy(&b0, b, 8);
		memcpy(&b1, b + n - 8, 8);
		return a0 == b0 && a1 == b1;
	}
	if (n >= 4 && n < 8) {
		memcpy(&c0, a, 4);
		memcpy(&c1, a + n - 4, 4);
		memcpy(&d0, b, 4);
		memcpy(&d1, b + n - 4, 4);
		return c0 == d0 && c1 == d1;
	}
	return !memcmp(a, b, n);
}

/* n bytes at s folded into a word for a hash, 8 at a time (all of them) */
static inline uint64_t text_word(const char *s, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t h = n, w = 0;

	if (n < 8) {
		memcpy(&w, s, n);
		return (h ^ w) * k;
	}
	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * k;
	}
	memcpy(&w, s + n - 8, 8);
	return (h ^ w) * k;
}

static size_t zt_hash_at(const void *arr, size_t i)
{
	return ((const struct tt_zt *)arr)[i].h;
}

/*
 * The row's pair's slot in t->zh (h its hash), or the empty slot it
 * would take: kprof_hidx_slot's probe, written out for the call per row
 */
static size_t zt_slot(const struct tt_ctx *t, const struct kprof_tt_row *row, size_t h)
{
	size_t i = h & (t->zh.cap - 1);

	for (; t->zh.slot[i]; i = (i + 1) & (t->zh.cap - 1)) {
		const struct tt_zt *z = &t->zt[t->zh.slot[i] - 1];

		if (z->h == h && z->zlen == row->zone_len && z->tlen == row->type_len &&
		    same_text(z->text, row->zone_name, z->zlen) &&
		    same_text(z->text + z->zlen + 1, row->type, z->tlen))
			break;
	}
	return i;
}

/*
 * The row's zone name and type as seen before, or added; NULL when not
 * kept (longer texts, too many pairs) or out of memory: such a row is
 * read the general way.
 */
static const struct tt_zt *tt_zone_type(struct tt_ctx *t, const struct kprof_tt_row *row)
{
	size_t h, pos;
	struct kprof_devlog_text zone, type;
	struct tt_zt *z;

	if (row->zone_len > TT_ZT_ZONE || row->type_len > TT_ZT_TYPE)
		return NULL;
	h = kprof_hash_u64(text_word(row->zone_name, row->zone_len) ^
			   text_word(row->type, row->type_len) >> 1);
	if (t->zh.cap) {
		pos = zt_slot(t, row, h);
		if (t->zh.slot[pos])
			return &t->zt[t->zh.slot[pos] - 1];
	}
	if (t->nzt == TT_ZT_MAX || kprof_hidx_reserve(&t->zh, t->nzt, zt_hash_at, t->zt))
		return NULL;
	if (t->nzt == t->ztcap) {
		size_t cap = t->ztcap ? 2 * t->ztcap : 16;
		struct tt_zt *n = realloc(t->zt, cap * sizeof(*n));

		if (!n)
			return NULL;
		t->zt = n;
		t->ztcap = cap;
	}
	z = &t->zt[t->nzt];
	z->text = malloc(row->zone_len + row->type_len + 2);
	if (!z->text)
		return NULL;
	memcpy(z->text, row->zone_name, row->zone_len + 1);
	memcpy(z->text + row->zone_len + 1, row->type, row->type_len + 1);
	z->zlen = row->zone_len;
	z->tlen = row->type_len;
	z->h = h;
	z->kind = zone_kind(row->zone_name, row->type);
	kprof_devlog_text_init(&zone, z->text);
	kprof_devlog_text_init(&type, z->text + z->zlen + 1);
	kprof_devlog_tail(&z->tail, &zone, &type);
	pos = zt_slot(t, row, h);
	t->zh.slot[pos] = ++t->nzt;
	return z;
}

static int tt_open(struct tt_ctx *t, const struct kprof_tt_info *info);

/*
 * Every row: its RISC type and core registered (tt-metal's RISC order
 * first), the row to device_log.csv, a zone marker to the engine.
 */
static int tt_row(void *ctx, const struct kprof_tt_info *info,
		  const struct kprof_tt_row *row)
{
	struct tt_ctx *t = ctx;
	struct tt_core key = { row->pcie_slot, row->core_x, row->core_y };
	const struct tt_zt *zt;
	struct kprof_agg_marker m;
	int kind, r, ret;
	long c;

	if (!t->opened) {
		ret = tt_open(t, info);
		if (ret)
			return ret;
	}
	if (row->risc_len == t->last_rlen && same_text(row->risc, t->last_risc, row->risc_len)) {
		r = t->last_r;
	} else {
		r = tt_risc_index(t, row->risc);
		if (r < 0) {
			/* kept whole, or it would never match again */
			if (row->risc_len >= sizeof(t->riscs[0]))
				return kprof_err_set(t->err, EBADMSG,
						     "%s:%lu: RISC processor type '%.40s' is longer than %zu characters",
						     t->csv, row->line, row->risc,
						     sizeof(t->riscs[0]) - 1);
			if (t->nriscs == KPROF_MAX_RISCS)
				return kprof_err_set(t->err, EBADMSG,
						     "%s:%lu: more than %d RISC processor types",
						     t->csv, row->line, KPROF_MAX_RISCS);
			snprintf(t->riscs[t->nriscs], sizeof(t->riscs[0]), "%s", row->risc);
			r = (int)t->nriscs++;
		}
		/* (a known one is shorter than riscs[0]) */
		memcpy(t->last_risc, row->risc, row->risc_len);
		t->last_rlen = row->risc_len;
		t->last_r = r;
	}
	if (t->last_c >= 0 && !cmp_core(&key, &t->last_core)) {
		c = t->last_c;
	} else {
		c = tt_core_index(t, &key);
		if (c < 0)
			return -(t->err ? t->err->code : ENOMEM);
		t->last_core = key;
		t->last_c = c;
	}
	t->rows++;
	zt = tt_zone_type(t, row);
	kind = zt ? zt->kind : zone_kind(row->zone_name, row->type);
	if (t->out->devlog) {
		if (c != t->head_c || r != t->head_r) {
			struct kprof_devlog_text rt;

			kprof_devlog_text_init(&rt, row->risc);
			kprof_devlog_head(&t->head, row->pcie_slot, row->core_x, row->core_y, &rt);
			t->head_c = c;
			t->head_r = r;
		}
		if (zt && zt->tail.n >= 0 && t->head.n >= 0) {
			const uint64_t v[4] = { row->timer_id, row->time, row->data,
						row->run_host_id };

			kprof_out_devlog_row_pd(t->out, &t->head, v, row->dig, row->ndig,
						&zt->tail);
		} else {
			kprof_out_devlog_row(t->out, row->pcie_slot, row->core_x, row->core_y,
					     row->risc, row->timer_id, row->time, row->data,
					     row->run_host_id, row->zone_name, row->type);
		}
	}
	if (!kind) {
		t->other_rows++;
		return 0;
	}
	memset(&m, 0, sizeof(m));
	m.op_seq = row->run_host_id;
	m.timestamp = row->time;
	m.core = (uint32_t)c;
	m.risc = (uint8_t)r;
	m.kind = (uint8_t)kind;
	m.zone_id = (uint32_t)row->timer_id;
	if (kind >= KPROF_MARK_ZONE_START && t->out->trace)
		kprof_trace_zone_name(t->out->trace, m.zone_id, row->zone_name);
	t->markers++;
	return kprof_agg_marker(t->agg, &m, t->err);
}

/*
 * ops.csv, device_log.csv, (unless left out) trace.json and the engine,
 * at the first row (the log's first line is read by then) or the end.
 * ops.csv's RISC columns and trace.json's cores are given at the end
 * (tt_finish): ops.csv's header is written with its first op, and no op
 * is written before the end.
 */
static int tt_open(struct tt_ctx *t, const struct kprof_tt_info *info)
{
	const struct kprof_report_opts *opts = t->opts;
	struct kprof_agg_config cfg;
	struct kprof_trace_cfg tc;
	struct kprof_out *out = t->out;
	char label[96];
	int ret;

	t->opened = 1;
	out->op_filter = opts ? opts->op_filter : NULL;
	ret = kprof_out_open(out, t->od, KPROF_OUT_OPS |
			     (opts && (opts->flags & KPROF_REPORT_NO_DEVICE_LOG) ? 0 :
			      KPROF_OUT_DEVLOG), opts ? opts->top_n : 0, t->err);
	if (ret)
		return ret;
	snprintf(t->freq, sizeof(t->freq), "%.6g", info->chip_freq_mhz);
	kprof_out_devlog_header(out, info->arch[0] ? info->arch : "unknown", t->freq,
				info->max_compute_cores);
	/* without: an older report's trace.json is removed (kprof_outdir_prune) */
	if (!(opts && (opts->flags & KPROF_REPORT_NO_TRACE))) {
		tc = (struct kprof_trace_cfg){
			.device_label = label, .group = opts ? opts->trace_group : 0,
		};
		snprintf(label, sizeof(label), "tt-metal %s (device time)", info->arch);
		out->trace = kprof_trace_open(t->od, "trace.json", &tc, t->err);
		if (!out->trace)
			return -(t->err ? t->err->code : EIO);
	}
	kprof_tsfit_linear(&t->fit, 1000.0 / info->chip_freq_mhz, 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.fit = &t->fit;
	cfg.num_riscs = KPROF_MAX_RISCS;	/* tt_row checks them */
	cfg.num_cores = UINT32_MAX;		/* indexes into t->cores */
	cfg.zone_spans = out->trace && !(opts && opts->trace_group > 1);
	/*
	 * tt-metal writes the log core by core, not in time order: no op is
	 * complete before the end of the file, so none retires earlier
	 */
	cfg.slack_ns = KPROF_AGG_NEVER;
	cfg.emit = kprof_out_op;
	cfg.ctx = out;
	t->agg = kprof_agg_new(&cfg, t->err);
	return t->agg ? 0 : -(t->err ? t->err->code : ENOMEM);
}

static int cmp_core_at(const void *a, const void *b, void *arg)
{
	const struct tt_core *cores = arg;

	return cmp_core(&cores[*(const uint32_t *)a], &cores[*(const uint32_t *)b]);
}

/*
 * The end of the log: the cores sorted (a core's id is its place), the
 * RISC types known, every op written.
 */
static int tt_finish(struct tt_ctx *t, const struct kprof_tt_info *info)
{
	struct kprof_out *out = t->out;
	uint32_t *order;

	order = malloc((t->ncores ? t->ncores : 1) * sizeof(*order));
	t->rank = malloc((t->ncores ? t->ncores : 1) * sizeof(*t->rank));
	if (!order || !t->rank) {
		free(order);
		return kprof_err_set(t->err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < t->ncores; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, t->ncores, sizeof(*order), cmp_core_at, t->cores);
	for (size_t i = 0; i < t->ncores; i++)
		t->rank[order[i]] = (uint32_t)i;
	free(order);
	out->nriscs = t->nriscs;
	memcpy(out->risc_names, t->riscs, sizeof(out->risc_names));
	/*
	 * busy % of the device's compute cores (the log header's Max Compute
	 * Cores), or of every core in the log if more
	 */
	if (out->trace) {
		struct kprof_trace_cfg tc = {
			.num_cores = info->max_compute_cores > t->ncores ?
				     info->max_compute_cores : (uint32_t)t->ncores,
			.risc_names = (const char (*)[16])out->risc_names,
			.nriscs = out->nriscs,
		};

		kprof_trace_set_device(out->trace, &tc);
	}
	kprof_agg_core_rank(t->agg, t->rank);
	return kprof_agg_finish(t->agg, t->err);
}

/* One pass over the file; then the ops, in order. */
static int tt_aggregate(const char *csv, struct tt_ctx *t, struct kprof_tt_info *info)
{
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(tt_riscs); i++)
		snprintf(t->riscs[t->nriscs++], sizeof(t->riscs[0]), "%s", tt_riscs[i]);
	ret = kprof_tt_parse_file(csv, tt_row, t, info, t->err);
	if (!ret && !t->opened)
		ret = tt_open(t, info);	/* a log without rows */
	return ret ? ret : tt_finish(t, info);
}

static int tt_summary(struct kprof_outdir *od, struct tt_ctx *t, struct kprof_out *out,
		      const char *csv, const struct kprof_tt_info *info,
		      struct kprof_err *err)
{
	struct kprof_outfile sum = { 0 };
	int ret = kprof_outfile_create(od, "summary.txt", &sum, err);
	FILE *f = sum.f;

	if (ret)
		return ret;
	fputs("kprof report from a tt-metal device log\n\nsource: ", f);
	kprof_text_put(f, csv);
	fputs("\narch: ", f);
	kprof_text_put(f, info->arch);
	fprintf(f, ", CHIP_FREQ %s MHz, %d-column layout\n", t->freq, info->ncols);
	fprintf(f, "rows: %" PRIu64 " (%" PRIu64 " zone markers, %" PRIu64
		" other rows such as TS_DATA)\ncores: %zu\n\n",
		t->rows, t->markers, t->other_rows, t->ncores);
	kprof_report_summary_ops(f, out);
	fprintf(f, "\ntimes: cycles / CHIP_FREQ; no host timestamps in a tt-metal device log\n");
	ret = kprof_outfile_commit(&sum, 0, err);
	kprof_outfile_discard(&sum);
	return ret;
}

static int tt_params(struct kprof_outdir *od, struct tt_ctx *t, struct kprof_out *out,
		     const char *csv, const struct kprof_tt_info *info,
		     const struct kprof_report_opts *opts, struct kprof_err *err)
{
	json_object *root = json_object_new_object(), *src = json_object_new_object();
	json_object *k = json_object_new_object();
	int ret;

	json_object_object_add(src, "kind",
			       json_object_new_string("tt-metal profile_log_device.csv"));
	json_object_object_add(src, "file", json_object_new_string(csv));
	json_object_object_add(src, "arch", json_object_new_string(info->arch));
	json_object_object_add(src, "chip_freq_mhz", json_object_new_double(info->chip_freq_mhz));
	json_object_object_add(src, "max_compute_cores", info->max_compute_cores ?
			       json_object_new_int64(info->max_compute_cores) : NULL);
	json_object_object_add(src, "columns", json_object_new_int(info->ncols));
	json_object_object_add(src, "rows", json_object_new_int64((int64_t)t->rows));
	json_object_object_add(src, "other_rows", json_object_new_int64((int64_t)t->other_rows));
	json_object_object_add(src, "cores", json_object_new_int64((int64_t)t->ncores));
	json_object_object_add(k, "version", opts && opts->version ?
			       json_object_new_string(opts->version) : NULL);
	json_object_object_add(k, "source", json_object_new_string("tt-metal device log"));
	json_object_object_add(root, "kprof", k);
	json_object_object_add(root, "config",
			       kprof_report_config_json(opts ? opts->config_json : NULL));
	json_object_object_add(root, "ttmetal", src);
	json_object_object_add(root, "stats",
			       kprof_report_stats_json(kprof_agg_stats(t->agg), out));
	ret = kprof_report_write_params(od, root, err);
	json_object_put(root);
	return ret;
}

int kprof_report_ttmetal(const char *csv, struct kprof_outdir *od,
			 const struct kprof_report_opts *opts,
			 struct kprof_report_result *res, struct kprof_err *err)
{
	struct tt_ctx *t = calloc(1, sizeof(*t));
	struct kprof_out out = { 0 };
	struct kprof_tt_info info;
	int ret;

	if (!t)
		return kprof_err_set(err, ENOMEM, "out of memory");
	t->err = err;
	t->last_c = -1;
	t->head_c = -1;
	t->out = &out;
	t->od = od;
	t->opts = opts;
	t->csv = csv;
	ret = tt_aggregate(csv, t, &info);
	if (!ret)
		ret = kprof_report_close_streams(&out, err);
	if (!ret)
		ret = tt_summary(od, t, &out, csv, &info, err);
	if (!ret)
		ret = tt_params(od, t, &out, csv, &info, opts, err);
	/*
	 * last: report.html is made from the files written above; then
	 * every output this report did not write goes (counters.csv, ...)
	 */
	if (!ret)
		ret = kprof_report_finish(od, err);
	if (!ret && res) {
		memset(res, 0, sizeof(*res));
		res->ops = out.nops;
		res->markers = t->markers;
		res->ops_filtered = out.ops_filtered;
		res->sync_err_bound_ns = NAN;
	}
	kprof_report_out_free(&out);
	kprof_agg_free(t->agg);
	free(t->cores);
	free(t->rank);
	kprof_hidx_free(&t->ch);
	for (size_t i = 0; i < t->nzt; i++)
		free(t->zt[i].text);
	free(t->zt);
	kprof_hidx_free(&t->zh);
	free(t);
	return ret;
}
