// SPDX-License-Identifier: GPL-2.0
/*
 * trace.json writer (Chrome trace event format).
 */
#include "kprof_trace.h"
#include "kprof_fmt.h"
#include "kprof_outdir.h"
#include "kprof_xsort.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID_DEVICE	KPROF_TRACE_PID_DEVICE
#define PID_HOST	KPROF_TRACE_PID_HOST
/* their digits, for the lines written without printf */
#define PID_DEVICE_STR	"1"
#define PID_HOST_STR	"2"
_Static_assert(PID_DEVICE == 1, "PID_DEVICE_STR names PID_DEVICE");
_Static_assert(PID_HOST == 2, "PID_HOST_STR names PID_HOST");
#define MAX_NAMED_TIDS	4096	/* host threads given a name track */
/* Zone tracks: tid KPROF_TRACE_ZONE_TID + core * 10 + RISC, sorted right
 * below their core's track (sort index core * 10 + 1 + RISC; cores:
 * core * 10).
 */
#define MAX_ZONE_NAMES	4096

struct kprof_trace {
	FILE *f;			/* of.f */
	struct kprof_outfile of;
	char *path;
	int first;			/* no event written yet */
	uint32_t grid_x, group, num_cores, nriscs;
	void (*core_label)(const void *ctx, uint32_t core, char *buf, size_t len);
	const void *core_label_ctx;
	char risc[KPROF_MAX_RISCS][16];
	uint8_t *named;			/* device tracks named so far */
	uint32_t named_cap;
	uint8_t *znamed;		/* zone tracks (core * 8 + RISC) named */
	uint32_t znamed_cap;
	struct zone_name *znames;	/* by id, ascending */
	uint32_t nznames;
	uint32_t tids[MAX_NAMED_TIDS];	/* host threads named so far */
	uint32_t ntids;
	/* busy counter: slice starts and ends, sorted on disk, swept at close */
	struct kprof_xsort *bev;
	size_t nbev;
	struct kprof_err bev_err;
	uint8_t *seen;			/* device cores with an op slice */
	uint32_t seen_cap, nseen, ntracks;
	int busy_nomem;
};

struct zone_name {
	uint32_t id;
	char name[KPROF_NAME_LEN];
};

/* A slice of `w` cores on a track starts (w > 0) or ends (w < 0) at ns. */
struct busy_ev {
	int64_t ns;
	uint32_t track;
	int32_t w;
};

/*
 * Per-op and per-call events are assembled at p by the char *put_* helpers
 * below (each returns the end) and written in one piece: fprintf's format
 * parsing and a stdio call per field were most of trace.json's cost.
 */

static const char hex[] = "0123456789abcdef";

/* s (a string literal) at p; inlined, strlen and memcpy fold to moves */
static inline char *put_lit(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/*
 * The n bytes of s in a JSON string, without its quotes: at most 6 n
 * bytes ("\"", "\\" and "\u00XX" for control characters).
 */
static char *put_esc(char *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20) {
			p = put_lit(p, "\\u00");
			*p++ = hex[c >> 4];
			*p++ = hex[c & 0xf];
		} else {
			*p++ = (char)c;
		}
	}
	return p;
}

/* at most STR_CHUNK bytes of a string are escaped at a time */
#define STR_CHUNK	64

/* s as a JSON string, of any length (names of tracks, rare) */
static void put_str(FILE *f, const char *s)
{
	char b[1 + 6 * STR_CHUNK + 1], *p = b;
	size_t n = strlen(s), k;

	*p++ = '"';
	for (;;) {
		k = n < STR_CHUNK ? n : STR_CHUNK;
		p = put_esc(p, s, k);
		s += k;
		n -= k;
		if (!n)
			break;
		fwrite_unlocked(b, 1, (size_t)(p - b), f);
		p = b;
	}
	*p++ = '"';
	fwrite_unlocked(b, 1, (size_t)(p - b), f);
}

/* the separator before an event (at most 2 bytes): none before the first */
static char *put_sep(struct kprof_trace *t, char *p)
{
	if (!t->first)
		*p++ = ',';
	*p++ = '\n';
	t->first = 0;
	return p;
}

static void sep(struct kprof_trace *t)
{
	char b[2];

	fwrite_unlocked(b, 1, (size_t)(put_sep(t, b) - b), t->f);
}

/*
 * llround(ns), without its call where ns is in range: truncated, then
 * the exact fraction rounded half away from zero as llround does
 */
static int64_t ns_round(double ns)
{
	if (ns > -0x1p63 && ns < 0x1p63) {
		int64_t i = (int64_t)ns;
		double f = ns - (double)i;

		return i + (f >= 0.5) - (f <= -0.5);
	}
	return llround(ns);
}

/* the most put_ts writes: "-", 16 digits, ".nnn" */
#define TS_MAX		21

/* microseconds, as the format wants, with ns resolution: "us.nnn" */
static char *put_ts(char *p, double ns)
{
	int64_t v = ns_round(ns);
	uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;	/* INT64_MIN too */
	char *e;

	if (v < 0)
		*p++ = '-';
	if (a < 1000) {
		p = put_lit(p, "0.");
		p[0] = (char)('0' + a / 100);
		p[1] = (char)('0' + a / 10 % 10);
		p[2] = (char)('0' + a % 10);
		return p + 3;
	}
	/* the ns digits, the last three moved a place on, after the point */
	e = kprof_fmt_u64(p, a);
	memmove(e - 2, e - 3, 3);
	e[-3] = '.';
	return e + 1;
}

static void meta(struct kprof_trace *t, int pid, uint32_t tid, const char *what,
		 const char *name)
{
	sep(t);
	fprintf(t->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"%s\",\"args\":{\"name\":",
		pid, tid, what);
	put_str(t->f, name);
	fputs("}}", t->f);
}

/* events in time order; at one instant by track, ends (w < 0) first */
static int cmp_busy(const void *a, const void *b)
{
	const struct busy_ev *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return (x->w > y->w) - (x->w < y->w);
}

void kprof_trace_set_device(struct kprof_trace *t, const struct kprof_trace_cfg *cfg)
{
	t->num_cores = cfg->num_cores;
	t->nriscs = cfg->nriscs < KPROF_MAX_RISCS ? cfg->nriscs : KPROF_MAX_RISCS;
	for (uint32_t r = 0; r < KPROF_MAX_RISCS; r++) {
		if (cfg->risc_names && r < t->nriscs && cfg->risc_names[r][0])
			snprintf(t->risc[r], sizeof(t->risc[r]), "%.15s", cfg->risc_names[r]);
		else
			snprintf(t->risc[r], sizeof(t->risc[r]), "RISC%u", r);
	}
}

struct kprof_trace *kprof_trace_open(struct kprof_outdir *od, const char *name,
				     const struct kprof_trace_cfg *cfg, struct kprof_err *err)
{
	struct kprof_trace *t = calloc(1, sizeof(*t));
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", kprof_outdir_path(od), name);
	if (t)
		t->path = strdup(path);
	if (!t || !t->path) {
		free(t);
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	if (kprof_outfile_create(od, name, &t->of, err)) {
		free(t->path);
		free(t);
		return NULL;
	}
	t->f = t->of.f;
	/* the busy counter's sort runs go beside trace.json, unlinked */
	t->bev = kprof_xsort_new(sizeof(struct busy_ev), cmp_busy,
				 cfg->busy_run ? cfg->busy_run : KPROF_TRACE_BUSY_RUN, od, err);
	if (!t->bev) {
		kprof_outfile_discard(&t->of);
		free(t->path);
		free(t);
		return NULL;
	}
	t->first = 1;
	t->grid_x = cfg->grid_x;
	t->core_label = cfg->core_label;
	t->core_label_ctx = cfg->core_label_ctx;
	t->group = cfg->group > 1 ? cfg->group : 1;
	kprof_trace_set_device(t, cfg);
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"zone_slices\":", t->f);
	/* zones are per RISC and core: grouping cores would multiply them
	 * back, so a grouped trace says it has none
	 */
	if (t->group > 1)
		fprintf(t->f, "\"omitted: cores grouped by %u\"", t->group);
	else
		fputs("\"per core and RISC\"", t->f);
	fputs("},\"traceEvents\":[", t->f);
	meta(t, PID_DEVICE, 0, "process_name", cfg->device_label);
	meta(t, PID_HOST, 0, "process_name", "host");
	return t;
}

/* 1 the first time idx is seen in the bitmap *bits, else 0 (also when out
 * of memory: the track stays unnamed, the JSON valid)
 */
static int first_time(uint8_t **bits, uint32_t *cap, uint32_t idx)
{
	if (idx >= *cap) {
		uint32_t n = *cap ? *cap : 64;
		uint8_t *p;

		while (n <= idx)
			n *= 2;
		p = realloc(*bits, n);
		if (!p)
			return 0;
		memset(p + *cap, 0, n - *cap);
		*bits = p;
		*cap = n;
	}
	if ((*bits)[idx])
		return 0;
	(*bits)[idx] = 1;
	return 1;
}

static void core_name(const struct kprof_trace *t, uint32_t core, char *name, size_t len)
{
	if (t->core_label)
		t->core_label(t->core_label_ctx, core, name, len);
	else if (t->grid_x)
		snprintf(name, len, "core %u (%u,%u)", core, core % t->grid_x, core / t->grid_x);
	else
		snprintf(name, len, "core %u", core);
}

static void track_sort_index(struct kprof_trace *t, uint32_t tid, uint32_t index)
{
	sep(t);
	fprintf(t->f,
		"{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}}",
		PID_DEVICE, tid, index);
}

static void name_track(struct kprof_trace *t, uint32_t track)
{
	char name[64];

	if (!first_time(&t->named, &t->named_cap, track))
		return;
	if (t->group > 1)
		snprintf(name, sizeof(name), "cores %u-%u", track * t->group,
			 track * t->group + t->group - 1);
	else
		core_name(t, track, name, sizeof(name));
	meta(t, PID_DEVICE, track, "thread_name", name);
	track_sort_index(t, track, track * 10);
}

static uint32_t zone_tid(uint32_t core, uint8_t risc)
{
	return KPROF_TRACE_ZONE_TID + core * 10 + risc;
}

static void name_zone_track(struct kprof_trace *t, uint32_t core, uint8_t risc)
{
	char name[64];
	size_t n;

	if (!first_time(&t->znamed, &t->znamed_cap, core * KPROF_MAX_RISCS + risc))
		return;
	core_name(t, core, name, sizeof(name));
	n = strlen(name);
	snprintf(name + n, sizeof(name) - n, " %s", t->risc[risc]);
	meta(t, PID_DEVICE, zone_tid(core, risc), "thread_name", name);
	track_sort_index(t, zone_tid(core, risc), core * 10 + 1 + risc);
}

static const char *zone_name(const struct kprof_trace *t, uint32_t id)
{
	uint32_t lo = 0, hi = t->nznames;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->znames[mid].id == id)
			return t->znames[mid].name;
		if (t->znames[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void kprof_trace_zone_name(struct kprof_trace *t, uint32_t zone_id, const char *name)
{
	uint32_t i;

	if (t->nznames >= MAX_ZONE_NAMES || zone_name(t, zone_id))
		return;		/* past the cap: "ZONE-<id>" */
	if (!t->znames) {
		t->znames = calloc(MAX_ZONE_NAMES, sizeof(*t->znames));
		if (!t->znames)
			return;
	}
	for (i = t->nznames; i > 0 && t->znames[i - 1].id > zone_id; i--)
		t->znames[i] = t->znames[i - 1];
	t->znames[i].id = zone_id;
	snprintf(t->znames[i].name, sizeof(t->znames[i].name), "%s", name);
	t->nznames++;
}

/* an op's or a zone's name as a JSON string, quotes included */
#define NAME_MAX_JSON	(2 + 6 * KPROF_OP_CODE_LEN)
/* the most a device slice's line holds besides its name */
#define SLICE_MAX	(64 + 10 + 8 + 2 * (6 + TS_MAX) + 16 + 20 + 2)

/*
 * One X event on the device, its name (nname bytes) a JSON string; both
 * ends rounded to ns first, so that ts + dur is the end the busy counter
 * uses, to the ns.
 */
static void dev_slice(struct kprof_trace *t, const char *cat, uint32_t tid,
		      const char *name, size_t nname, double s, double e, uint64_t seq)
{
	char b[SLICE_MAX + NAME_MAX_JSON], *p = put_sep(t, b);

	p = put_lit(p, "{\"ph\":\"X\",\"cat\":\"");
	p = put_lit(p, cat);
	p = put_lit(p, "\",\"pid\":" PID_DEVICE_STR ",\"tid\":");
	p = kprof_fmt_u64(p, tid);
	p = put_lit(p, ",\"name\":");
	memcpy(p, name, nname);
	/* round(), not llround(): ends past int64 (fuzzed spools) stay defined */
	p = put_lit(p + nname, ",\"ts\":");
	p = put_ts(p, round(s));
	p = put_lit(p, ",\"dur\":");
	p = put_ts(p, round(e) - round(s));
	p = put_lit(p, ",\"args\":{\"seq\":");
	p = kprof_fmt_u64(p, seq);
	p = put_lit(p, "}}");
	fwrite_unlocked(b, 1, (size_t)(p - b), t->f);
}

static void zone_slices(struct kprof_trace *t, const struct kprof_op_row *row)
{
	for (uint32_t i = 0; i < row->nzone_spans; i++) {
		const struct kprof_zone_time *z = &row->zone_spans[i];
		const char *n = zone_name(t, z->zone_id);
		/* a zone's name is shorter than KPROF_NAME_LEN, "ZONE-<id>" too */
		char name[2 + 6 * KPROF_NAME_LEN], *p = name;
		uint8_t risc = z->risc < KPROF_MAX_RISCS ? z->risc : 0;

		*p++ = '"';
		if (n) {
			p = put_esc(p, n, strlen(n));
		} else {
			p = put_lit(p, "ZONE-");
			p = kprof_fmt_u64(p, z->zone_id);
		}
		*p++ = '"';
		name_zone_track(t, z->core, risc);
		dev_slice(t, "zone", zone_tid(z->core, risc), name, (size_t)(p - name),
			  z->start_ns, z->end_ns, row->seq);
	}
}

/* p grown to hold need elements (*cap updated), or NULL (p still valid) */
static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 256;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	q = realloc(p, n * size);
	if (q)
		*cap = n;
	return q;
}

/* Remembers the slice for the busy counter, with the ns put_ts prints. */
static void busy_slice(struct kprof_trace *t, uint32_t track, double s, double e,
		       uint32_t ncores)
{
	struct busy_ev b0 = { ns_round(s), track, (int32_t)ncores };
	struct busy_ev b1 = { ns_round(e), track, -(int32_t)ncores };

	if (t->busy_nomem)
		return;
	if (kprof_xsort_add(t->bev, &b0, &t->bev_err) ||
	    kprof_xsort_add(t->bev, &b1, &t->bev_err)) {
		t->busy_nomem = 1;
		return;
	}
	t->nbev += 2;
	if (track >= t->ntracks)
		t->ntracks = track + 1;
}

static void busy_core(struct kprof_trace *t, uint32_t core)
{
	if (core >= t->seen_cap) {
		size_t cap = t->seen_cap, old = cap;
		uint8_t *p = grow(t->seen, &cap, (size_t)core + 1, 1);

		if (!p) {
			t->busy_nomem = 1;
			kprof_err_set(&t->bev_err, ENOMEM, "out of memory");
			return;
		}
		t->seen = p;
		memset(t->seen + old, 0, cap - old);
		t->seen_cap = (uint32_t)cap;
	}
	if (!t->seen[core]) {
		t->seen[core] = 1;
		t->nseen++;
	}
}

static void op_slice(struct kprof_trace *t, const struct kprof_op_row *row, const char *name,
		     size_t nname, uint32_t track, double s, double e, uint32_t ncores)
{
	name_track(t, track);
	busy_slice(t, track, s, e, ncores);
	dev_slice(t, "op", track, name, nname, s, e, row->seq);
}

void kprof_trace_op(struct kprof_trace *t, const struct kprof_op_row *row)
{
	double gs = 0, ge = 0, first = INFINITY;
	uint32_t gtrack = UINT32_MAX, first_track = 0, gn = 0;
	char name[NAME_MAX_JSON], *p = name;
	size_t nname;

	/* once for the op's slices on all its tracks */
	*p++ = '"';
	if (row->op_code[0]) {
		p = put_esc(p, row->op_code, strnlen(row->op_code, sizeof(row->op_code)));
	} else {
		p = put_lit(p, "op ");
		p = kprof_fmt_u64(p, row->seq);
	}
	*p++ = '"';
	nname = (size_t)(p - name);

	for (uint32_t i = 0; i < row->ncores; i++) {
		const struct kprof_core_time *c = &row->cores[i];
		uint32_t track = c->core / t->group;

		busy_core(t, c->core);
		if (c->fw_start_ns < first) {
			first = c->fw_start_ns;
			first_track = track;
		}
		/* cores come in ascending order: a group is a run of them */
		if (track != gtrack) {
			if (gtrack != UINT32_MAX)
				op_slice(t, row, name, nname, gtrack, gs, ge, gn);
			gtrack = track;
			gs = c->fw_start_ns;
			ge = c->fw_end_ns;
			gn = 1;
			continue;
		}
		gs = fmin(gs, c->fw_start_ns);
		ge = fmax(ge, c->fw_end_ns);
		gn++;
	}
	if (gtrack != UINT32_MAX)
		op_slice(t, row, name, nname, gtrack, gs, ge, gn);
	if (t->group == 1 && row->nzone_spans)
		zone_slices(t, row);
	/* flow arrow: launch (host) -> the op's first core (device) */
	if (row->ncores && row->host_start_ns != KPROF_AGG_NONE) {
		char b[128];

		p = put_sep(t, b);
		p = put_lit(p, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\",");
		p = put_lit(p, "\"name\":\"launch\",\"id\":");
		p = kprof_fmt_u64(p, row->seq);
		p = put_lit(p, ",\"pid\":" PID_DEVICE_STR ",\"tid\":");
		p = kprof_fmt_u64(p, first_track);
		p = put_lit(p, ",\"ts\":");
		p = put_ts(p, first);
		*p++ = '}';
		fwrite_unlocked(b, 1, (size_t)(p - b), t->f);
	}
}

void kprof_trace_host(struct kprof_trace *t, const struct kprof_host_event *ev)
{
	const char *what = ev->role == KPROF_ROLE_LAUNCH ? "launch" :
			   ev->role == KPROF_ROLE_SYNC ? "sync" : "ioctl";
	/* the slice's line and the flow start's, each under 256 bytes */
	char b[512], *p;
	uint32_t i;

	for (i = 0; i < t->ntids && t->tids[i] != ev->tid; i++)
		;
	if (i == t->ntids && t->ntids < MAX_NAMED_TIDS) {
		char name[48], comm[sizeof(ev->comm) + 1];

		memcpy(comm, ev->comm, sizeof(ev->comm));
		comm[sizeof(ev->comm)] = '\0';
		t->tids[t->ntids++] = ev->tid;
		snprintf(name, sizeof(name), "%s (%u/%u)", comm, ev->pid, ev->tid);
		meta(t, PID_HOST, ev->tid, "thread_name", name);
	}
	/* a slice (and a flow start) per launch and sync call, in one write */
	p = put_sep(t, b);
	p = put_lit(p, "{\"ph\":\"X\",\"cat\":\"ioctl\",\"pid\":" PID_HOST_STR ",\"tid\":");
	p = kprof_fmt_u64(p, ev->tid);
	p = put_lit(p, ",\"name\":\"");
	p = put_lit(p, what);
	p = put_lit(p, "\",\"ts\":");
	p = put_ts(p, (double)ev->enter_ns);
	p = put_lit(p, ",\"dur\":");
	p = put_ts(p, (double)(ev->exit_ns - ev->enter_ns));
	p = put_lit(p, ",\"args\":{\"seq\":");
	p = kprof_fmt_u64(p, ev->seq);
	p = put_lit(p, ",\"ret\":");
	if (ev->ret < 0)
		*p++ = '-';
	p = kprof_fmt_u64(p, ev->ret < 0 ? 0 - (uint64_t)ev->ret : (uint64_t)ev->ret);
	/* "0x%08x" */
	p = put_lit(p, ",\"cmd\":\"0x");
	for (int k = 0; k < 8; k++)
		*p++ = hex[(ev->cmd >> (4 * (7 - k))) & 0xf];
	p = put_lit(p, "\"}}");
	if (ev->role == KPROF_ROLE_LAUNCH && ev->ret >= 0) {
		p = put_sep(t, p);
		p = put_lit(p, "{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":");
		p = kprof_fmt_u64(p, ev->seq);
		p = put_lit(p, ",\"pid\":" PID_HOST_STR ",\"tid\":");
		p = kprof_fmt_u64(p, ev->tid);
		p = put_lit(p, ",\"ts\":");
		p = put_ts(p, (double)ev->enter_ns);
		*p++ = '}';
	}
	fwrite_unlocked(b, 1, (size_t)(p - b), t->f);
}

void kprof_trace_clock(struct kprof_trace *t, uint64_t host_ns, uint32_t mhz)
{
	char b[128], *p = put_sep(t, b);

	p = put_lit(p, "{\"ph\":\"C\",\"pid\":" PID_DEVICE_STR
		    ",\"tid\":0,\"name\":\"clock MHz\",\"ts\":");
	p = put_ts(p, (double)host_ns);
	p = put_lit(p, ",\"args\":{\"MHz\":");
	p = kprof_fmt_u64(p, mhz);
	p = put_lit(p, "}}");
	fwrite_unlocked(b, 1, (size_t)(p - b), t->f);
}

static unsigned int busy_of(int64_t run, uint32_t group)
{
	if (run <= 0)
		return 0;
	return run < (int64_t)group ? (unsigned int)run : group;
}

/*
 * The "busy" counter: at each slice start or end, the share of the
 * device's cores (num_cores; the cores that ran ops if more, or if not
 * given) which are inside an op slice. A track counts
 * the cores of its running slices, at most its group size (one core per
 * track without grouping), so ops overlapping on a core count it once.
 */
/* the busy counter's values, formatted once each (%.6g was most of its cost) */
#define BUSY_MEMO	4096

struct busy_memo {
	uint8_t len;		/* 0: not formatted yet */
	char s[31];
};

static int busy_counter(struct kprof_trace *t)
{
	int64_t *run;
	uint64_t busy = 0;
	double last = -1, den = t->num_cores > t->nseen ? t->num_cores : t->nseen;
	const void *p;
	/* a sample's line: "%.6g" takes at most 13 bytes (31 memoized) */
	char b[128], *q;
	struct busy_memo *memo;
	int r;

	if (t->busy_nomem)
		return -t->bev_err.code;
	if (!t->nbev || !t->nseen)
		return 0;
	run = calloc(t->ntracks, sizeof(*run));
	memo = calloc(BUSY_MEMO, sizeof(*memo));
	if (!run || !memo) {
		free(run);
		free(memo);
		return kprof_err_set(&t->bev_err, ENOMEM, "out of memory");
	}
	r = kprof_xsort_next(t->bev, &p, &t->bev_err);
	while (r == 1) {
		int64_t ns = ((const struct busy_ev *)p)->ns;
		double v;

		/* every change at one instant, then one sample */
		for (; r == 1 && ((const struct busy_ev *)p)->ns == ns;
		     r = kprof_xsort_next(t->bev, &p, &t->bev_err)) {
			const struct busy_ev *b = p;
			unsigned int before = busy_of(run[b->track], t->group);

			run[b->track] += b->w;
			busy = busy - before + busy_of(run[b->track], t->group);
		}
		if (r < 0)
			break;
		v = 100.0 * (double)busy / den;
		if (v == last)
			continue;
		last = v;
		q = put_sep(t, b);
		q = put_lit(q, "{\"ph\":\"C\",\"pid\":" PID_DEVICE_STR
			    ",\"tid\":0,\"name\":\"busy\",\"ts\":");
		q = put_ts(q, (double)ns);
		q = put_lit(q, ",\"args\":{\"%\":");
		if (busy < BUSY_MEMO) {
			struct busy_memo *m = &memo[busy];

			/* the same v for the same busy: den does not change */
			if (!m->len)
				m->len = (uint8_t)snprintf(m->s, sizeof(m->s), "%.6g", v);
			memcpy(q, m->s, m->len);
			q += m->len;
		} else {
			q += snprintf(q, 32, "%.6g", v);
		}
		q = put_lit(q, "}}");
		fwrite_unlocked(b, 1, (size_t)(q - b), t->f);
	}
	free(run);
	free(memo);
	return r < 0 ? r : 0;
}

static void trace_free(struct kprof_trace *t)
{
	kprof_outfile_discard(&t->of);
	kprof_xsort_free(t->bev);
	free(t->seen);
	free(t->named);
	free(t->znamed);
	free(t->znames);
	free(t->path);
	free(t);
}

int kprof_trace_close(struct kprof_trace *t, struct kprof_err *err)
{
	int ret, b;

	if (!t)
		return 0;
	b = busy_counter(t);
	fputs("\n]}\n", t->f);
	ret = kprof_outfile_commit(&t->of, 0, err);
	if (!ret && b)
		ret = kprof_err_set(err, -b,
				    "%s: busy counter left out (the rest of the file is complete): %s; it sorts 32 bytes per op slice on disk beside trace.json: free space there, or make fewer slices with --trace-group N",
				    t->path, t->bev_err.msg);
	trace_free(t);
	return ret;
}

void kprof_trace_free(struct kprof_trace *t)
{
	if (t)
		trace_free(t);
}
