// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation engine: per-op rows from markers, op/counter/LOST records
 * and host ioctl events, with memory bounded by ops in flight
 * (retirement rule: kprof_agg.h, docs/formats.md).
 */
#include "kprof_agg.h"
#include "kprof_hash.h"

#include <errno.h>
#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUCKETS_MIN	1024
#define CHECK_EVERY	4096	/* inputs between retirement checks */
#define NO_TS		UINT64_MAX
/* zone markers held per op for zone slices (24 bytes each): bounds memory
 * under a marker storm into one op; more are counted, not paired
 */
#define MAX_OP_ZONE_MARKERS	(256U * 1024)

struct core_span {
	uint64_t ks, ke;	/* first KERNEL_START, last KERNEL_END */
	uint64_t fs, fe;	/* first FW_START, last FW_END */
	uint32_t core;
	uint8_t riscs;		/* bitmap of RISCs with markers */
};

/* an op's cores found by hash past this many (linear search below) */
#define CORE_SCAN	8
/* levels of the in-flight list's skip index (1/4 of the ops per level up) */
#define SKIP_LEVELS	12

/* A ZONE_START / ZONE_END marker, held until the op is written. */
struct zmark {
	uint64_t ts;
	uint32_t core, zone_id, idx;	/* idx: arrival order */
	uint8_t risc, kind;
};

struct op {
	uint64_t seq;
	struct op *hnext;		/* hash chain */
	struct op *prev, *next;		/* in-flight list, by seq */
	/* skip index over that list: up[l] is the next op of level > l
	 * (l >= 1), so that an op out of seq order is placed in O(log n)
	 */
	struct op *up[SKIP_LEVELS];
	int level;
	char name[KPROF_OP_CODE_LEN];
	uint32_t clock_mhz;
	/* the op's FW and kernel span: its cores' (op_span(), when written) */
	uint64_t fw_s, fw_e, k_s, k_e;
	uint64_t rks[KPROF_MAX_RISCS], rke[KPROF_MAX_RISCS];
	/* the cores with markers, in first-marker order: memory follows
	 * the cores the op used, not the highest core id (foreign input
	 * can give every op a different core)
	 */
	struct core_span *cores;
	uint32_t ncores, ncap;
	int unsorted;			/* cores[] not in core order */
	/* core -> index of cores[0 .. nhashed), made when a lookup past
	 * CORE_SCAN cores needs it (an op's first marker on a core seldom
	 * does: op_core_slow())
	 */
	struct kprof_hidx ch;
	uint32_t nhashed;
	struct zmark *zm;		/* zone markers, in arrival order */
	uint32_t nzm, zmcap;
	uint64_t markers, zones;
	double last;			/* watermark at last input for it */
	int have_launch;
	uint64_t h_enter, h_exit;
	uint64_t cmask;
	uint32_t ccores[KPROF_MAX_COUNTERS];
	uint64_t cmin[KPROF_MAX_COUNTERS], cmax[KPROF_MAX_COUNTERS],
		 csum[KPROF_MAX_COUNTERS];
};

struct sync_ev {
	uint64_t seq, enter, exit;
};

/* A LOST record's count starts (delta) or stops (-delta) counting at seq. */
struct lost_pt {
	uint64_t seq, delta;	/* delta modulo 2^64: -count stops */
};

struct kprof_agg {
	struct kprof_agg_config cfg;
	struct kprof_agg_stats st;
	struct op **bucket;
	size_t nbuckets, inflight;
	struct op *head, *tail;		/* in-flight list, ascending seq */
	struct op *uhead[SKIP_LEVELS], *utail[SKIP_LEVELS];	/* skip levels >= 1 */
	uint64_t rnd;			/* xorshift state for skip levels */
	struct op *last_op;		/* lookup cache */
	struct op *free_ops;		/* recycled, with their cores[] */
	int emitted_any;
	uint64_t emitted_upto;		/* every seq <= this is written */
	uint64_t max_seq;		/* highest op seq seen (for 32-bit seqs) */
	int have_seq;
	/* highest op seq with a marker; 0 before any, which a later op
	 * (seq > 0) cannot tell from a marker of op 0: no flag needed
	 */
	uint64_t max_marker_seq;
	double wm;			/* watermark: latest host ns seen */
	double prev_fw_end_ns;		/* previous emitted op's FW end */
	uint64_t since_check;
	double next_check_wm;		/* watermark at the last check + slack / 2 */
	/* per (core, risc): highest op seq with a marker, + 1 (0 = none) */
	uint64_t *cr_seq;
	/* per core: where its span was in the op that last had a marker
	 * there (a hint: checked against the op's entry)
	 */
	uint32_t *chint;
	/* per core: the highest op seq + 1 whose list has the core (0 = none) */
	uint64_t *core_seq;
	uint32_t cr_cores;
	struct kprof_core_time *ctimes;	/* scratch for kprof_op_row.cores */
	uint32_t ctimes_cap;
	struct kprof_zone_time *zspans;	/* scratch for kprof_op_row.zone_spans */
	uint32_t zspans_cap;
	uint32_t *zstack;		/* scratch: open zones of one RISC */
	const uint32_t *core_rank;	/* kprof_agg_core_rank */
	uint32_t zstack_cap;
	struct sync_ev *syncs;		/* FIFO of sync ioctls */
	size_t sync_head, sync_n, sync_cap;
	/* LOST records as a min-heap of range ends by seq: ops are written
	 * in seq order, so the markers lost of an op are the sum of the
	 * deltas up to its seq; a record costs O(log n), not a step per op
	 * in its range
	 */
	struct lost_pt *lost;
	size_t nlost, lost_cap;
	uint64_t lost_run;
	/* kprof_agg_marker_run(): next_check_wm as cycles of run_seg (run_xw
	 * cycles from its dev0 are at or below run_wm), made again when
	 * either changes
	 */
	struct kprof_ts_seg run_seg;
	double run_wm;
	uint64_t run_xw;
};

static size_t hslot(const struct kprof_agg *a, uint64_t seq)
{
	return (size_t)((seq * 0x9E3779B97F4A7C15ULL) >> 20) & (a->nbuckets - 1);
}

struct kprof_agg *kprof_agg_new(const struct kprof_agg_config *cfg,
				struct kprof_err *err)
{
	struct kprof_agg *a;

	if (!cfg->fit || !cfg->emit || cfg->num_riscs > KPROF_MAX_RISCS) {
		kprof_err_set(err, EINVAL, "aggregation: bad configuration");
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a)
		a->bucket = calloc(NBUCKETS_MIN, sizeof(*a->bucket));
	if (!a || !a->bucket) {
		free(a);
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	a->cfg = *cfg;
	if (!a->cfg.num_riscs)
		a->cfg.num_riscs = KPROF_MAX_RISCS;
	if (!a->cfg.slack_ns)
		a->cfg.slack_ns = KPROF_AGG_SLACK_NS_DEFAULT;
	if (!a->cfg.timeout_ns)
		a->cfg.timeout_ns = KPROF_AGG_TIMEOUT_NS_DEFAULT;
	if (a->cfg.timeout_ns < a->cfg.slack_ns)
		a->cfg.timeout_ns = a->cfg.slack_ns;
	a->nbuckets = NBUCKETS_MIN;
	a->rnd = 0x9E3779B97F4A7C15ULL;
	a->wm = -INFINITY;
	a->next_check_wm = -INFINITY;
	a->run_wm = NAN;	/* run_xw not made yet */
	a->prev_fw_end_ns = NAN;
	return a;
}

static void op_free_list(struct op *o)
{
	while (o) {
		struct op *n = o->next;

		free(o->cores);
		kprof_hidx_free(&o->ch);
		free(o->zm);
		free(o);
		o = n;
	}
}

void kprof_agg_free(struct kprof_agg *a)
{
	if (!a)
		return;
	op_free_list(a->head);
	op_free_list(a->free_ops);
	free(a->bucket);
	free(a->cr_seq);
	free(a->chint);
	free(a->core_seq);
	free(a->ctimes);
	free(a->zspans);
	free(a->zstack);
	free(a->syncs);
	free(a->lost);
	free(a);
}

const struct kprof_agg_stats *kprof_agg_stats(const struct kprof_agg *a)
{
	return &a->st;
}

static int rehash(struct kprof_agg *a, struct kprof_err *err)
{
	size_t nb = a->nbuckets * 2;
	struct op **b = calloc(nb, sizeof(*b));

	if (!b)
		return kprof_err_set(err, ENOMEM, "out of memory (%zu ops in flight)",
				     a->inflight);
	free(a->bucket);
	a->bucket = b;
	a->nbuckets = nb;
	for (struct op *o = a->head; o; o = o->next) {
		size_t h = hslot(a, o->seq);

		o->hnext = b[h];
		b[h] = o;
	}
	return 0;
}

static struct op *find(struct kprof_agg *a, uint64_t seq)
{
	struct op *o;

	if (a->last_op && a->last_op->seq == seq)
		return a->last_op;
	for (o = a->bucket[hslot(a, seq)]; o; o = o->hnext)
		if (o->seq == seq)
			return a->last_op = o;
	return NULL;
}

/*
 * A 64-bit op seq far beyond every seq so far is a corrupt record, not an
 * op: taking it would also move the reference that 32-bit marker seqs
 * are widened against, and every later marker would land in the wrong op.
 */
static int implausible(struct kprof_agg *a, uint64_t seq)
{
	if (a->have_seq && seq > a->max_seq && seq - a->max_seq > 0x80000000ULL) {
		a->st.bad_seqs++;
		return 1;
	}
	return 0;
}

static int is_retired(const struct kprof_agg *a, uint64_t seq)
{
	return a->emitted_any && seq <= a->emitted_upto;
}

/*
 * The last in-flight op with a seq below seq (NULL: none), and in upd[l]
 * the same on each skip level l >= 1.
 */
static struct op *find_pred(struct kprof_agg *a, uint64_t seq, struct op **upd)
{
	struct op *x = NULL, *n;

	for (int l = SKIP_LEVELS - 1; l >= 1; l--) {
		for (n = x ? x->up[l] : a->uhead[l]; n && n->seq < seq; n = n->up[l])
			x = n;
		upd[l] = x;
	}
	for (n = x ? x->next : a->head; n && n->seq < seq; n = n->next)
		x = n;
	return x;
}

static void link_op(struct kprof_agg *a, struct op *o)
{
	struct op *upd[SKIP_LEVELS], *p;

	o->level = 1;
	while (o->level < SKIP_LEVELS) {
		a->rnd ^= a->rnd << 13;
		a->rnd ^= a->rnd >> 7;
		a->rnd ^= a->rnd << 17;
		if (a->rnd & 3)
			break;
		o->level++;
	}
	/* new ops are nearly always the highest: no search */
	if (!a->tail || a->tail->seq < o->seq) {
		p = a->tail;
		memcpy(upd, a->utail, sizeof(upd));
	} else {
		p = find_pred(a, o->seq, upd);
	}
	o->prev = p;
	o->next = p ? p->next : a->head;
	if (o->next)
		o->next->prev = o;
	else
		a->tail = o;
	if (p)
		p->next = o;
	else
		a->head = o;
	for (int l = 1; l < o->level; l++) {
		struct op **pp = upd[l] ? &upd[l]->up[l] : &a->uhead[l];

		o->up[l] = *pp;
		*pp = o;
		if (!o->up[l])
			a->utail[l] = o;
	}
}

static void unlink_skip(struct kprof_agg *a, struct op *o)
{
	struct op *upd[SKIP_LEVELS];

	if (o->level > 1)
		find_pred(a, o->seq, upd);	/* o is nearly always the head: O(levels) */
	for (int l = 1; l < o->level; l++) {
		struct op **pp = upd[l] ? &upd[l]->up[l] : &a->uhead[l];

		*pp = o->up[l];
		if (a->utail[l] == o)
			a->utail[l] = upd[l];
	}
}

/* get_op() past its inline check of the last op used. */
static __attribute__((noinline)) struct op *get_op_slow(struct kprof_agg *a, uint64_t seq,
						       int *late, struct kprof_err *err)
{
	struct op *o = find(a, seq);
	size_t h;

	*late = 0;
	if (o)
		return o;
	if (is_retired(a, seq)) {
		*late = 1;
		return NULL;
	}
	if (a->inflight >= a->nbuckets && rehash(a, err))
		return NULL;
	if (a->free_ops) {
		struct core_span *keep = a->free_ops->cores;
		struct zmark *zm = a->free_ops->zm;
		uint32_t ncap = a->free_ops->ncap, zmcap = a->free_ops->zmcap;

		o = a->free_ops;
		a->free_ops = o->next;
		memset(o, 0, sizeof(*o));
		o->cores = keep;
		o->ncap = ncap;
		o->zm = zm;
		o->zmcap = zmcap;
	} else {
		o = calloc(1, sizeof(*o));
		if (!o) {
			kprof_err_set(err, ENOMEM, "out of memory");
			return NULL;
		}
	}
	o->seq = seq;
	o->fw_s = NO_TS;
	o->k_s = NO_TS;
	for (int r = 0; r < KPROF_MAX_RISCS; r++)
		o->rks[r] = NO_TS;
	o->last = a->wm;
	h = hslot(a, seq);
	o->hnext = a->bucket[h];
	a->bucket[h] = o;
	link_op(a, o);
	a->inflight++;
	if (a->inflight > a->st.max_in_flight)
		a->st.max_in_flight = a->inflight;
	if (seq > a->max_seq)
		a->max_seq = seq;
	a->have_seq = 1;
	return a->last_op = o;
}

/*
 * Op for seq, created if new; NULL with *late set if already written.
 * Inline: once per marker, and nearly always the op of the one before.
 */
static inline struct op *get_op(struct kprof_agg *a, uint64_t seq, int *late,
				struct kprof_err *err)
{
	if (a->last_op && a->last_op->seq == seq) {
		*late = 0;
		return a->last_op;
	}
	return get_op_slow(a, seq, late, err);
}

static void unlink_op(struct kprof_agg *a, struct op *o)
{
	struct op **pp = &a->bucket[hslot(a, o->seq)];

	while (*pp != o)
		pp = &(*pp)->hnext;
	*pp = o->hnext;
	unlink_skip(a, o);
	if (o->prev)
		o->prev->next = o->next;
	else
		a->head = o->next;
	if (o->next)
		o->next->prev = o->prev;
	else
		a->tail = o->prev;
	if (a->last_op == o)
		a->last_op = NULL;
	a->inflight--;
	/* a recycled op builds its core table anew past CORE_SCAN cores */
	kprof_hidx_free(&o->ch);
	o->next = a->free_ops;
	a->free_ops = o;
}

static double span(const struct kprof_agg *a, uint64_t s, uint64_t e)
{
	if (s == NO_TS || e < s)
		return NAN;
	return kprof_tsfit_span_ns(a->cfg.fit, s, e - s);
}

/* Syncs and ops both come in order: a sync that cannot cover this op
 * cannot cover any later one either.
 */
static int sync_covers(const struct sync_ev *s, const struct op *o)
{
	if (s->seq)
		return s->seq >= o->seq;
	return !o->have_launch || s->enter >= o->h_enter;
}

/* by core, RISC and zone id: only markers of one such run pair */
static int cmp_zmark(const void *x, const void *y)
{
	const struct zmark *p = x, *q = y;

	if (p->core != q->core)
		return p->core < q->core ? -1 : 1;
	if (p->risc != q->risc)
		return p->risc < q->risc ? -1 : 1;
	if (p->zone_id != q->zone_id)
		return p->zone_id < q->zone_id ? -1 : 1;
	if (p->ts != q->ts)
		return p->ts < q->ts ? -1 : 1;
	return (p->idx > q->idx) - (p->idx < q->idx);
}

/* by core, RISC, start, then the outer (longer) zone first */
static int cmp_zspan(const void *x, const void *y)
{
	const struct kprof_zone_time *p = x, *q = y;

	if (p->core != q->core)
		return p->core < q->core ? -1 : 1;
	if (p->risc != q->risc)
		return p->risc < q->risc ? -1 : 1;
	if (p->start_ns != q->start_ns)
		return p->start_ns < q->start_ns ? -1 : 1;
	if (p->end_ns != q->end_ns)
		return p->end_ns > q->end_ns ? -1 : 1;
	return (p->zone_id > q->zone_id) - (p->zone_id < q->zone_id);
}

/*
 * Pairs the op's zone markers per core and RISC, in time order (arrival
 * order at equal times): a ZONE_END closes the innermost open ZONE_START
 * with its zone id. Markers left without a partner are counted in
 * zone_unpaired. Zones of other ids do not take part, so each (core,
 * RISC, zone id) run is paired on its own with a plain stack: a search
 * of the open zones for the id made a storm of unmatched ends quadratic.
 */
static int zone_spans(struct kprof_agg *a, struct op *o, struct kprof_op_row *row,
		      struct kprof_err *err)
{
	uint32_t n = 0, top = 0;

	row->zone_spans = a->zspans;
	row->nzone_spans = 0;
	if (!o->nzm)
		return 0;
	if (o->nzm > a->zstack_cap) {
		void *p = realloc(a->zstack, o->nzm * sizeof(*a->zstack));

		if (!p)
			return kprof_err_set(err, ENOMEM, "out of memory");
		a->zstack = p;
		a->zstack_cap = o->nzm;
	}
	if (o->nzm > a->zspans_cap) {
		void *p = realloc(a->zspans, o->nzm * sizeof(*a->zspans));

		if (!p)
			return kprof_err_set(err, ENOMEM, "out of memory");
		a->zspans = p;
		a->zspans_cap = o->nzm;
	}
	row->zone_spans = a->zspans;
	qsort(o->zm, o->nzm, sizeof(*o->zm), cmp_zmark);
	for (uint32_t i = 0; i < o->nzm; i++) {
		const struct zmark *m = &o->zm[i];

		if (i && (m->core != o->zm[i - 1].core || m->risc != o->zm[i - 1].risc ||
			  m->zone_id != o->zm[i - 1].zone_id)) {
			a->st.zone_unpaired += top;	/* still open at the run's end */
			top = 0;
		}
		if (m->kind == KPROF_MARK_ZONE_START) {
			a->zstack[top++] = i;
			continue;
		}
		if (!top) {
			a->st.zone_unpaired++;
			continue;
		}
		top--;
		a->zspans[n++] = (struct kprof_zone_time){
			.core = m->core, .zone_id = m->zone_id, .risc = m->risc,
			.start_ns = kprof_tsfit_to_host(a->cfg.fit, o->zm[a->zstack[top]].ts),
			.end_ns = kprof_tsfit_to_host(a->cfg.fit, m->ts),
		};
	}
	a->st.zone_unpaired += top;
	qsort(a->zspans, n, sizeof(*a->zspans), cmp_zspan);
	row->nzone_spans = n;
	return 0;
}

/* Markers lost of the op seq (ops are written in seq order). */
static uint64_t lost_upto(struct kprof_agg *a, uint64_t seq)
{
	while (a->nlost && a->lost[0].seq <= seq) {
		struct lost_pt last = a->lost[--a->nlost];
		size_t i = 0;

		a->lost_run += a->lost[0].delta;
		for (;;) {	/* sift the last one down from the root */
			size_t c = 2 * i + 1;

			if (c >= a->nlost)
				break;
			if (c + 1 < a->nlost && a->lost[c + 1].seq < a->lost[c].seq)
				c++;
			if (a->lost[c].seq >= last.seq)
				break;
			a->lost[i] = a->lost[c];
			i = c;
		}
		if (a->nlost)
			a->lost[i] = last;
	}
	return a->lost_run;
}

static int cmp_core_span(const void *x, const void *y)
{
	const struct core_span *p = x, *q = y;

	return (p->core > q->core) - (p->core < q->core);
}

/* The op's cores (and its zone markers' cores) renamed by core_rank. */
static void rank_cores(const struct kprof_agg *a, struct op *o)
{
	for (uint32_t c = 0; c < o->ncores; c++)
		o->cores[c].core = a->core_rank[o->cores[c].core];
	for (uint32_t i = 0; i < o->nzm; i++)
		o->zm[i].core = a->core_rank[o->zm[i].core];
	o->unsorted = 1;
}

void kprof_agg_core_rank(struct kprof_agg *a, const uint32_t *rank)
{
	a->core_rank = rank;
}

/*
 * The op's span from its cores' spans: a marker updates only its core's
 * (one min or max less per marker); the same values.
 */
static void op_span(struct op *o)
{
	for (uint32_t c = 0; c < o->ncores; c++) {
		const struct core_span *cs = &o->cores[c];

		if (cs->fs < o->fw_s)
			o->fw_s = cs->fs;
		if (cs->fe > o->fw_e)
			o->fw_e = cs->fe;
		if (cs->ks < o->k_s)
			o->k_s = cs->ks;
		if (cs->ke > o->k_e)
			o->k_e = cs->ke;
	}
}

static int emit(struct kprof_agg *a, struct op *o, struct kprof_err *err)
{
	struct kprof_op_row row;
	double sum = 0;
	uint32_t n = 0;
	int ret;

	op_span(o);
	memset(&row, 0, sizeof(row));
	row.seq = o->seq;
	memcpy(row.op_code, o->name, sizeof(row.op_code));
	row.device_id = a->cfg.device_id;
	row.clock_mhz = o->clock_mhz;
	row.host_start_ns = o->have_launch ? o->h_enter : KPROF_AGG_NONE;
	row.host_end_ns = o->have_launch ? o->h_exit : KPROF_AGG_NONE;
	row.fw_start_cycle = o->fw_s != NO_TS && o->fw_e >= o->fw_s ? o->fw_s : KPROF_AGG_NONE;
	row.fw_end_cycle = row.fw_start_cycle != KPROF_AGG_NONE ? o->fw_e : KPROF_AGG_NONE;
	row.kernel_start_cycle = o->k_s != NO_TS && o->k_e >= o->k_s ? o->k_s : KPROF_AGG_NONE;
	row.kernel_end_cycle = row.kernel_start_cycle != KPROF_AGG_NONE ? o->k_e : KPROF_AGG_NONE;
	row.fw_duration_ns = span(a, o->fw_s, o->fw_e);
	row.kernel_duration_ns = span(a, o->k_s, o->k_e);
	row.fw_start_ns = row.fw_start_cycle != KPROF_AGG_NONE ?
			  kprof_tsfit_to_host(a->cfg.fit, o->fw_s) : NAN;
	row.kernel_core_min_ns = NAN;
	row.kernel_core_max_ns = NAN;
	row.kernel_core_avg_ns = NAN;
	/* by core id, as rows and timelines list them; the op's hash is
	 * not used again (the op is written and recycled below)
	 */
	if (a->core_rank)
		rank_cores(a, o);
	if (o->unsorted)
		qsort(o->cores, o->ncores, sizeof(*o->cores), cmp_core_span);
	for (uint32_t c = 0; c < o->ncores; c++) {
		const struct core_span *cs = &o->cores[c];
		double d;

		if (!cs->riscs)
			continue;
		row.core_count++;
		d = span(a, cs->ks, cs->ke);
		if (isnan(d))
			continue;
		if (!n || d < row.kernel_core_min_ns)
			row.kernel_core_min_ns = d;
		if (!n || d > row.kernel_core_max_ns)
			row.kernel_core_max_ns = d;
		sum += d;
		n++;
	}
	if (n)
		row.kernel_core_avg_ns = sum / n;
	/* per-core FW spans in host time, for timelines (trace.json) */
	if (o->ncores > a->ctimes_cap) {
		void *p = realloc(a->ctimes, o->ncores * sizeof(*a->ctimes));

		if (!p)
			return kprof_err_set(err, ENOMEM, "out of memory");
		a->ctimes = p;
		a->ctimes_cap = o->ncores;
	}
	row.cores = a->ctimes;
	for (uint32_t c = 0; c < o->ncores; c++) {
		const struct core_span *cs = &o->cores[c];

		if (cs->fs == NO_TS || cs->fe < cs->fs)
			continue;
		a->ctimes[row.ncores++] = (struct kprof_core_time){
			.core = cs->core,
			.fw_start_ns = kprof_tsfit_to_host(a->cfg.fit, cs->fs),
			.fw_end_ns = kprof_tsfit_to_host(a->cfg.fit, cs->fe),
		};
	}
	ret = zone_spans(a, o, &row, err);
	if (ret)
		return ret;
	for (int r = 0; r < KPROF_MAX_RISCS; r++)
		row.risc_kernel_ns[r] = span(a, o->rks[r], o->rke[r]);
	row.op_to_op_ns = NAN;
	row.fw_end_ns = NAN;
	if (!isnan(row.fw_start_ns)) {
		double end = kprof_tsfit_to_host(a->cfg.fit, o->fw_e);

		row.fw_end_ns = end;
		if (!isnan(a->prev_fw_end_ns))
			row.op_to_op_ns = row.fw_start_ns - a->prev_fw_end_ns;
		a->prev_fw_end_ns = end;
	}
	row.launch_to_start_ns = o->have_launch && !isnan(row.fw_start_ns) ?
				 row.fw_start_ns - (double)o->h_enter : NAN;
	/* the first sync ioctl that waited for this op: one that named
	 * this op or a later one, or (seq 0: "wait for all", or no seq
	 * known) one entered after the op's launch
	 */
	row.sync_wait_ns = NAN;
	while (a->sync_n && !sync_covers(&a->syncs[a->sync_head], o)) {
		a->sync_head = (a->sync_head + 1) % a->sync_cap;
		a->sync_n--;
	}
	if (a->sync_n) {
		const struct sync_ev *s = &a->syncs[a->sync_head];

		row.sync_wait_ns = (double)(s->exit - s->enter);
		row.sync_end_ns = s->exit;
	} else {
		row.sync_end_ns = KPROF_AGG_NONE;
	}
	row.markers = o->markers;
	row.markers_lost = lost_upto(a, o->seq);
	row.zones = o->zones;
	row.counter_mask = o->cmask;
	memcpy(row.counter_cores, o->ccores, sizeof(row.counter_cores));
	memcpy(row.counter_min, o->cmin, sizeof(row.counter_min));
	memcpy(row.counter_max, o->cmax, sizeof(row.counter_max));
	memcpy(row.counter_sum, o->csum, sizeof(row.counter_sum));

	a->emitted_any = 1;
	a->emitted_upto = o->seq;
	a->st.ops_emitted++;
	unlink_op(a, o);
	ret = a->cfg.emit(a->cfg.ctx, &row);
	if (ret)
		return kprof_err_set(err, ret < 0 ? -ret : EIO,
				     "writing op %llu failed: %s", (unsigned long long)row.seq,
				     strerror(ret < 0 ? -ret : EIO));
	return 0;
}

/* Every (core, RISC) the op used has delivered a marker for a later op. */
static int cores_moved_on(const struct kprof_agg *a, const struct op *o)
{
	if (!o->markers)
		return a->max_marker_seq > o->seq;
	for (uint32_t c = 0; c < o->ncores; c++) {
		uint8_t m = o->cores[c].riscs;
		size_t core = o->cores[c].core;

		for (int r = 0; m; r++, m >>= 1)
			if ((m & 1) && a->cr_seq[core * KPROF_MAX_RISCS + r] <= o->seq + 1)
				return 0;
	}
	return 1;
}

static int retire(struct kprof_agg *a, int all, struct kprof_err *err)
{
	int ret;

	/* not on a timeout either: an input's clock may span 2^64 ns */
	if (!all && a->cfg.slack_ns == KPROF_AGG_NEVER)
		return 0;
	while (a->head) {
		struct op *o = a->head;
		double idle = a->wm - o->last;

		if (!all && !(idle > (double)a->cfg.timeout_ns ||
			      (idle > (double)a->cfg.slack_ns && cores_moved_on(a, o))))
			break;
		ret = emit(a, o, err);
		if (ret)
			return ret;
	}
	return 0;
}

static __attribute__((noinline)) int retire_check(struct kprof_agg *a, struct kprof_err *err)
{
	a->since_check = 0;
	a->next_check_wm = a->wm + (double)a->cfg.slack_ns / 2;
	return retire(a, 0, err);
}

/* an input's count toward the retirement check, after its time was seen */
static inline int tick_seen(struct kprof_agg *a, struct kprof_err *err)
{
	/* check every CHECK_EVERY inputs, or sooner when the watermark moved
	 * by half the slack: bounds the ops held to about 1.5 x slack's worth
	 */
	if (++a->since_check < CHECK_EVERY &&
	    !(a->wm > a->next_check_wm))
		return 0;
	return retire_check(a, err);
}

/* inline: once per input; the retirement check is the rare part */
static inline int tick(struct kprof_agg *a, double t, struct kprof_err *err)
{
	if (t > a->wm)
		a->wm = t;
	return tick_seen(a, err);
}

/* Full op seq from the low 32 bits a marker carries: the value nearest
 * to the highest seq seen so far.
 */
static uint64_t widen_seq(const struct kprof_agg *a, uint32_t lo)
{
	uint64_t ref = a->max_seq, c = (ref & ~0xffffffffULL) | lo;

	if (c > ref && c - ref > 0x80000000ULL && c >= 0x100000000ULL)
		c -= 0x100000000ULL;
	else if (c < ref && ref - c > 0x80000000ULL)
		c += 0x100000000ULL;
	return c;
}

struct core_key {
	const struct core_span *cores;
	uint32_t core;
};

static int core_eq(const void *key, size_t i)
{
	const struct core_key *k = key;

	return k->cores[i].core == k->core;
}

static size_t core_hash(const void *arr, size_t i)
{
	return kprof_hash_u64(((const struct core_span *)arr)[i].core);
}

/* o->ch over all of o's cores; 0 or -ENOMEM */
static int index_cores(struct op *o)
{
	size_t cap = o->ch.cap;
	struct core_key key = { o->cores, 0 };

	if (kprof_hidx_reserve(&o->ch, o->ncores, core_hash, o->cores))
		return -ENOMEM;
	if (o->ch.cap != cap)
		o->nhashed = o->ncores;		/* made anew from them all */
	for (; o->nhashed < o->ncores; o->nhashed++) {
		key.core = o->cores[o->nhashed].core;
		o->ch.slot[kprof_hidx_slot(&o->ch, kprof_hash_u64(key.core), core_eq, &key)] =
			o->nhashed + 1;
	}
	return 0;
}

/* op_core() when the core's hint does not name the op's entry. */
static __attribute__((noinline)) struct core_span *
op_core_slow(struct kprof_agg *a, struct op *o, uint32_t core, struct kprof_err *err)
{
	struct core_key key = { o->cores, core };
	struct core_span *cs;
	size_t pos;

	if (a->core_seq[core] <= o->seq) {
		/* no op from o on has the core: new to o, no lookup (nearly
		 * every op's first marker on a core, as ops come in order)
		 */
	} else if (o->ncores > CORE_SCAN) {
		if (index_cores(o))
			goto nomem;
		pos = kprof_hidx_slot(&o->ch, kprof_hash_u64(core), core_eq, &key);
		if (o->ch.slot[pos]) {
			a->chint[core] = (uint32_t)(o->ch.slot[pos] - 1);
			return &o->cores[a->chint[core]];
		}
	} else {
		for (uint32_t i = 0; i < o->ncores; i++)
			if (o->cores[i].core == core) {
				a->chint[core] = i;
				return &o->cores[i];
			}
	}
	if (o->ncores == o->ncap) {
		uint32_t n = o->ncap ? o->ncap * 2 : 16;
		struct core_span *c = realloc(o->cores, n * sizeof(*c));

		if (!c)
			goto nomem;
		o->cores = c;
		o->ncap = n;
	}
	if (o->ncores && core < o->cores[o->ncores - 1].core)
		o->unsorted = 1;
	cs = &o->cores[o->ncores];
	*cs = (struct core_span){ .ks = NO_TS, .fs = NO_TS, .core = core };
	a->chint[core] = o->ncores++;
	if (a->core_seq[core] < o->seq + 1)
		a->core_seq[core] = o->seq + 1;
	return cs;
nomem:
	kprof_err_set(err, ENOMEM, "out of memory");
	return NULL;
}

/*
 * The op's span of core (core < a->cr_cores), added if new; NULL: out of
 * memory. A core appears once in an op's list, so a hint that points at
 * an entry of this core is right whatever op set it.
 */
static inline struct core_span *op_core(struct kprof_agg *a, struct op *o, uint32_t core,
					struct kprof_err *err)
{
	uint32_t h = a->chint[core];

	if (h < o->ncores && o->cores[h].core == core)
		return &o->cores[h];
	return op_core_slow(a, o, core, err);
}

/* cr_seq (all RISCs), chint and core_seq cover core. */
static int grow_cr(struct kprof_agg *a, uint32_t core, struct kprof_err *err)
{
	uint32_t n = a->cr_cores ? a->cr_cores : 16, *h;
	uint64_t *t, *cs;

	while (n <= core)
		n *= 2;
	h = realloc(a->chint, (size_t)n * sizeof(*h));
	if (!h)
		return kprof_err_set(err, ENOMEM, "out of memory");
	a->chint = h;
	t = realloc(a->cr_seq, (size_t)n * KPROF_MAX_RISCS * sizeof(*t));
	if (!t)
		return kprof_err_set(err, ENOMEM, "out of memory");
	a->cr_seq = t;
	cs = realloc(a->core_seq, (size_t)n * sizeof(*cs));
	if (!cs)
		return kprof_err_set(err, ENOMEM, "out of memory");
	a->core_seq = cs;
	memset(t + (size_t)a->cr_cores * KPROF_MAX_RISCS, 0,
	       (size_t)(n - a->cr_cores) * KPROF_MAX_RISCS * sizeof(*t));
	memset(h + a->cr_cores, 0, (size_t)(n - a->cr_cores) * sizeof(*h));
	memset(cs + a->cr_cores, 0, (size_t)(n - a->cr_cores) * sizeof(*cs));
	a->cr_cores = n;
	return 0;
}

static inline int marker_at(struct kprof_agg *a, const struct kprof_agg_marker *m, double t,
			    struct kprof_err *err);

int kprof_agg_marker(struct kprof_agg *a, const struct kprof_agg_marker *m,
		     struct kprof_err *err)
{
	return marker_at(a, m, kprof_tsfit_to_host(a->cfg.fit, m->timestamp), err);
}

/* always inline: the body of the per-marker path of both callers */
static inline __attribute__((always_inline))
int marker_at(struct kprof_agg *a, const struct kprof_agg_marker *m, double t,
	      struct kprof_err *err)
{
	struct op *o;
	struct core_span *cs;
	uint64_t *crs;
	int late;

	if (m->risc >= a->cfg.num_riscs || m->kind < KPROF_MARK_FW_START ||
	    m->kind > KPROF_MARK_ZONE_END ||
	    m->core >= (a->cfg.num_cores ? a->cfg.num_cores : 65536U)) {
		a->st.bad_markers++;
		return 0;
	}
	a->st.markers++;
	if (t > a->wm)
		a->wm = t;	/* before get_op: a new op's last is the watermark */
	o = get_op(a, m->op_seq, &late, err);
	if (!o) {
		if (!late)
			return -(err ? err->code : ENOMEM);
		a->st.late_markers++;
		return tick_seen(a, err);
	}
	if (m->core >= a->cr_cores && grow_cr(a, m->core, err))
		return -ENOMEM;
	cs = op_core(a, o, m->core, err);
	if (!cs)
		return -ENOMEM;
	cs->riscs |= (uint8_t)(1U << m->risc);
	crs = &a->cr_seq[(size_t)m->core * KPROF_MAX_RISCS + m->risc];
	if (m->op_seq + 1 > *crs)
		*crs = m->op_seq + 1;
	if (m->op_seq > a->max_marker_seq)
		a->max_marker_seq = m->op_seq;
	o->markers++;
	o->last = a->wm;
	switch (m->kind) {
	case KPROF_MARK_FW_START:
		if (m->timestamp < cs->fs)
			cs->fs = m->timestamp;
		break;
	case KPROF_MARK_FW_END:
		if (m->timestamp > cs->fe)
			cs->fe = m->timestamp;
		break;
	case KPROF_MARK_KERNEL_START:
		if (m->timestamp < cs->ks)
			cs->ks = m->timestamp;
		if (m->timestamp < o->rks[m->risc])
			o->rks[m->risc] = m->timestamp;
		break;
	case KPROF_MARK_KERNEL_END:
		if (m->timestamp > cs->ke)
			cs->ke = m->timestamp;
		if (m->timestamp > o->rke[m->risc])
			o->rke[m->risc] = m->timestamp;
		break;
	default:
		o->zones++;
		if (!a->cfg.zone_spans)
			break;
		if (o->nzm >= MAX_OP_ZONE_MARKERS) {
			a->st.zone_over_cap++;
			break;
		}
		if (o->nzm == o->zmcap) {
			uint32_t cap = o->zmcap ? o->zmcap * 2 : 16;
			struct zmark *z = realloc(o->zm, cap * sizeof(*z));

			if (!z)
				return kprof_err_set(err, ENOMEM, "out of memory");
			o->zm = z;
			o->zmcap = cap;
		}
		o->zm[o->nzm] = (struct zmark){ .ts = m->timestamp, .core = m->core,
						.zone_id = m->zone_id, .idx = o->nzm,
						.risc = m->risc, .kind = m->kind };
		o->nzm++;
		break;
	}
	return tick_seen(a, err);
}

/*
 * How many inputs may pass before the next retirement check, and how far
 * (cycles past seg->dev0) a run's markers may go with none due: the
 * watermark past next_check_wm would make one.
 */
static size_t run_room(struct kprof_agg *a, const struct kprof_ts_seg *seg, uint64_t *xlen)
{
	if (a->since_check >= CHECK_EVERY - 1 || !(a->wm <= a->next_check_wm))
		return 0;
	if (memcmp(&a->run_seg, seg, sizeof(*seg)) || a->run_wm != a->next_check_wm) {
		a->run_seg = *seg;
		a->run_wm = a->next_check_wm;
		a->run_xw = kprof_ts_seg_upto(seg, 1ULL << 63, a->next_check_wm);
	}
	if (*xlen > a->run_xw)
		*xlen = a->run_xw;
	return CHECK_EVERY - 1 - a->since_check;
}

/* a field of the record at p, read in place (records need no alignment) */
#define REC_FIELD(p, type, member, dst) \
	memcpy(&(dst), (p) + offsetof(type, member), sizeof(dst))

/*
 * The end of a run's part on one op: its markers, its last input time
 * (the watermark then: the conversion is monotonic, so the part's latest
 * marker gives it) and its entry for the caller.
 */
static void run_part_end(struct kprof_agg *a, struct op *o, const struct kprof_ts_seg *seg,
			 struct kprof_agg_run *run, uint32_t n, uint64_t xmax)
{
	double t = kprof_ts_seg_eval(seg, seg->dev0 + xmax);

	if (t > a->wm)
		a->wm = t;
	o->markers += n;
	o->last = a->wm;
	if (o->seq > a->max_marker_seq)
		a->max_marker_seq = o->seq;
	run->ops[run->nops++] = (struct kprof_agg_run_op){
		.op_lo = (uint32_t)o->seq, .n = n, .xmax = xmax };
}

size_t kprof_agg_marker_run(struct kprof_agg *a, const void *recs, size_t n,
			    struct kprof_agg_run *run)
{
	struct op *o = a->last_op;
	const struct kprof_ts_seg *seg = run->seg;
	const unsigned char *p = recs, *end, *part;
	const uint64_t dev0 = seg->dev0;
	const uint32_t nr = a->cfg.num_riscs;
	uint32_t lo = run->op_lo;
	uint64_t xlen = run->xlen, xmax = 0, seq1, *cr = a->cr_seq;
	uint32_t ncl = a->cfg.num_cores ? a->cfg.num_cores : 65536U;
	const uint32_t *chint = a->chint;
	const int zone_spans = a->cfg.zone_spans;
	/*
	 * a whole, uncorrupted MARKER of the op: its first 16 bytes (header,
	 * core, RISC, kind, op seq) masked, as one compare (SSE2: no general
	 * register for it) or two; the header alone tells another op's
	 */
	struct kprof_rec_marker mwant = {
		.hdr = { KPROF_REC_MARKER, sizeof(struct kprof_rec_marker), 0 }, .op_seq = lo
	};
	const struct kprof_rec_marker mmask = {
		.hdr = { UINT16_MAX, UINT16_MAX, KPROF_RECF_CORRUPT }, .op_seq = UINT32_MAX
	};
	uint64_t hwant, hmask;
#ifdef __SSE2__
	__m128i want = _mm_loadu_si128((const void *)&mwant);
	const __m128i mask = _mm_loadu_si128((const void *)&mmask);
#else
	uint64_t want[2], mask[2];
#endif
	size_t room;

	run->nops = 0;
	if (!o || (uint32_t)o->seq != lo || widen_seq(a, lo) != o->seq)
		return 0;
	room = run_room(a, seg, &xlen);
	if (n > room)
		n = room;
	if (ncl > a->cr_cores)
		ncl = a->cr_cores;
	seq1 = o->seq + 1;
	memcpy(&hwant, &mwant.hdr, sizeof(hwant));
	memcpy(&hmask, &mmask.hdr, sizeof(hmask));
#ifndef __SSE2__
	memcpy(want, &mwant, sizeof(want));
	memcpy(mask, &mmask, sizeof(mask));
#endif
	part = p;
	for (end = p + n * sizeof(struct kprof_rec_marker); p < end;
	     p += sizeof(struct kprof_rec_marker)) {
		struct core_span *cs;
		uint64_t ts, x, *crs, hdr;
		uint32_t h, seq;
		uint16_t core;
		uint8_t risc, kind;
#ifdef __SSE2__
		__m128i v = _mm_and_si128(_mm_loadu_si128((const void *)p), mask);

		if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, want)) != 0xffff) {
#else
		uint64_t w[2];

		memcpy(w, p, sizeof(w));
		if (((w[0] & mask[0]) ^ want[0]) | ((w[1] & mask[1]) ^ want[1])) {
#endif
			/*
			 * another op's marker: the run goes on with that op
			 * when it is in flight (a RISC's ring holds the
			 * markers of every op since the last drain); one to
			 * make or a late one is for marker_at()
			 */
			struct op *next;

			memcpy(&hdr, p, sizeof(hdr));
			REC_FIELD(p, struct kprof_rec_marker, op_seq, seq);
			if ((hdr & hmask) != hwant || seq == lo ||
			    run->nops + 1 >= KPROF_AGG_RUN_OPS)
				break;
			next = find(a, widen_seq(a, seq));
			if (!next)
				break;
			if (p > part)
				run_part_end(a, o, seg, run, (uint32_t)((size_t)(p - part) /
					     sizeof(struct kprof_rec_marker)), xmax);
			o = next;
			lo = seq;
			seq1 = o->seq + 1;
			xmax = 0;
			part = p;
			mwant.op_seq = lo;
#ifdef __SSE2__
			want = _mm_loadu_si128((const void *)&mwant);
#else
			memcpy(want, &mwant, sizeof(want));
#endif
		}
		REC_FIELD(p, struct kprof_rec_marker, timestamp, ts);
		REC_FIELD(p, struct kprof_rec_marker, core, core);
		REC_FIELD(p, struct kprof_rec_marker, risc, risc);
		x = ts - dev0;
		if (x >= xlen || core >= ncl || risc >= nr)
			break;
		h = chint[core];
		if (h < o->ncores && o->cores[h].core == core) {
			cs = &o->cores[h];
		} else {
			/* the op's first marker on this core; NULL (no
			 * memory): marker_at() tries again and says so
			 */
			cs = op_core_slow(a, o, core, NULL);
			if (!cs)
				break;
		}
		REC_FIELD(p, struct kprof_rec_marker, kind, kind);
		switch (kind) {
		case KPROF_MARK_FW_START:
			if (ts < cs->fs)
				cs->fs = ts;
			break;
		case KPROF_MARK_FW_END:
			if (ts > cs->fe)
				cs->fe = ts;
			break;
		case KPROF_MARK_KERNEL_START:
			if (ts < cs->ks)
				cs->ks = ts;
			if (ts < o->rks[risc])
				o->rks[risc] = ts;
			break;
		case KPROF_MARK_KERNEL_END:
			if (ts > cs->ke)
				cs->ke = ts;
			if (ts > o->rke[risc])
				o->rke[risc] = ts;
			break;
		case KPROF_MARK_ZONE_START:
		case KPROF_MARK_ZONE_END:
			if (zone_spans)
				goto out;	/* held for pairing: marker_at() */
			o->zones++;
			break;
		default:
			goto out;		/* counted as bad by marker_at() */
		}
		/* a RISC's first marker in the op: its last op is this one
		 * at least (once the bit is set, cr_seq holds that)
		 */
		if (!(cs->riscs & (1U << risc))) {
			cs->riscs |= (uint8_t)(1U << risc);
			crs = &cr[(size_t)core * KPROF_MAX_RISCS + risc];
			if (*crs < seq1)
				*crs = seq1;
		}
		if (x > xmax)
			xmax = x;
	}
out:
	if (p > part)
		run_part_end(a, o, seg, run, (uint32_t)((size_t)(p - part) /
			     sizeof(struct kprof_rec_marker)), xmax);
	n = (size_t)(p - (const unsigned char *)recs) / sizeof(struct kprof_rec_marker);
	if (!n)
		return 0;
	REC_FIELD(p - sizeof(struct kprof_rec_marker), struct kprof_rec_marker, timestamp,
		  run->xlast);
	run->xlast -= dev0;
	a->st.markers += n;
	a->since_check += n;
	return n;
}

/*
 * o's name: at most max bytes of s, cut to fit (as snprintf's "%.*s",
 * without its format parsing: a GPU capture names every op)
 */
static void set_name(struct op *o, const char *s, size_t max)
{
	size_t n = strnlen(s, max < sizeof(o->name) - 1 ? max : sizeof(o->name) - 1);

	memcpy(o->name, s, n);
	o->name[n] = '\0';
}

int kprof_agg_op_name(struct kprof_agg *a, uint64_t seq, const char *name,
		      struct kprof_err *err)
{
	int late;
	struct op *o = get_op(a, seq, &late, err);

	if (!o)
		return late ? 0 : -ENOMEM;
	set_name(o, name, SIZE_MAX);
	return 0;
}

static int lost_push(struct kprof_agg *a, uint64_t seq, uint64_t delta,
		     struct kprof_err *err)
{
	size_t i;

	if (a->nlost == a->lost_cap) {
		size_t n = a->lost_cap ? a->lost_cap * 2 : 64;
		struct lost_pt *p = realloc(a->lost, n * sizeof(*p));

		if (!p)
			return kprof_err_set(err, ENOMEM, "out of memory");
		a->lost = p;
		a->lost_cap = n;
	}
	for (i = a->nlost++; i && a->lost[(i - 1) / 2].seq > seq; i = (i - 1) / 2)
		a->lost[i] = a->lost[(i - 1) / 2];
	a->lost[i] = (struct lost_pt){ seq, delta };
	return 0;
}

static int add_lost(struct kprof_agg *a, const struct kprof_rec_lost *l,
		    struct kprof_err *err)
{
	uint64_t first = l->first_op_seq, last = l->last_op_seq;
	int ret;

	if (last < first) {
		uint64_t t = first;

		first = last;
		last = t;
	}
	a->st.lost_records++;
	if (l->core == KPROF_LOST_CORE_RECORDS && l->risc == KPROF_LOST_RISC_RECORDS) {
		/* OP/COUNTERS records: the op rows show what is missing
		 * (no OP CODE, no counters); not markers
		 */
		if (!a->st.device_records_lost || first < a->st.device_records_lost_first)
			a->st.device_records_lost_first = first;
		if (!a->st.device_records_lost || last > a->st.device_records_lost_last)
			a->st.device_records_lost_last = last;
		a->st.device_records_lost += l->count;
		return 0;
	}
	a->st.lost_markers += l->count;
	if (is_retired(a, first))
		a->st.late_lost_markers += l->count;
	/* every op of the range not written yet, whenever it arrives */
	if (is_retired(a, last))
		return 0;
	ret = lost_push(a, first, l->count, err);
	if (!ret && last != UINT64_MAX)
		ret = lost_push(a, last + 1, -(uint64_t)l->count, err);
	return ret;
}

int kprof_agg_device_rec(struct kprof_agg *a, const struct kprof_rec_hdr *rec,
			 struct kprof_err *err)
{
	return kprof_agg_device_rec_at(a, rec, NAN, err);
}

/* host time of a record's device timestamp: the caller's, or computed */
static double rec_time(const struct kprof_agg *a, double t, uint64_t cycles)
{
	return isnan(t) ? kprof_tsfit_to_host(a->cfg.fit, cycles) : t;
}

/* kprof_agg_device_rec_at() for every record but a whole MARKER */
static __attribute__((noinline)) int device_rec_other(struct kprof_agg *a,
						      const struct kprof_rec_hdr *rec,
						      double host_ns, struct kprof_err *err)
{
	int late;

	if (rec->flags & KPROF_RECF_CORRUPT) {
		a->st.corrupt_records++;
		return 0;
	}
	switch (rec->type) {
	case KPROF_REC_OP: {
		const struct kprof_rec_op *r = (const void *)rec;
		double t = rec_time(a, host_ns, r->timestamp);
		struct op *o;

		a->st.ops_records++;
		if (implausible(a, r->op_seq))
			return 0;
		if (t > a->wm)
			a->wm = t;
		o = get_op(a, r->op_seq, &late, err);
		if (!o)
			return late ? tick(a, t, err) : -ENOMEM;
		if (rec->size > sizeof(*r) &&
		    memchr(r + 1, '\0', rec->size - sizeof(*r)))
			/* a longer name follows the record (kprof_gpu.h) */
			set_name(o, (const char *)(r + 1), SIZE_MAX);
		else
			set_name(o, r->name, sizeof(r->name));
		o->clock_mhz = r->clock_mhz;
		o->last = a->wm;
		return tick(a, t, err);
	}
	case KPROF_REC_COUNTERS: {
		const struct kprof_rec_counters *r = (const void *)rec;
		uint64_t mask = r->counter_mask;
		struct op *o;
		int k = 0;

		a->st.counter_records++;
		if (implausible(a, r->op_seq))
			return 0;
		o = get_op(a, r->op_seq, &late, err);
		if (!o)
			return late ? 0 : -ENOMEM;
		/* the set bits only, in order; values past the kept counters
		 * are not read
		 */
		for (; mask; mask &= mask - 1) {
			int i = __builtin_ctzll(mask);
			uint64_t v = r->values[k++];

			if (i >= KPROF_MAX_COUNTERS)
				break;
			if (!(o->cmask & (1ULL << i)) || v < o->cmin[i])
				o->cmin[i] = v;
			if (!(o->cmask & (1ULL << i)) || v > o->cmax[i])
				o->cmax[i] = v;
			o->csum[i] += v;
			o->ccores[i]++;
			o->cmask |= 1ULL << i;
		}
		o->last = a->wm;
		return 0;
	}
	case KPROF_REC_LOST: {
		const struct kprof_rec_lost *r = (const void *)rec;

		if (add_lost(a, r, err))
			return -ENOMEM;
		return tick(a, rec_time(a, host_ns, r->timestamp), err);
	}
	case KPROF_REC_SYNC: {
		const struct kprof_rec_sync *r = (const void *)rec;

		return tick(a, (double)r->host_before_ns, err);
	}
	case KPROF_REC_CLOCK: {
		const struct kprof_rec_clock *r = (const void *)rec;

		return tick(a, (double)r->host_ns, err);
	}
	case KPROF_REC_STATE: {
		const struct kprof_rec_state *r = (const void *)rec;

		return tick(a, (double)r->host_ns, err);
	}
	default:
		return 0;
	}
}

/*
 * A MARKER is nearly every record: its path stays small, the other types
 * (and their register saves) in device_rec_other()
 */
int kprof_agg_device_rec_at(struct kprof_agg *a, const struct kprof_rec_hdr *rec,
			    double host_ns, struct kprof_err *err)
{
	if (rec->type == KPROF_REC_MARKER && !(rec->flags & KPROF_RECF_CORRUPT)) {
		const struct kprof_rec_marker *r = (const void *)rec;
		struct kprof_agg_marker m = {
			.op_seq = widen_seq(a, r->op_seq), .timestamp = r->timestamp,
			.core = r->core, .risc = r->risc, .kind = r->kind,
			.zone_id = r->zone_id,
		};
		return marker_at(a, &m, rec_time(a, host_ns, r->timestamp), err);
	}
	return device_rec_other(a, rec, host_ns, err);
}

static int push_sync(struct kprof_agg *a, const struct kprof_host_event *ev,
		     struct kprof_err *err)
{
	if (a->sync_n == a->sync_cap) {
		size_t n = a->sync_cap ? a->sync_cap * 2 : 64;
		struct sync_ev *s = malloc(n * sizeof(*s));

		if (!s)
			return kprof_err_set(err, ENOMEM, "out of memory");
		for (size_t i = 0; i < a->sync_n; i++)
			s[i] = a->syncs[(a->sync_head + i) % a->sync_cap];
		free(a->syncs);
		a->syncs = s;
		a->sync_cap = n;
		a->sync_head = 0;
	}
	a->syncs[(a->sync_head + a->sync_n) % a->sync_cap] =
		(struct sync_ev){ ev->seq, ev->enter_ns, ev->exit_ns };
	a->sync_n++;
	return 0;
}

int kprof_agg_host_event(struct kprof_agg *a, const struct kprof_host_event *ev,
			 struct kprof_err *err)
{
	int late, ret;

	a->st.host_events++;
	if (ev->role == KPROF_ROLE_LAUNCH) {
		struct op *o;

		a->st.launches++;
		if (ev->ret < 0 || implausible(a, ev->seq))	/* failed launch: no op */
			return tick(a, (double)ev->enter_ns, err);
		o = get_op(a, ev->seq, &late, err);
		if (!o) {
			if (!late)
				return -ENOMEM;
			a->st.late_host_events++;
		} else {
			o->have_launch = 1;
			o->h_enter = ev->enter_ns;
			o->h_exit = ev->exit_ns;
			if ((double)ev->enter_ns > o->last)
				o->last = (double)ev->enter_ns;
		}
	} else if (ev->role == KPROF_ROLE_SYNC) {
		a->st.syncs++;
		if (ev->flags & KPROF_HEVF_NO_COVER) {
			/* listed, but the sync of no op */
		} else if (ev->seq && is_retired(a, ev->seq)) {
			a->st.late_host_events++;
		} else {
			ret = push_sync(a, ev, err);
			if (ret)
				return ret;
		}
	}
	return tick(a, (double)ev->enter_ns, err);
}

int kprof_agg_finish(struct kprof_agg *a, struct kprof_err *err)
{
	return retire(a, 1, err);
}
