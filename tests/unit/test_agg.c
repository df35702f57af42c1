// SPDX-License-Identifier: GPL-2.0
/* Aggregation engine on synthetic streams with known answers. */
#include "kt.h"
#include "kprof_agg.h"

#define MAXROWS 4096

static struct kprof_op_row rows[MAXROWS];
static int nrows;

/* the first row's cores (rows[].cores points at the engine's scratch) */
static struct kprof_core_time cores0[8];

static int collect(void *ctx, const struct kprof_op_row *r)
{
	(void)ctx;
	if (!nrows)
		memcpy(cores0, r->cores, (r->ncores < 8 ? r->ncores : 8) * sizeof(*cores0));
	if (nrows < MAXROWS)
		rows[nrows] = *r;
	nrows++;
	return 0;
}

static struct kprof_tsfit fit;	/* 1 cycle = 1 ns */

static struct kprof_agg *mk(uint64_t slack, uint64_t timeout)
{
	struct kprof_agg_config cfg = {
		.fit = &fit, .num_riscs = 5, .slack_ns = slack, .timeout_ns = timeout,
		.emit = collect,
	};
	struct kprof_err err;

	nrows = 0;
	return kprof_agg_new(&cfg, &err);
}

static void mark(struct kprof_agg *a, uint64_t seq, uint32_t core, uint8_t risc,
		 uint8_t kind, uint64_t ts)
{
	struct kprof_agg_marker m = { .op_seq = seq, .timestamp = ts, .core = core,
				      .risc = risc, .kind = kind };
	struct kprof_err err;

	KT_CHECK(kprof_agg_marker(a, &m, &err) == 0, "marker: %s", err.msg);
}

/* a full op on one core/risc: FW [s, s+d], kernel [s+10, s+d-10] */
static void op_on(struct kprof_agg *a, uint64_t seq, uint32_t core, uint8_t risc,
		  uint64_t s, uint64_t d)
{
	mark(a, seq, core, risc, KPROF_MARK_FW_START, s);
	mark(a, seq, core, risc, KPROF_MARK_KERNEL_START, s + 10);
	mark(a, seq, core, risc, KPROF_MARK_KERNEL_END, s + d - 10);
	mark(a, seq, core, risc, KPROF_MARK_FW_END, s + d);
}

static const struct kprof_op_row *row_of(uint64_t seq)
{
	for (int i = 0; i < nrows && i < MAXROWS; i++)
		if (rows[i].seq == seq)
			return &rows[i];
	return NULL;
}

int main(void)
{
	struct kprof_err err;
	struct kprof_agg *a;
	const struct kprof_op_row *r;

	kprof_tsfit_linear(&fit, 1.0, 0);

	/* 1. known answers: op 1 on cores 0..3, RISCs 0 and 1, with
	 * different spans; arrival interleaved across cores, core 3 last
	 */
	a = mk(0, 0);
	op_on(a, 1, 0, 0, 1000, 500);		/* kernel 1010..1490 */
	op_on(a, 1, 1, 0, 1100, 700);		/* kernel 1110..1790 */
	op_on(a, 1, 1, 1, 1050, 300);		/* kernel 1060..1340 */
	op_on(a, 1, 2, 1, 990, 100);		/* kernel 1000..1080 */
	op_on(a, 2, 0, 0, 3000, 100);		/* op 2 arrives before core 3 of op 1 */
	op_on(a, 1, 3, 0, 1200, 900);		/* kernel 1210..2090 */
	mark(a, 1, 3, 0, KPROF_MARK_ZONE_START, 1300);
	KT_CHECK(kprof_agg_finish(a, &err) == 0, "finish");
	KT_EQ_U64(nrows, 2);
	KT_EQ_U64(rows[0].seq, 1);	/* in seq order */
	KT_EQ_U64(rows[1].seq, 2);
	r = row_of(1);
	if (r) {
		KT_EQ_U64(r->fw_start_cycle, 990);
		KT_EQ_U64(r->fw_end_cycle, 2100);
		KT_NEAR(r->fw_duration_ns, 1110, 1e-9);
		KT_NEAR(r->kernel_duration_ns, 2090 - 1000, 1e-9);
		KT_EQ_U64(r->core_count, 4);
		/* per core kernel: c0 480, c1 1060..1790 = 730, c2 80, c3 880 */
		KT_NEAR(r->kernel_core_min_ns, 80, 1e-9);
		KT_NEAR(r->kernel_core_max_ns, 880, 1e-9);
		KT_NEAR(r->kernel_core_avg_ns, (480 + 730 + 80 + 880) / 4.0, 1e-9);
		/* per RISC: risc0 1010..2090 = 1080, risc1 1000..1340 = 340 */
		KT_NEAR(r->risc_kernel_ns[0], 1080, 1e-9);
		KT_NEAR(r->risc_kernel_ns[1], 340, 1e-9);
		KT_CHECK(isnan(r->risc_kernel_ns[2]), "risc 2 had no markers");
		KT_EQ_U64(r->markers, 21);
		KT_EQ_U64(r->zones, 1);
		KT_CHECK(isnan(r->op_to_op_ns), "first op has no predecessor");
		KT_EQ_U64(r->host_start_ns, KPROF_AGG_NONE);
	}
	r = row_of(2);
	if (r)
		KT_NEAR(r->op_to_op_ns, 3000 - 2100, 1e-9);
	kprof_agg_free(a);

	/* 2. LOST records, host events, counters */
	a = mk(0, 0);
	{
		struct kprof_host_event l1 = { .type = KPROF_HREC_IOCTL, .size = sizeof(l1),
			.enter_ns = 100, .exit_ns = 150, .role = KPROF_ROLE_LAUNCH, .seq = 1 };
		struct kprof_host_event l2 = l1, l3 = l1, s1 = l1, bad = l1;
		struct kprof_rec_lost lost = { .hdr = { KPROF_REC_LOST, sizeof(lost), 0 },
			.count = 5, .first_op_seq = 2, .last_op_seq = 3, .timestamp = 900 };
		struct { struct kprof_rec_counters c; uint64_t v[2]; } cnt = {
			.c = { .hdr = { KPROF_REC_COUNTERS, sizeof(cnt), 0 }, .op_seq = 1,
			       .counter_mask = 0x5, .core = 0 }, .v = { 10, 1000 } };

		l2.enter_ns = 160; l2.exit_ns = 170; l2.seq = 2;
		l3.enter_ns = 180; l3.exit_ns = 190; l3.seq = 3;
		bad.ret = -16; bad.seq = 99;
		struct kprof_host_event s0 = l1;

		s0.role = KPROF_ROLE_SYNC; s0.enter_ns = 155; s0.exit_ns = 435; s0.seq = 1;
		s1.role = KPROF_ROLE_SYNC; s1.enter_ns = 200; s1.exit_ns = 2000; s1.seq = 3;
		KT_CHECK(!kprof_agg_host_event(a, &l1, &err), "l1");
		KT_CHECK(!kprof_agg_host_event(a, &s0, &err), "s0");
		KT_CHECK(!kprof_agg_host_event(a, &l2, &err), "l2");
		KT_CHECK(!kprof_agg_host_event(a, &bad, &err), "failed launch");
		KT_CHECK(!kprof_agg_host_event(a, &l3, &err), "l3");
		KT_CHECK(!kprof_agg_host_event(a, &s1, &err), "s1");
		op_on(a, 1, 0, 0, 300, 100);
		op_on(a, 2, 0, 0, 500, 100);
		op_on(a, 3, 0, 0, 700, 100);
		KT_CHECK(!kprof_agg_device_rec(a, &lost.hdr, &err), "lost");
		{
			/* the device's record queue dropped 7 OP/COUNTERS
			 * records of ops 1-2: not markers
			 */
			struct kprof_rec_lost q = lost;

			q.core = KPROF_LOST_CORE_RECORDS;
			q.risc = KPROF_LOST_RISC_RECORDS;
			q.count = 7;
			q.first_op_seq = 1;
			q.last_op_seq = 2;
			KT_CHECK(!kprof_agg_device_rec(a, &q.hdr, &err), "records lost");
		}
		KT_CHECK(!kprof_agg_device_rec(a, &cnt.c.hdr, &err), "counters 0");
		cnt.c.core = 1;
		cnt.v[0] = 30;
		cnt.v[1] = 500;
		KT_CHECK(!kprof_agg_device_rec(a, &cnt.c.hdr, &err), "counters 1");
		{
			/* a counter past KPROF_MAX_COUNTERS: its value is not kept */
			__typeof__(cnt) hi = cnt;

			hi.c.core = 2;
			hi.c.counter_mask = 1ULL << 2 | 1ULL << 40;
			hi.v[0] = 700;
			hi.v[1] = 99999;
			KT_CHECK(!kprof_agg_device_rec(a, &hi.c.hdr, &err), "counters 2");
		}
		KT_CHECK(!kprof_agg_finish(a, &err), "finish");
		KT_EQ_U64(nrows, 3);	/* failed launch made no op */
		r = row_of(1);
		if (r) {
			KT_EQ_U64(r->host_start_ns, 100);
			KT_EQ_U64(r->host_end_ns, 150);
			KT_NEAR(r->launch_to_start_ns, 200, 1e-9);
			KT_NEAR(r->sync_wait_ns, 280, 1e-9);	/* s0 covered op 1 */
			KT_EQ_U64(r->sync_end_ns, 435);
			KT_EQ_U64(r->markers_lost, 0);
			KT_EQ_U64(r->counter_mask, 0x5);
			KT_EQ_U64(r->counter_cores[0], 2);
			KT_EQ_U64(r->counter_min[0], 10);
			KT_EQ_U64(r->counter_max[0], 30);
			KT_EQ_U64(r->counter_sum[0], 40);
			KT_EQ_U64(r->counter_cores[2], 3);
			KT_EQ_U64(r->counter_min[2], 500);
			KT_EQ_U64(r->counter_max[2], 1000);
			KT_EQ_U64(r->counter_sum[2], 2200);
		}
		r = row_of(2);
		KT_CHECK(r && r->markers_lost == 5, "op 2 lost");
		KT_CHECK(r && r->sync_wait_ns == 1800 && r->sync_end_ns == 2000, "op 2 sync");
		r = row_of(3);
		KT_CHECK(r && r->markers_lost == 5 && r->sync_wait_ns == 1800, "op 3 lost/sync");
		KT_EQ_U64(kprof_agg_stats(a)->lost_markers, 5);
		KT_EQ_U64(kprof_agg_stats(a)->lost_records, 2);
		KT_EQ_U64(kprof_agg_stats(a)->device_records_lost, 7);
		KT_EQ_U64(kprof_agg_stats(a)->device_records_lost_first, 1);
		KT_EQ_U64(kprof_agg_stats(a)->device_records_lost_last, 2);
		KT_EQ_U64(kprof_agg_stats(a)->launches, 4);
		KT_EQ_U64(kprof_agg_stats(a)->syncs, 2);
	}
	kprof_agg_free(a);

	/* 2b. "sync all" (seq 0): covers the ops launched before it */
	a = mk(0, 0);
	{
		struct kprof_host_event l = { .type = KPROF_HREC_IOCTL, .size = sizeof(l),
			.role = KPROF_ROLE_LAUNCH };
		struct kprof_host_event sa = l;

		sa.role = KPROF_ROLE_SYNC;
		for (uint64_t i = 1; i <= 4; i++) {
			l.seq = i;
			l.enter_ns = 100 * i;
			l.exit_ns = 100 * i + 10;
			kprof_agg_host_event(a, &l, &err);
			op_on(a, i, 0, 0, 1000 * i, 100);
			if (i == 2 || i == 4) {	/* sync all after ops 2 and 4 */
				sa.enter_ns = 100 * i + 50;
				sa.exit_ns = 100 * i + 50 + 7 * i;
				kprof_agg_host_event(a, &sa, &err);
			}
		}
		KT_CHECK(!kprof_agg_finish(a, &err), "finish");
		KT_EQ_U64(nrows, 4);
		KT_CHECK(nrows == 4 && rows[0].sync_wait_ns == 14 && rows[1].sync_wait_ns == 14 &&
			 rows[2].sync_wait_ns == 28 && rows[3].sync_wait_ns == 28,
			 "sync all waits %.0f %.0f %.0f %.0f", rows[0].sync_wait_ns,
			 rows[1].sync_wait_ns, rows[2].sync_wait_ns, rows[3].sync_wait_ns);
		KT_EQ_U64(kprof_agg_stats(a)->late_host_events, 0);
	}
	kprof_agg_free(a);

	/* 2c. a sync on an event (KPROF_HEVF_NO_COVER) is counted but is the
	 * sync of no op: the next ordinary one after the launch is
	 */
	a = mk(0, 0);
	{
		struct kprof_host_event l = { .type = KPROF_HREC_IOCTL, .size = sizeof(l),
			.role = KPROF_ROLE_LAUNCH };
		struct kprof_host_event se = l, ss = l;

		se.role = KPROF_ROLE_SYNC;
		ss.role = KPROF_ROLE_SYNC;
		se.flags = KPROF_HEVF_NO_COVER;
		for (uint64_t i = 1; i <= 2; i++) {
			l.seq = i;
			l.enter_ns = 100 * i;
			l.exit_ns = 100 * i + 10;
			kprof_agg_host_event(a, &l, &err);
			op_on(a, i, 0, 0, 1000 * i, 100);
		}
		se.seq = 3;		/* entered after both launches */
		se.enter_ns = 300;
		se.exit_ns = 305;
		kprof_agg_host_event(a, &se, &err);
		ss.seq = 4;
		ss.enter_ns = 400;
		ss.exit_ns = 430;
		kprof_agg_host_event(a, &ss, &err);
		KT_CHECK(!kprof_agg_finish(a, &err), "finish");
		KT_CHECK(nrows == 2 && rows[0].sync_wait_ns == 30 && rows[1].sync_wait_ns == 30 &&
			 rows[0].sync_end_ns == 430, "event sync passed over: %.0f %.0f",
			 nrows ? rows[0].sync_wait_ns : -1, nrows > 1 ? rows[1].sync_wait_ns : -1);
		KT_EQ_U64(kprof_agg_stats(a)->syncs, 2);
	}
	kprof_agg_free(a);

	/* 3. paused gap: ops retire on timeout while the stream is quiet for
	 * their cores; a marker for an op already written is counted late
	 */
	a = mk(1000, 1000000);
	op_on(a, 1, 0, 0, 1000, 100);
	op_on(a, 2, 0, 0, 2000, 100);
	/* 10 s pause, then a burst on another core only */
	for (uint64_t s = 3; s < 10; s++)
		op_on(a, s, 5, 0, 10000000000ULL + s * 1000, 100);
	for (int i = 0; i < 5000; i++)	/* enough inputs to trigger a check */
		mark(a, 9, 5, 1, KPROF_MARK_ZONE_START, 10000000000ULL + 9000 + (uint64_t)i);
	KT_CHECK(nrows >= 2, "ops 1, 2 retired during the stream: %d", nrows);
	mark(a, 1, 0, 0, KPROF_MARK_ZONE_END, 1050);	/* late */
	KT_EQ_U64(kprof_agg_stats(a)->late_markers, 1);
	KT_CHECK(!kprof_agg_finish(a, &err), "finish");
	KT_EQ_U64(nrows, 9);
	r = row_of(3);
	if (r)
		KT_NEAR(r->op_to_op_ns, 10000000000.0 + 3000 - 2100, 1e-3);
	r = row_of(1);
	KT_CHECK(r && r->markers == 4, "op 1 row unchanged by the late marker");
	kprof_agg_free(a);

	/* 4. memory bounded by ops in flight: 200k ops, 8 cores, in order */
	a = mk(5000, 50000);
	for (uint64_t s = 1; s <= 200000; s++)
		for (uint32_t c = 0; c < 8; c++)
			op_on(a, s, c, (uint8_t)(c % 5), s * 1000 + c, 900);
	KT_CHECK(!kprof_agg_finish(a, &err), "finish");
	KT_EQ_U64(nrows, 200000);
	KT_CHECK(kprof_agg_stats(a)->max_in_flight < 100, "in flight peaked at %llu",
		 (unsigned long long)kprof_agg_stats(a)->max_in_flight);
	/* every row correct: FW from core 0 start to core 7 end */
	{
		int bad = 0;

		for (int i = 0; i < MAXROWS; i++)
			bad += rows[i].fw_duration_ns != 907.0 || rows[i].core_count != 8 ||
			       rows[i].seq != (uint64_t)i + 1;
		KT_EQ_U64(bad, 0);
	}
	kprof_agg_free(a);

	/* 5. 32-bit op seqs in device records widen across the wrap */
	a = mk(0, 0);
	{
		struct kprof_rec_op op = { .hdr = { KPROF_REC_OP, sizeof(op), 0 },
			.op_seq = 0xfffffffeULL, .timestamp = 10, .clock_mhz = 1000 };
		struct kprof_rec_marker m = { .hdr = { KPROF_REC_MARKER, sizeof(m), 0 },
			.kind = KPROF_MARK_FW_START, .timestamp = 20 };

		strcpy(op.name, "matmul");
		KT_CHECK(!kprof_agg_device_rec(a, &op.hdr, &err), "op rec");
		m.op_seq = 0xfffffffe;
		kprof_agg_device_rec(a, &m.hdr, &err);
		m.op_seq = 1;		/* 0x1_0000_0001 */
		m.timestamp = 40;
		kprof_agg_device_rec(a, &m.hdr, &err);
		m.kind = 9;		/* invalid kind: skipped, counted */
		kprof_agg_device_rec(a, &m.hdr, &err);
		m.kind = KPROF_MARK_FW_END;
		m.hdr.flags = KPROF_RECF_CORRUPT;
		kprof_agg_device_rec(a, &m.hdr, &err);
		KT_CHECK(!kprof_agg_finish(a, &err), "finish");
		KT_EQ_U64(nrows, 2);
		KT_EQ_U64(rows[0].seq, 0xfffffffeULL);
		KT_STR(rows[0].op_code, "matmul");
		KT_EQ_U64(rows[0].clock_mhz, 1000);
		KT_EQ_U64(rows[1].seq, 0x100000001ULL);
		KT_EQ_U64(kprof_agg_stats(a)->bad_markers, 1);
		/* an OP record 2^40 ahead is corrupt: skipped, and later
		 * 32-bit marker seqs still widen against the real ones
		 */
		op.op_seq = 1ULL << 40;
		KT_CHECK(!kprof_agg_device_rec(a, &op.hdr, &err), "far op rec");
		KT_EQ_U64(kprof_agg_stats(a)->bad_seqs, 1);
		KT_EQ_U64(kprof_agg_stats(a)->corrupt_records, 1);
	}
	kprof_agg_free(a);

	/*
	 * 6. KPROF_AGG_NEVER: nothing is written before the end, however far
	 * the watermark moves (1 cycle = 1 s here: 2^64 ns apart), so that
	 * kprof_agg_core_rank, given just before it, names every op's cores
	 */
	kprof_tsfit_linear(&fit, 1e9, 0);
	a = mk(KPROF_AGG_NEVER, 0);
	op_on(a, 1, 0, 0, 0, 100);
	op_on(a, 1, 1, 0, 0, 50);
	op_on(a, 2, 0, 0, 100000000000ULL, 100);
	KT_EQ_U64(nrows, 0);
	{
		static const uint32_t rank[] = { 1, 0 };

		kprof_agg_core_rank(a, rank);
	}
	KT_CHECK(kprof_agg_finish(a, &err) == 0, "finish");
	KT_EQ_U64(nrows, 2);
	if (nrows == 2 && rows[0].ncores == 2) {
		/* by the new ids: old core 1 (50 s) is core 0 now */
		KT_EQ_U64(cores0[0].core, 0);
		KT_NEAR(cores0[0].fw_end_ns - cores0[0].fw_start_ns, 50e9, 1);
		KT_EQ_U64(cores0[1].core, 1);
	} else {
		KT_CHECK(0, "op 1: %d rows, %u cores", nrows, nrows ? rows[0].ncores : 0);
	}
	kprof_agg_free(a);
	kprof_tsfit_linear(&fit, 1.0, 0);
	return kt_done("test_agg");
}
