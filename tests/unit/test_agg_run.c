// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_agg_marker_run() against the same records fed one by one: on
 * random streams (ops out of order and late, new cores, bad, corrupt and
 * zone markers, OP records, host events, a fit of several segments, a
 * short retirement slack), every row written and every statistic must be
 * the same, and the run must report the largest and last cycles it took.
 * Also kprof_ts_seg_upto() against the conversion it stands for.
 */
#include "kt.h"
#include "kprof_agg.h"

#define NREC	200000

/* FNV-1a over what a row says, field by field (no padding bytes) */
struct digest {
	uint64_t h, rows;
};

static void dig(struct digest *d, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		d->h = (d->h ^ b[i]) * 0x100000001b3ULL;
}

#define DIG(d, v) dig(d, &(v), sizeof(v))

static int collect(void *ctx, const struct kprof_op_row *r)
{
	struct digest *d = ctx;

	d->rows++;
	DIG(d, r->seq);
	dig(d, r->op_code, strnlen(r->op_code, sizeof(r->op_code)));
	DIG(d, r->core_count);
	DIG(d, r->clock_mhz);
	DIG(d, r->host_start_ns);
	DIG(d, r->host_end_ns);
	DIG(d, r->fw_start_cycle);
	DIG(d, r->fw_end_cycle);
	DIG(d, r->kernel_start_cycle);
	DIG(d, r->kernel_end_cycle);
	DIG(d, r->fw_start_ns);
	DIG(d, r->fw_end_ns);
	DIG(d, r->fw_duration_ns);
	DIG(d, r->kernel_duration_ns);
	DIG(d, r->kernel_core_min_ns);
	DIG(d, r->kernel_core_max_ns);
	DIG(d, r->kernel_core_avg_ns);
	DIG(d, r->risc_kernel_ns);
	DIG(d, r->op_to_op_ns);
	DIG(d, r->launch_to_start_ns);
	DIG(d, r->sync_wait_ns);
	DIG(d, r->sync_end_ns);
	DIG(d, r->markers);
	DIG(d, r->markers_lost);
	DIG(d, r->zones);
	DIG(d, r->counter_mask);
	for (uint32_t i = 0; i < r->ncores; i++) {
		DIG(d, r->cores[i].core);
		DIG(d, r->cores[i].fw_start_ns);
		DIG(d, r->cores[i].fw_end_ns);
	}
	for (uint32_t i = 0; i < r->nzone_spans; i++) {
		DIG(d, r->zone_spans[i].core);
		DIG(d, r->zone_spans[i].risc);
		DIG(d, r->zone_spans[i].zone_id);
		DIG(d, r->zone_spans[i].start_ns);
		DIG(d, r->zone_spans[i].end_ns);
	}
	return 0;
}

/*
 * The stream: device records back to back in dev[] (as a spool holds
 * them), and the order of inputs, each a device record's offset or a
 * host event
 */
struct input {
	int host;
	uint32_t off;
	struct kprof_host_event ev;
};

static unsigned char dev[NREC * 64];
static struct input in[NREC];
static struct kprof_tsfit fit;
static uint64_t rnd = 0x9e3779b97f4a7c15ULL;

static uint64_t pick(uint64_t n)
{
	return kt_xorshift(&rnd) % n;
}

static const struct kprof_rec_marker *marker_at(uint32_t off)
{
	return (const void *)&dev[off];
}

/*
 * Markers of a current op on 1-ncores_max cores, its RISCs' FW/KERNEL
 * markers in a random order; now and then another op's, a bad one, a
 * corrupt one, a zone marker, an OP record or a host event between them.
 */
static size_t gen(uint32_t ncores_max)
{
	uint64_t ts = 5000000, seq = 100;
	uint32_t off = 0;
	size_t n = 0;

	memset(dev, 0, sizeof(dev));
	while (n < NREC) {
		uint32_t cores = 1 + (uint32_t)pick(ncores_max);
		size_t len = 20 + pick(400);

		if (pick(4) == 0) {
			struct kprof_rec_op *o = (void *)&dev[off];

			o->hdr.type = KPROF_REC_OP;
			o->hdr.size = sizeof(*o);
			o->op_seq = seq;
			o->timestamp = ts;
			in[n++] = (struct input){ .off = off };
			off += sizeof(*o);
		}
		for (size_t i = 0; i < len && n < NREC; i++) {
			struct kprof_rec_marker *m = (void *)&dev[off];
			uint64_t r = pick(1000);

			ts += pick(3000);
			if (r < 5) {
				struct kprof_host_event *ev = &in[n].ev;

				in[n++].host = 1;
				ev->type = KPROF_HREC_IOCTL;
				ev->size = sizeof(*ev);
				ev->role = r < 3 ? KPROF_ROLE_LAUNCH : KPROF_ROLE_SYNC;
				ev->seq = seq + (r < 3);
				/* host ns: the fit's, near the device's now */
				ev->enter_ns = (uint64_t)kprof_tsfit_to_host(&fit, ts) -
					       pick(4000);
				ev->exit_ns = ev->enter_ns + pick(9000);
				continue;
			}
			m->hdr.type = KPROF_REC_MARKER;
			m->hdr.size = sizeof(*m);
			m->core = (uint16_t)pick(cores);
			m->risc = (uint8_t)pick(5);
			m->kind = (uint8_t)(KPROF_MARK_FW_START + pick(4));
			m->op_seq = (uint32_t)seq;
			m->timestamp = ts - pick(2000);
			if (r < 15)
				m->kind = (uint8_t)(KPROF_MARK_ZONE_START + pick(2));
			else if (r < 18)
				m->hdr.flags = KPROF_RECF_CORRUPT;
			else if (r < 20)
				m->risc = 6;			/* bad: 5 RISCs */
			else if (r < 21)
				m->kind = 9;			/* bad */
			else if (r < 22)
				m->core = 7000;			/* bad: 4096 cores */
			else if (r < 24)
				m->core = (uint16_t)(200 + pick(3000));	/* grows */
			else if (r < 30)
				m->op_seq = (uint32_t)(seq - pick(6));	/* older, maybe late */
			else if (r < 32)
				m->op_seq = (uint32_t)(seq + 1 + pick(3));
			else if (r < 33)
				m->timestamp -= pick(100000000);	/* far back */
			in[n++] = (struct input){ .off = off };
			off += sizeof(*m);
		}
		seq++;
		ts += pick(20000);
	}
	return n;
}

static struct kprof_agg *mk(struct digest *d, uint64_t slack, int zones)
{
	struct kprof_agg_config cfg = {
		/* a timeout for ops that a stray core holds back */
		.fit = &fit, .num_riscs = 5, .num_cores = 4096, .slack_ns = slack,
		.timeout_ns = slack == KPROF_AGG_NEVER ? 0 : slack * 4,
		.zone_spans = zones, .emit = collect, .ctx = d,
	};
	struct kprof_err err;
	struct kprof_agg *a = kprof_agg_new(&cfg, &err);

	KT_CHECK(a, "agg: %s", err.msg);
	return a;
}

static int feed1(struct kprof_agg *a, const struct input *i)
{
	const struct kprof_rec_marker *m = marker_at(i->off);
	struct kprof_err err;
	int ret;

	if (i->host)
		ret = kprof_agg_host_event(a, &i->ev, &err);
	else	/* an OP record's timestamp sits where a marker's does */
		ret = kprof_agg_device_rec_at(a, &m->hdr, kprof_tsfit_to_host(&fit, m->timestamp),
					      &err);
	KT_CHECK(ret == 0, "feed: %s", err.msg);
	return ret;
}

/* the stream one by one into a, and with runs into b; the same results */
static void compare(size_t n, uint64_t slack, int zones, uint64_t *runs, uint64_t *taken,
		    uint64_t *multi)
{
	struct digest da = { 0xcbf29ce484222325ULL, 0 }, db = da;
	struct kprof_agg *a = mk(&da, slack, zones), *b = mk(&db, slack, zones);
	struct kprof_err err;
	int bad = 0;

	if (!a || !b)
		goto out;
	for (size_t i = 0; i < n && !bad; i++) {
		const struct kprof_rec_marker *m = marker_at(in[i].off);
		struct kprof_agg_run run;
		struct kprof_ts_seg seg;
		struct kprof_agg_run_op want[KPROF_AGG_RUN_OPS];
		uint32_t nwant = 0;
		size_t k, max, j;

		bad = feed1(a, &in[i]) || feed1(b, &in[i]);
		if (bad || in[i].host || m->hdr.type != KPROF_REC_MARKER ||
		    (m->hdr.flags & KPROF_RECF_CORRUPT))
			continue;
		/* the segment that converted m; a random cut of it */
		kprof_tsfit_to_host(&fit, m->timestamp);
		seg = fit.cur;
		run = (struct kprof_agg_run){ .seg = &seg, .op_lo = m->op_seq,
					      .xlen = fit.cur_len < (1ULL << 63) ?
						      fit.cur_len : 1ULL << 63 };
		if (pick(3) == 0)
			run.xlen = m->timestamp - seg.dev0 + pick(20000);
		/* the device records before the next host event; at random
		 * fewer
		 */
		for (max = 0; i + 1 + max < n && !in[i + 1 + max].host; max++)
			;
		if (pick(4) == 0 && max > 50)
			max = pick(50);
		k = kprof_agg_marker_run(b, marker_at(in[i].off + sizeof(*m)), max, &run);
		KT_CHECK(k <= max, "run took %zu of %zu", k, max);
		/* the run's parts: its markers by op, in order */
		for (j = 0; j < k && !bad; j++) {
			const struct kprof_rec_marker *t = marker_at(in[i + 1 + j].off);
			uint64_t x = t->timestamp - seg.dev0;

			if (t->hdr.type != KPROF_REC_MARKER || x >= run.xlen ||
			    (j && t->op_seq != want[nwant - 1].op_lo &&
			     nwant == KPROF_AGG_RUN_OPS)) {
				KT_CHECK(0, "run took input %zu, not its to take", i + 1 + j);
				bad = 1;
				break;
			}
			if (!nwant || t->op_seq != want[nwant - 1].op_lo)
				want[nwant++] = (struct kprof_agg_run_op){ .op_lo = t->op_seq };
			want[nwant - 1].n++;
			if (x > want[nwant - 1].xmax)
				want[nwant - 1].xmax = x;
		}
		for (j = 0; j < k && !bad; j++)
			bad = feed1(a, &in[i + 1 + j]);
		/* in step: the same counts after every input or run */
		if (memcmp(kprof_agg_stats(a), kprof_agg_stats(b),
			   sizeof(struct kprof_agg_stats))) {
			KT_CHECK(0, "statistics differ after input %zu (slack %" PRIu64 ")",
				 i + k, slack);
			bad = 1;
		}
		if (k && !bad) {
			KT_EQ_U64(run.nops, nwant);
			KT_CHECK(run.nops == nwant &&
				 !memcmp(run.ops, want, nwant * sizeof(want[0])),
				 "the run's parts differ from its markers' (input %zu)", i);
			KT_EQ_U64(run.xlast, marker_at(in[i + k].off)->timestamp - seg.dev0);
			(*runs)++;
			*taken += k;
			*multi += nwant > 1;
		}
		i += k;
	}
	if (!bad) {
		KT_CHECK(kprof_agg_finish(a, &err) == 0, "finish a: %s", err.msg);
		KT_CHECK(kprof_agg_finish(b, &err) == 0, "finish b: %s", err.msg);
	}
	KT_EQ_U64(db.rows, da.rows);
	KT_CHECK(da.h == db.h, "rows differ (slack %" PRIu64 ", zones %d)", slack, zones);
	KT_CHECK(da.rows > 100, "only %" PRIu64 " rows", da.rows);
	KT_CHECK(!memcmp(kprof_agg_stats(a), kprof_agg_stats(b), sizeof(struct kprof_agg_stats)),
		 "statistics differ (slack %" PRIu64 ", zones %d)", slack, zones);
out:
	kprof_agg_free(a);
	kprof_agg_free(b);
}

/* kprof_ts_seg_upto(): the count of cycles at or below t, exactly */
static void seg_upto(void)
{
	for (int i = 0; i < 20000; i++) {
		struct kprof_ts_seg s = {
			.dev0 = kt_xorshift(&rnd),
			.host0 = (double)(kt_xorshift(&rnd) >> (pick(2) ? 4 : 40)),
			.ns_per_cycle = (double)(1 + pick(4000)) / 1000.0,
		};
		uint64_t len = pick(2) ? 1ULL << 63 : pick(1000000);
		double t = kprof_ts_seg_eval(&s, s.dev0 + pick(2000000)) +
			   (double)pick(3) - 1;
		uint64_t k = kprof_ts_seg_upto(&s, len, t);

		KT_CHECK(k <= len, "count %" PRIu64 " over len", k);
		if (k)
			KT_CHECK(kprof_ts_seg_eval(&s, s.dev0 + k - 1) <= t, "at %" PRIu64, k - 1);
		if (k < len)
			KT_CHECK(kprof_ts_seg_eval(&s, s.dev0 + k) > t, "at %" PRIu64, k);
	}
	{
		struct kprof_ts_seg s = { .dev0 = 10, .host0 = 5, .ns_per_cycle = -1 };

		KT_EQ_U64(kprof_ts_seg_upto(&s, 100, 1e9), 0);
		s.ns_per_cycle = NAN;
		KT_EQ_U64(kprof_ts_seg_upto(&s, 100, 1e9), 0);
		s.ns_per_cycle = 1;
		KT_EQ_U64(kprof_ts_seg_upto(&s, 100, INFINITY), 100);
		KT_EQ_U64(kprof_ts_seg_upto(&s, 100, NAN), 0);
		KT_EQ_U64(kprof_ts_seg_upto(&s, 100, 4), 0);
		KT_EQ_U64(kprof_ts_seg_upto(&s, 100, 5), 1);
	}
}

int main(void)
{
	struct kprof_sync_pt pts[40];
	struct kprof_err err;
	uint64_t runs = 0, taken = 0, multi = 0;
	size_t n;

	/* a 1.1 GHz device drifting 300 ppm, a SYNC every 0.5 ms of host time */
	for (int i = 0; i < 40; i++) {
		double host = 1e12 + i * 500000.0;

		pts[i] = (struct kprof_sync_pt){
			.host_before_ns = (uint64_t)host - 200,
			.device_cycles = (uint64_t)(4000000 + i * 500000.0 * 1.1 * 1.0003),
			.host_after_ns = (uint64_t)host + 200,
		};
	}
	KT_CHECK(kprof_tsfit_piecewise(pts, 40, 1.1e9, &fit, &err) == 0, "fit: %s", err.msg);
	KT_CHECK(fit.nseg > 2, "%zu segments", fit.nseg);
	seg_upto();
	n = gen(40);
	compare(n, 20000, 0, &runs, &taken, &multi);
	compare(n, 60000, 1, &runs, &taken, &multi);
	compare(n, 300000, 0, &runs, &taken, &multi);
	compare(n, 300000, 1, &runs, &taken, &multi);
	compare(n, 40000000, 0, &runs, &taken, &multi);
	compare(n, KPROF_AGG_NEVER, 1, &runs, &taken, &multi);
	/* one core: ops move on within a few markers, so that retirement
	 * turns on an op's last input time, which a run sets
	 */
	n = gen(1);
	compare(n, 20000, 0, &runs, &taken, &multi);
	compare(n, 5000, 1, &runs, &taken, &multi);
	n = gen(400);
	compare(n, 100000, 0, &runs, &taken, &multi);
	/* the runs took a good share, or the comparison says little */
	KT_CHECK(taken > (uint64_t)n, "runs took %" PRIu64 " of %zu x 5 inputs", taken, n);
	/* and runs over several ops */
	KT_CHECK(multi > 1000, "%" PRIu64 " of %" PRIu64 " runs over several ops", multi, runs);
	printf("runs %" PRIu64 " (%" PRIu64 " over several ops), markers in them %" PRIu64 "\n",
	       runs, multi, taken);
	kprof_tsfit_free(&fit);
	return kt_done("test_agg_run");
}
