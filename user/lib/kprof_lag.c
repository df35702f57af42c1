// SPDX-License-Identifier: GPL-2.0
/* Lateness meter for the retirement slack (kprof_lag.h). */
#include "kprof_lag.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int kprof_lag_init(struct kprof_lag *l, uint64_t ref_clock_hz, struct kprof_err *err)
{
	*l = (struct kprof_lag){ .ns_per_cycle = ref_clock_hz ? 1e9 / (double)ref_clock_hz : 1,
				 .wm = -INFINITY, .sync_host = NAN,
				 .last_lo = KPROF_LAG_NO_SEQ };
	l->ops = malloc(KPROF_LAG_OPS * sizeof(*l->ops));
	if (!l->ops)
		return kprof_err_set(err, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < KPROF_LAG_OPS; i++)
		l->ops[i].seq = KPROF_LAG_NO_SEQ;
	return 0;
}

void kprof_lag_free(struct kprof_lag *l)
{
	free(l->ops);
	l->ops = NULL;
}

void kprof_lag_marker_slow(struct kprof_lag *l, const struct kprof_rec_marker *r)
{
	const struct kprof_lag_op *o;

	kprof_lag_end(l);
	o = kprof_lag_find(l, r->op_seq, 1);
	if (!o) {
		/* no run: each such marker is counted and seen on its own */
		kprof_lag_see(l, kprof_lag_to_host(l, r->timestamp));
		return;
	}
	l->last_lo = r->op_seq;
	l->last_seq = o->seq;
	l->last_dispatch = kprof_lag_to_host(l, o->cycles);
	l->run_max = (int64_t)(r->timestamp - l->sync_cycles);
}

void kprof_lag_rec_slow(struct kprof_lag *l, const struct kprof_rec_hdr *rec)
{
	kprof_lag_end(l);	/* ops[] or the SYNC may change */
	switch (rec->type) {
	case KPROF_REC_SYNC: {
		const struct kprof_rec_sync *s = (const void *)rec;

		if (s->host_after_ns < s->host_before_ns)
			return;	/* broken triple: the fit rejects it too */
		l->sync_host = (double)s->host_before_ns;
		l->sync_cycles = s->device_cycles;
		kprof_lag_see(l, (double)s->host_before_ns);
		return;
	}
	case KPROF_REC_CLOCK:
		kprof_lag_see(l, (double)((const struct kprof_rec_clock *)rec)->host_ns);
		return;
	case KPROF_REC_STATE:
		kprof_lag_see(l, (double)((const struct kprof_rec_state *)rec)->host_ns);
		return;
	case KPROF_REC_OP: {
		const struct kprof_rec_op *r = (const void *)rec;

		l->ops[r->op_seq & (KPROF_LAG_OPS - 1)] =
			(struct kprof_lag_op){ r->op_seq, r->timestamp };
		kprof_lag_see(l, kprof_lag_to_host(l, r->timestamp));
		return;
	}
	case KPROF_REC_MARKER:
		kprof_lag_marker(l, (const struct kprof_rec_marker *)rec);
		return;
	case KPROF_REC_LOST: {
		const struct kprof_rec_lost *r = (const void *)rec;

		kprof_lag_see(l, kprof_lag_to_host(l, r->timestamp));
		kprof_lag_late(l, r->first_op_seq < r->last_op_seq ?
			       r->first_op_seq : r->last_op_seq, 0);
		return;
	}
	case KPROF_REC_COUNTERS:
		kprof_lag_late(l, ((const struct kprof_rec_counters *)rec)->op_seq, 0);
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
