// SPDX-License-Identifier: GPL-2.0
/* Lateness meter for the retirement slack (kprof_lag.h). */
#include "kprof_lag.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define NO_SEQ	UINT64_MAX

int kprof_lag_init(struct kprof_lag *l, uint64_t ref_clock_hz, struct kprof_err *err)
{
	*l = (struct kprof_lag){ .ns_per_cycle = ref_clock_hz ? 1e9 / (double)ref_clock_hz : 1,
				 .wm = -INFINITY };
	l->ops = malloc(KPROF_LAG_OPS * sizeof(*l->ops));
	if (!l->ops)
		return kprof_err_set(err, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < KPROF_LAG_OPS; i++)
		l->ops[i].seq = NO_SEQ;
	return 0;
}

void kprof_lag_free(struct kprof_lag *l)
{
	free(l->ops);
	l->ops = NULL;
}

/* cycles -> host ns through the latest SYNC triple; NAN before one */
static inline double to_host(const struct kprof_lag *l, uint64_t cycles)
{
	if (!l->have_sync)
		return NAN;
	/* the difference first: one signed conversion, exact below 2^53 */
	return (double)l->sync_host_ns +
	       (double)(int64_t)(cycles - l->sync_cycles) * l->ns_per_cycle;
}

static inline void see(struct kprof_lag *l, double t)
{
	if (t > l->wm)
		l->wm = t;
}

/* The op's dispatch, found by the low 32 bits (markers carry no more). */
static inline const struct kprof_lag_op *dispatch(const struct kprof_lag *l, uint64_t seq,
						  int lo32)
{
	const struct kprof_lag_op *o = &l->ops[seq & (KPROF_LAG_OPS - 1)];

	if (o->seq == NO_SEQ)
		return NULL;
	if (lo32 ? (uint32_t)o->seq != (uint32_t)seq : o->seq != seq)
		return NULL;
	return o;
}

/* inline: once per marker of the capture (kprof_lag_rec) */
static inline __attribute__((always_inline))
void late(struct kprof_lag *l, uint64_t seq, int lo32)
{
	const struct kprof_lag_op *o = dispatch(l, seq, lo32);
	double d;

	if (!o) {
		l->unknown++;
		return;
	}
	d = l->wm - to_host(l, o->cycles);
	if (d > l->max_lag_ns) {	/* false for NAN */
		l->max_lag_ns = d;
		l->max_lag_seq = o->seq;
	}
}

void kprof_lag_rec(struct kprof_lag *l, const struct kprof_rec_hdr *rec)
{
	switch (rec->type) {
	case KPROF_REC_SYNC: {
		const struct kprof_rec_sync *s = (const void *)rec;

		if (s->host_after_ns < s->host_before_ns)
			return;	/* broken triple: the fit rejects it too */
		l->have_sync = 1;
		l->sync_host_ns = s->host_before_ns;
		l->sync_cycles = s->device_cycles;
		see(l, (double)s->host_before_ns);
		return;
	}
	case KPROF_REC_CLOCK:
		see(l, (double)((const struct kprof_rec_clock *)rec)->host_ns);
		return;
	case KPROF_REC_STATE:
		see(l, (double)((const struct kprof_rec_state *)rec)->host_ns);
		return;
	case KPROF_REC_OP: {
		const struct kprof_rec_op *r = (const void *)rec;

		l->ops[r->op_seq & (KPROF_LAG_OPS - 1)] =
			(struct kprof_lag_op){ r->op_seq, r->timestamp };
		see(l, to_host(l, r->timestamp));
		return;
	}
	case KPROF_REC_MARKER: {
		const struct kprof_rec_marker *r = (const void *)rec;

		see(l, to_host(l, r->timestamp));
		late(l, r->op_seq, 1);
		return;
	}
	case KPROF_REC_LOST: {
		const struct kprof_rec_lost *r = (const void *)rec;

		see(l, to_host(l, r->timestamp));
		late(l, r->first_op_seq < r->last_op_seq ? r->first_op_seq : r->last_op_seq, 0);
		return;
	}
	case KPROF_REC_COUNTERS:
		late(l, ((const struct kprof_rec_counters *)rec)->op_seq, 0);
		return;
	default:
		return;
	}
}

uint64_t kprof_lag_slack(const struct kprof_lag *l, uint64_t floor_ns, uint64_t cap_ns,
			 int *capped)
{
	double want = l->max_lag_ns * 1.25 + 50e6;

	*capped = 0;
	if (!(want > (double)floor_ns))
		return floor_ns;
	if (want >= (double)cap_ns) {
		*capped = 1;
		return cap_ns;
	}
	return (uint64_t)want;
}
