/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lateness meter: how far behind the stream a device record can arrive.
 *
 * The aggregation engine (kprof_agg.h) writes an op once the watermark
 * (latest host time on any input) is `slack` past the op's last input. A
 * RISC whose L1 ring the DMA path serves late (host load, a slow kernel)
 * delivers its markers and LOST counts for an op seconds after the other
 * RISCs'; with a fixed slack they would arrive after the op's row was
 * written. Every record of the capture is fed here (by pass 1 of a report,
 * or by pass 2 as it goes, made again if the slack it assumed was too
 * short: kprof_report_spool.c), so that the slack covers the worst
 * lateness seen.
 *
 * Lateness of a MARKER, LOST or COUNTERS record = the watermark when it
 * arrives - its op's dispatch time (the OP record's timestamp; an op's
 * last input is never earlier than that). Device cycles are converted to
 * host time with the latest SYNC triple and the nominal rate: close
 * enough to size a slack (drift is ppm). Memory: a fixed ring of the last
 * KPROF_LAG_OPS dispatches.
 */
#ifndef KPROF_LAG_H
#define KPROF_LAG_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kprof.h>

#include "kprof_err.h"

#define KPROF_LAG_OPS	(1U << 16)	/* dispatches remembered */

struct kprof_lag {
	double ns_per_cycle;		/* of the reference timer */
	/* the latest SYNC's host time (NAN before one: every conversion
	 * is NAN then, with no test per marker) and device cycles
	 */
	double sync_host;
	uint64_t sync_cycles;
	double wm;			/* watermark, host ns */
	double max_lag_ns;		/* worst lateness seen */
	uint64_t max_lag_seq;		/* op it was for */
	uint64_t unknown;		/* records whose op's dispatch was
					 * not known (no OP record yet, or
					 * older than the ring)
					 */
	struct kprof_lag_op {
		uint64_t seq, cycles;
	} *ops;				/* KPROF_LAG_OPS, by seq */
	/*
	 * The run: consecutive markers of one op whose dispatch is known
	 * (nearly every marker is in one). Its op: the low 32 bits of its
	 * seq (KPROF_LAG_NO_SEQ: no run), its seq and dispatch in host
	 * time; run_max, the latest of its markers' times as cycles past
	 * the SYNC. The conversion is monotonic and the watermark only
	 * grows, so the worst lateness of a run's markers is its last's:
	 * a run is converted and measured once, when it ends (another op,
	 * a record of another type, kprof_lag_end()), with the same result
	 * as marker by marker.
	 */
	uint64_t last_lo;
	uint64_t last_seq;
	double last_dispatch;
	int64_t run_max;
};

int kprof_lag_init(struct kprof_lag *l, uint64_t ref_clock_hz, struct kprof_err *err);
void kprof_lag_free(struct kprof_lag *l);
#define KPROF_LAG_NO_SEQ	UINT64_MAX	/* an empty slot of ops[] */

/*
 * The per-marker part, inline: a report runs it once per marker
 * of the capture. kprof_lag_rec() is the interface; these are its parts.
 */

/* cycles -> host ns through the latest SYNC triple; NAN before one */
static inline double kprof_lag_to_host(const struct kprof_lag *l, uint64_t cycles)
{
	/* the difference first: one signed conversion, exact below 2^53 */
	return l->sync_host + (double)(int64_t)(cycles - l->sync_cycles) * l->ns_per_cycle;
}

static inline void kprof_lag_see(struct kprof_lag *l, double t)
{
	if (t > l->wm)
		l->wm = t;
}

/* The op's dispatch by seq (lo32: only its low 32 bits are known); NULL
 * when not known (counted).
 */
static inline const struct kprof_lag_op *kprof_lag_find(struct kprof_lag *l, uint64_t seq,
							int lo32)
{
	const struct kprof_lag_op *o = &l->ops[seq & (KPROF_LAG_OPS - 1)];

	if (o->seq == KPROF_LAG_NO_SEQ ||
	    (lo32 ? (uint32_t)o->seq != (uint32_t)seq : o->seq != seq)) {
		l->unknown++;
		return NULL;
	}
	return o;
}

/* A record for op seq, dispatched at host time dispatch, arrived now. */
static inline void kprof_lag_worst(struct kprof_lag *l, double dispatch, uint64_t seq)
{
	double d = l->wm - dispatch;

	if (d > l->max_lag_ns) {	/* false for NAN */
		l->max_lag_ns = d;
		l->max_lag_seq = seq;
	}
}

/*
 * The run's markers into the watermark, and their op's lateness: before
 * the results are read (max_lag_ns, max_lag_seq, wm), and before any
 * other record.
 */
static inline void kprof_lag_end(struct kprof_lag *l)
{
	if (l->last_lo == KPROF_LAG_NO_SEQ)
		return;
	/* kprof_lag_to_host() of the run's latest marker */
	kprof_lag_see(l, l->sync_host + (double)l->run_max * l->ns_per_cycle);
	l->last_lo = KPROF_LAG_NO_SEQ;
	kprof_lag_worst(l, l->last_dispatch, l->last_seq);
}

/* A record for op seq arrived (lo32: only its low 32 bits are known). */
static inline void kprof_lag_late(struct kprof_lag *l, uint64_t seq, int lo32)
{
	const struct kprof_lag_op *o = kprof_lag_find(l, seq, lo32);

	if (o)
		kprof_lag_worst(l, kprof_lag_to_host(l, o->cycles), o->seq);
}

/* a marker that does not continue the run: ends it, starts one */
void kprof_lag_marker_slow(struct kprof_lag *l, const struct kprof_rec_marker *r);

/* A marker (kprof_lag_late(l, r->op_seq, 1) at the run's end). */
static inline void kprof_lag_marker(struct kprof_lag *l, const struct kprof_rec_marker *r)
{
	int64_t d = (int64_t)(r->timestamp - l->sync_cycles);

	if (r->op_seq != l->last_lo) {
		kprof_lag_marker_slow(l, r);
		return;
	}
	if (d > l->run_max)
		l->run_max = d;
}

/* kprof_lag_rec() for every type */
void kprof_lag_rec_slow(struct kprof_lag *l, const struct kprof_rec_hdr *rec);

/* Every non-corrupt device record, in spool order. */
static inline void kprof_lag_rec(struct kprof_lag *l, const struct kprof_rec_hdr *rec)
{
	if (rec->type == KPROF_REC_MARKER)
		kprof_lag_marker(l, (const struct kprof_rec_marker *)rec);
	else
		kprof_lag_rec_slow(l, rec);
}

/*
 * The slack for pass 2: max(floor_ns, worst lateness x 1.25 + 50 ms),
 * at most cap_ns (*capped set when the lateness needed more); after
 * kprof_lag_end().
 */
uint64_t kprof_lag_slack(const struct kprof_lag *l, uint64_t floor_ns, uint64_t cap_ns,
			 int *capped);

#endif
