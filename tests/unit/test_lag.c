// SPDX-License-Identifier: GPL-2.0
/*
 * The lateness meter (kprof_lag.h) on hand-made records: lateness from
 * the op's dispatch, ops found by the 32 bits a marker carries (also past
 * a 32-bit wrap), records for unknown ops counted, the slack's floor and
 * cap. test_report.c covers it inside a whole report.
 */
#include "kt.h"
#include "kprof_lag.h"

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
	KT_NEAR(l.max_lag_ns, 0, 0);

	sync_at(&l, 1000000);
	op_at(&l, big, 2000000);
	marker_at(&l, big, 2500000);			/* on time: 0.5 ms */
	KT_NEAR(l.max_lag_ns, 500000, 1);
	sync_at(&l, 900000000);				/* watermark 0.9 s */
	marker_at(&l, big, 2600000);			/* late: 0.898 s */
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

	/* slack: 1.25 x lateness + 50 ms, at least the floor, at most the cap */
	KT_EQ_U64(kprof_lag_slack(&l, 200000000, 30000000000ULL, &capped), 1235000000);
	KT_EQ_U64(capped, 0);
	KT_EQ_U64(kprof_lag_slack(&l, 2000000000, 30000000000ULL, &capped), 2000000000);
	KT_EQ_U64(kprof_lag_slack(&l, 200000000, 1000000000, &capped), 1000000000);
	KT_EQ_U64(capped, 1);
	kprof_lag_free(&l);
	return kt_done("test_lag");
}
