// SPDX-License-Identifier: GPL-2.0
/*
 * The lateness meter (kprof_lag.h) on hand-made records: lateness from
 * the op's dispatch, ops found by the 32 bits a marker carries (also past
 * a 32-bit wrap), records for unknown ops counted, the slack's floor and
 * cap; and on random streams, the same results as a meter that measures
 * marker by marker (the meter measures a run of one op's markers once).
 * test_report.c covers it inside a whole report.
 */
#include "kt.h"
#include "kprof_lag.h"

#include <math.h>
#include <string.h>

/* reference timer 1 GHz, device cycles = host ns + 5e9 */
#define DEV(h)	((uint64_t)(h) + 5000000000ULL)

static void sync_at(struct kprof_lag *l, uint64_t h)
{
	struct kprof_rec_sync s = { .hdr = { KPROF_REC_SYNC, sizeof(s), 0 },
		.host_before_ns = h, .device_cycles = DEV(h), .host_after_ns = h + 100 };

	kprof_lag_rec(l, &s.hdr);
}

static void op_at(struct kprof_lag *l, uint64_t seq, uint64_t h)
{
	struct kprof_rec_op o = { .hdr = { KPROF_REC_OP, sizeof(o), 0 },
		.op_seq = seq, .timestamp = DEV(h) };

	kprof_lag_rec(l, &o.hdr);
}

static void marker_at(struct kprof_lag *l, uint64_t seq, uint64_t h)
{
	struct kprof_rec_marker m = { .hdr = { KPROF_REC_MARKER, sizeof(m), 0 },
		.kind = KPROF_MARK_FW_END, .op_seq = (uint32_t)seq, .timestamp = DEV(h) };

	kprof_lag_rec(l, &m.hdr);
}

/*
 * The meter as it was, marker by marker: every marker converted, seen
 * and measured against its op's dispatch.
 */
struct ref {
	double npc, sync_host, wm, max_lag;
	uint64_t sync_cycles, max_seq, unknown;
	struct kprof_lag_op ops[KPROF_LAG_OPS];
};

static double ref_host(const struct ref *r, uint64_t cycles)
{
	return r->sync_host + (double)(int64_t)(cycles - r->sync_cycles) * r->npc;
}

static void ref_see(struct ref *r, double t)
{
	if (t > r->wm)
		r->wm = t;
}

static void ref_late(struct ref *r, uint64_t seq, int lo32)
{
	const struct kprof_lag_op *o = &r->ops[seq & (KPROF_LAG_OPS - 1)];
	double d;

	if (o->seq == KPROF_LAG_NO_SEQ ||
	    (lo32 ? (uint32_t)o->seq != (uint32_t)seq : o->seq != seq)) {
		r->unknown++;
		return;
	}
	d = r->wm - ref_host(r, o->cycles);
	if (d > r->max_lag) {
		r->max_lag = d;
		r->max_seq = o->seq;
	}
}

static void ref_rec(struct ref *r, const struct kprof_rec_hdr *h)
{
	switch (h->type) {
	case KPROF_REC_SYNC: {
		const struct kprof_rec_sync *s = (const void *)h;

		if (s->host_after_ns < s->host_before_ns)
			return;
		r->sync_host = (double)s->host_before_ns;
		r->sync_cycles = s->device_cycles;
		ref_see(r, (double)s->host_before_ns);
		return;
	}
	case KPROF_REC_OP: {
		const struct kprof_rec_op *o = (const void *)h;

		r->ops[o->op_seq & (KPROF_LAG_OPS - 1)] =
			(struct kprof_lag_op){ o->op_seq, o->timestamp };
		ref_see(r, ref_host(r, o->timestamp));
		return;
	}
	case KPROF_REC_MARKER: {
		const struct kprof_rec_marker *m = (const void *)h;

		ref_see(r, ref_host(r, m->timestamp));
		ref_late(r, m->op_seq, 1);
		return;
	}
	case KPROF_REC_LOST: {
		const struct kprof_rec_lost *l = (const void *)h;

		ref_see(r, ref_host(r, l->timestamp));
		ref_late(r, l->first_op_seq < l->last_op_seq ? l->first_op_seq :
			 l->last_op_seq, 0);
		return;
	}
	case KPROF_REC_COUNTERS:
		ref_late(r, ((const struct kprof_rec_counters *)h)->op_seq, 0);
		return;
	case KPROF_REC_STATE:
		ref_see(r, (double)((const struct kprof_rec_state *)h)->host_ns);
		return;
	default:
		return;
	}
}

/* a record header of type t for record r */
#define HDR(t, r)	((struct kprof_rec_hdr){ (t), sizeof(r), 0 })

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

/*
 * Random streams: runs of markers of a few ops (known, unknown, past a
 * 32-bit wrap), markers out of time order, SYNC (some broken), OP, LOST,
 * COUNTERS and STATE records between them; the results compared exactly
 * with the marker-by-marker meter at random points and at the end.
 */
static void against_reference(void)
{
	static struct ref r;
	struct kprof_lag l;
	struct kprof_err err;
	int diffs = 0;

	for (int round = 0; round < 40; round++) {
		uint64_t base = round % 3 ? 0 : 0xffffff00ULL, host = 1000000, seq = base + 1;

		KT_CHECK(kprof_lag_init(&l, round % 2 ? 1000000000ULL : 1350000000ULL, &err) == 0,
			 "init: %s", err.msg);
		memset(&r, 0, sizeof(r));
		r.npc = l.ns_per_cycle;
		r.sync_host = NAN;
		r.wm = -INFINITY;
		for (uint32_t i = 0; i < KPROF_LAG_OPS; i++)
			r.ops[i].seq = KPROF_LAG_NO_SEQ;
		for (int k = 0; k < 20000; k++) {
			union {
				struct kprof_rec_hdr h;
				struct kprof_rec_marker m;
				struct kprof_rec_sync s;
				struct kprof_rec_op o;
				struct kprof_rec_lost lo;
				struct kprof_rec_counters c;
				struct kprof_rec_state st;
			} u;
			uint64_t pick = rnd(100);

			memset(&u, 0, sizeof(u));
			host += rnd(20000);
			if (pick < 80) {
				/* mostly the newest op; some older, some never dispatched */
				uint64_t s = seq - (rnd(8) ? 0 : rnd(5)) + (rnd(50) ? 0 : 7);

				u.m.hdr = HDR(KPROF_REC_MARKER, u.m);
				u.m.op_seq = (uint32_t)s;
				u.m.timestamp = host * 2 - rnd(400000) + 5000000000ULL;
			} else if (pick < 85) {
				u.s.hdr = HDR(KPROF_REC_SYNC, u.s);
				u.s.host_before_ns = host;
				u.s.host_after_ns = rnd(10) ? host + 300 : host - 1;
				u.s.device_cycles = host * 2 + 5000000000ULL + rnd(1000);
			} else if (pick < 93) {
				u.o.hdr = HDR(KPROF_REC_OP, u.o);
				u.o.op_seq = ++seq;
				u.o.timestamp = host * 2 + 5000000000ULL - rnd(2000000);
			} else if (pick < 96) {
				u.lo.hdr = HDR(KPROF_REC_LOST, u.lo);
				u.lo.first_op_seq = seq - rnd(3);
				u.lo.last_op_seq = seq - rnd(3);
				u.lo.timestamp = host * 2 + 5000000000ULL;
			} else if (pick < 98) {
				u.c.hdr = HDR(KPROF_REC_COUNTERS, u.c);
				u.c.op_seq = seq - rnd(4);
			} else {
				u.st.hdr = HDR(KPROF_REC_STATE, u.st);
				u.st.host_ns = host + rnd(3000000);
			}
			kprof_lag_rec(&l, &u.h);
			ref_rec(&r, &u.h);
			if (rnd(500) == 0 || k == 19999) {
				kprof_lag_end(&l);
				diffs += memcmp(&l.max_lag_ns, &r.max_lag, sizeof(double)) != 0 ||
					 l.max_lag_seq != r.max_seq || l.unknown != r.unknown ||
					 memcmp(&l.wm, &r.wm, sizeof(double)) != 0;
			}
		}
		KT_CHECK(r.max_lag > 0 && r.unknown > 0, "round %d measures something", round);
		kprof_lag_free(&l);
	}
	KT_EQ_U64(diffs, 0);
}

int main(void)
{
	struct kprof_lag l;
	struct kprof_err err;
	int capped;
	const uint64_t big = 0x100000000ULL * 3 + 7;	/* past three wraps */

	KT_CHECK(kprof_lag_init(&l, 1000000000ULL, &err) == 0, "init: %s", err.msg);
	/* before any SYNC nothing converts: no lateness */
	op_at(&l, 1, 1000);
	marker_at(&l, 1, 2000);
	kprof_lag_end(&l);
	KT_NEAR(l.max_lag_ns, 0, 0);

	sync_at(&l, 1000000);
	op_at(&l, big, 2000000);
	marker_at(&l, big, 2500000);			/* on time: 0.5 ms */
	kprof_lag_end(&l);
	KT_NEAR(l.max_lag_ns, 500000, 1);
	sync_at(&l, 900000000);				/* watermark 0.9 s */
	marker_at(&l, big, 2600000);			/* late: 0.898 s */
	kprof_lag_end(&l);
	KT_NEAR(l.max_lag_ns, 898000000, 1);
	KT_EQ_U64(l.max_lag_seq, big);
	/* a LOST names its ops with all 64 bits; the earlier one counts */
	{
		struct kprof_rec_lost r = { .hdr = { KPROF_REC_LOST, sizeof(r), 0 },
			.count = 5, .first_op_seq = big + 1, .last_op_seq = big,
			.timestamp = DEV(950000000) };

		kprof_lag_rec(&l, &r.hdr);
		KT_NEAR(l.max_lag_ns, 948000000, 1);
	}
	/* an op with no OP record (or older than the ring): counted */
	marker_at(&l, 77, 3000000);
	KT_EQ_U64(l.unknown, 1);
	op_at(&l, big + KPROF_LAG_OPS, 960000000);	/* same slot: replaces big */
	marker_at(&l, big, 3000000);
	KT_EQ_U64(l.unknown, 2);
	kprof_lag_end(&l);

	/* slack: 1.25 x lateness + 50 ms, at least the floor, at most the cap */
	KT_EQ_U64(kprof_lag_slack(&l, 200000000, 30000000000ULL, &capped), 1235000000);
	KT_EQ_U64(capped, 0);
	KT_EQ_U64(kprof_lag_slack(&l, 2000000000, 30000000000ULL, &capped), 2000000000);
	KT_EQ_U64(kprof_lag_slack(&l, 200000000, 1000000000, &capped), 1000000000);
	KT_EQ_U64(capped, 1);
	kprof_lag_free(&l);
	against_reference();
	return kt_done("test_lag");
}
