// SPDX-License-Identifier: GPL-2.0
/*
 * Per-RISC L1 marker rings, the OP/COUNTERS record FIFO, and the DMA engine
 * that moves both into the span the core lends it, then "raises the
 * interrupt" by calling kprof_dma_complete() from its own work item.
 */
#include <linux/hrtimer.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "kprof_sim_priv.h"

/* Interrupt moderation: the engine runs this long after new data. */
#define KPROF_SIM_KICK_NS	(250 * NSEC_PER_USEC)
/* Spans capture_stop fills if the core keeps lending them. */
#define KPROF_SIM_FINAL_SPANS	64
/* An idle engine retires an empty descriptor after this long. */
#define KPROF_SIM_IDLE_FLUSH_NS	(100 * NSEC_PER_MSEC)

static u32 kprof_sim_nr_rings(const struct kprof_sim_dev *sd)
{
	return sd->num_cores * sd->num_riscs;
}

static struct kprof_rec_marker *kprof_sim_ring_mem(struct kprof_sim_dev *sd,
						   u32 ring)
{
	return sd->l1_mem + (size_t)ring * sd->l1_entries;
}

/* Lock-free running maximum for stats. */
static void kprof_sim_stat_max(atomic64_t *v, s64 x)
{
	s64 old = atomic64_read(v);

	while (x > old) {
		s64 cur = atomic64_cmpxchg(v, old, x);

		if (cur == old)
			break;
		old = cur;
	}
}

/* Queue the engine's work; notes when for the latency stat. */
static void kprof_sim_engine_queue(struct kprof_sim_dev *sd)
{
	if (!atomic64_read(&sd->kick_ns))
		atomic64_cmpxchg(&sd->kick_ns, 0, ktime_get_ns());
	queue_work(system_highpri_wq, &sd->engine_work);
}

void kprof_sim_engine_kick(struct kprof_sim_dev *sd, bool now)
{
	if (now) {
		kprof_sim_engine_queue(sd);
		return;
	}
	if (!atomic_read(&sd->kick_armed) && !atomic_xchg(&sd->kick_armed, 1))
		hrtimer_start(&sd->kick_timer, ns_to_ktime(KPROF_SIM_KICK_NS),
			      HRTIMER_MODE_REL_SOFT);
}

static bool kprof_sim_engine_run(struct kprof_sim_dev *sd, bool final);

/*
 * The engine's work item runs on the CPU that queued it, and in a VM on a
 * busy host that vCPU can be descheduled for hundreds of ms while the exec
 * thread keeps filling L1 on another one; a hardware DMA engine is never
 * descheduled. So a ring at its watermark makes the producer run a pass
 * itself, and a ring that would drop waits for a pass in progress (wait).
 * Without a descriptor (slow reader) or while stalled, the pass does
 * nothing and markers stay in L1, as before.
 */
static void kprof_sim_engine_assist(struct kprof_sim_dev *sd, bool wait)
{
	if (wait) {
		mutex_lock(&sd->engine_mutex);
	} else if (!mutex_trylock(&sd->engine_mutex)) {
		kprof_sim_engine_queue(sd);
		return;
	}
	atomic64_inc(&sd->stats.engine_assists);
	kprof_sim_engine_run(sd, false);
	mutex_unlock(&sd->engine_mutex);
}

/* A pass now could move something: a descriptor is held, no stall. */
static bool kprof_sim_engine_ready(struct kprof_sim_dev *sd)
{
	return READ_ONCE(sd->dma_have) && !READ_ONCE(sd->dma_done) &&
	       !READ_ONCE(sd->fault_dma_stall);
}

/* Producer: room for n markers in ring r, after a pass if it helps. */
static u32 kprof_sim_l1_tail(struct kprof_sim_dev *sd,
			     struct kprof_sim_l1 *r, u32 n)
{
	/* Pairs with the engine's release of tail: those slots are free. */
	u32 tail = smp_load_acquire(&r->tail), i;

	/* One pass: more would turn a slow reader into backpressure. */
	for (i = 0; i < 1 && sd->l1_entries - (r->head - tail) < n &&
	     kprof_sim_engine_ready(sd); i++) {
		kprof_sim_engine_assist(sd, true);
		/* As above: the pass's copies are done. */
		tail = smp_load_acquire(&r->tail);
	}
	return tail;
}

/* Producer: after adding to a ring that now holds fill markers. */
static void kprof_sim_l1_kick(struct kprof_sim_dev *sd, u32 fill, bool drop)
{
	kprof_sim_stat_max(&sd->stats.l1_max_fill, fill);
	/* A pass without a descriptor moves nothing: leave it to the kick. */
	if ((fill >= sd->l1_entries / 2 || drop) &&
	    kprof_sim_engine_ready(sd))
		kprof_sim_engine_assist(sd, false);
	else
		kprof_sim_engine_kick(sd, false);
}

static enum hrtimer_restart kprof_sim_kick_fn(struct hrtimer *t)
{
	struct kprof_sim_dev *sd = container_of(t, struct kprof_sim_dev,
						kick_timer);

	atomic_set(&sd->kick_armed, 0);
	kprof_sim_stat_max(&sd->stats.kick_max_late_ns,
			   ktime_to_ns(ktime_sub(ktime_get(),
						 hrtimer_get_expires(t))));
	kprof_sim_engine_queue(sd);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart kprof_sim_idle_fn(struct hrtimer *t)
{
	struct kprof_sim_dev *sd = container_of(t, struct kprof_sim_dev,
						idle_timer);

	kprof_sim_engine_queue(sd);
	return HRTIMER_NORESTART;
}

/* The next corrupt-fault markers get a flag and a garbage timestamp. */
static void kprof_sim_corrupt(struct kprof_sim_dev *sd,
			      struct kprof_rec_marker *m, u32 n)
{
	u32 i;

	for (i = 0; i < n && atomic_dec_if_positive(&sd->fault_corrupt) >= 0;
	     i++) {
		m[i].hdr.flags |= KPROF_RECF_CORRUPT;
		m[i].timestamp = get_random_u64();
		atomic64_inc(&sd->stats.corrupted);
	}
}

/*
 * Producer side (exec thread only): n markers of one op into one RISC's
 * ring. A full ring drops the newest markers, as the firmware would, and
 * counts them for a LOST record.
 */
void kprof_sim_l1_put(struct kprof_sim_dev *sd, u32 ring,
		      struct kprof_rec_marker *m, u32 n, u64 op_seq)
{
	struct kprof_sim_l1 *r = &sd->l1[ring];
	struct kprof_rec_marker *mem = kprof_sim_ring_mem(sd, ring);
	u32 mask = sd->l1_entries - 1;
	u32 head = r->head, tail = kprof_sim_l1_tail(sd, r, n);
	u32 fit = min(n, sd->l1_entries - (head - tail)), i;
	unsigned long flags;

	if (unlikely(atomic_read(&sd->fault_corrupt) > 0))
		kprof_sim_corrupt(sd, m, fit);
	for (i = 0; i < fit; i++)
		mem[(head + i) & mask] = m[i];
	/* Publish the markers before the engine can see the new head. */
	smp_store_release(&r->head, head + fit);
	atomic64_add(fit, &sd->stats.markers_written);

	if (fit < n) {
		spin_lock_irqsave(&sd->lost_lock, flags);
		if (!r->lost)
			r->lost_first_seq = op_seq;
		r->lost += n - fit;
		r->lost_last_seq = op_seq;
		r->dropped_total += n - fit;
		spin_unlock_irqrestore(&sd->lost_lock, flags);
		atomic64_add(n - fit, &sd->stats.markers_dropped);
	}
	/* At the watermark (or dropping), do not wait for moderation. */
	kprof_sim_l1_kick(sd, head + fit - tail, fit < n);
}

/*
 * n markers alternating a, b into consecutive slots. The templates are
 * locals so that they stay in registers: under TCG every guest memory
 * access is a soft-TLB lookup, and reloading them per marker doubled
 * the generator's cost (docs/performance.md, "Drain throughput").
 */
static void kprof_sim_fill2(struct kprof_rec_marker *dst, u32 n,
			    const struct kprof_rec_marker *even,
			    const struct kprof_rec_marker *odd)
{
	const struct kprof_rec_marker a = *even, b = *odd;
	u32 i;

	for (i = 0; i + 2 <= n; i += 2) {
		dst[i] = a;
		dst[i + 1] = b;
	}
	if (i < n)
		dst[i] = a;
}

/*
 * Marker storm fast path: n markers alternating between two templates,
 * straight into the ring, with no per-marker construction. Used only
 * while no corrupt fault is pending.
 */
void kprof_sim_l1_put2(struct kprof_sim_dev *sd, u32 ring,
		       const struct kprof_rec_marker *even,
		       const struct kprof_rec_marker *odd, u32 n)
{
	struct kprof_sim_l1 *r = &sd->l1[ring];
	struct kprof_rec_marker *mem = kprof_sim_ring_mem(sd, ring);
	u32 mask = sd->l1_entries - 1;
	u32 head = r->head, tail = kprof_sim_l1_tail(sd, r, n);
	u32 fit = min(n, sd->l1_entries - (head - tail));
	u32 off = head & mask, n1 = min(fit, sd->l1_entries - off);
	unsigned long flags;

	kprof_sim_fill2(mem + off, n1, even, odd);
	/* After a wrap the sequence goes on with whichever comes next. */
	if (n1 & 1)
		kprof_sim_fill2(mem, fit - n1, odd, even);
	else
		kprof_sim_fill2(mem, fit - n1, even, odd);
	/* Publish the markers before the engine can see the new head. */
	smp_store_release(&r->head, head + fit);
	atomic64_add(fit, &sd->stats.markers_written);
	if (fit < n) {
		spin_lock_irqsave(&sd->lost_lock, flags);
		if (!r->lost)
			r->lost_first_seq = 0;
		r->lost += n - fit;
		r->lost_last_seq = 0;
		r->dropped_total += n - fit;
		spin_unlock_irqrestore(&sd->lost_lock, flags);
		atomic64_add(n - fit, &sd->stats.markers_dropped);
	}
	kprof_sim_l1_kick(sd, head + fit - tail, fit < n);
}

/* Producer side of the record FIFO; size is a multiple of 8. */
void kprof_sim_fifo_put(struct kprof_sim_dev *sd, const void *rec, u32 size,
			u64 op_seq)
{
	/* Pairs with the engine's release of fifo_tail. */
	u32 head = sd->fifo_head, tail = smp_load_acquire(&sd->fifo_tail);
	u32 off = head & (sd->fifo_size - 1), n;
	unsigned long flags;

	if (sd->fifo_size - (head - tail) < size) {
		spin_lock_irqsave(&sd->lost_lock, flags);
		if (!sd->fifo_lost)
			sd->fifo_lost_first = op_seq;
		sd->fifo_lost++;
		sd->fifo_lost_last = op_seq;
		spin_unlock_irqrestore(&sd->lost_lock, flags);
		atomic64_inc(&sd->stats.fifo_dropped);
		kprof_sim_engine_kick(sd, true);
		return;
	}
	n = min(size, sd->fifo_size - off);
	memcpy(sd->fifo + off, rec, n);
	memcpy(sd->fifo, rec + n, size - n);
	/* Publish the record before the new head. */
	smp_store_release(&sd->fifo_head, head + size);
	atomic64_inc(&sd->stats.fifo_records);
	kprof_sim_engine_kick(sd, false);
}

/* Output cursor over the DMA span. */
struct kprof_sim_out {
	u8 *buf;
	u32 len, pos;
	struct kprof_dma_result res;
	u64 now_cycles;
};

static bool kprof_sim_out_lost(struct kprof_sim_out *o, u16 core, u8 risc,
			       u32 count, u64 first, u64 last)
{
	struct kprof_rec_lost rec;

	if (o->len - o->pos < sizeof(rec))
		return false;
	memset(&rec, 0, sizeof(rec));
	rec.hdr.type = KPROF_REC_LOST;
	rec.hdr.size = sizeof(rec);
	rec.core = core;
	rec.risc = risc;
	rec.count = count;
	rec.first_op_seq = first;
	rec.last_op_seq = last;
	rec.timestamp = o->now_cycles;
	memcpy(o->buf + o->pos, &rec, sizeof(rec));
	o->pos += sizeof(rec);
	o->res.records++;
	return true;
}

/* Producer positions of every ring, acquired before the FIFO's. */
static void kprof_sim_snap_l1(struct kprof_sim_dev *sd)
{
	u32 i, nr = kprof_sim_nr_rings(sd);

	for (i = 0; i < nr; i++) {
		/* Pairs with the producer's release of head. */
		sd->l1_snap[i] = smp_load_acquire(&sd->l1[i].head);
	}
}

/*
 * OP/COUNTERS records, oldest first, whole records only. Returns whether
 * everything queued at the start was copied.
 */
static bool kprof_sim_drain_fifo(struct kprof_sim_dev *sd,
				 struct kprof_sim_out *o)
{
	/* Pairs with the producer's release: records up to head are written. */
	u32 tail = sd->fifo_tail, head = smp_load_acquire(&sd->fifo_head);
	unsigned long flags;
	u32 count;
	u64 first, last;

	while (tail != head) {
		u32 off = tail & (sd->fifo_size - 1);
		const struct kprof_rec_hdr *h = (void *)(sd->fifo + off);
		u32 size = h->size, n;

		if (o->len - o->pos < size)
			break;
		n = min(size, sd->fifo_size - off);
		memcpy(o->buf + o->pos, sd->fifo + off, n);
		memcpy(o->buf + o->pos + n, sd->fifo, size - n);
		o->pos += size;
		o->res.records++;
		tail += size;
	}
	/* Copies are done before the producer may reuse the bytes. */
	smp_store_release(&sd->fifo_tail, tail);

	if (tail != head)
		return false;
	if (!READ_ONCE(sd->fifo_lost) ||
	    o->len - o->pos < sizeof(struct kprof_rec_lost))
		return true;
	spin_lock_irqsave(&sd->lost_lock, flags);
	count = sd->fifo_lost;
	first = sd->fifo_lost_first;
	last = sd->fifo_lost_last;
	sd->fifo_lost = 0;
	spin_unlock_irqrestore(&sd->lost_lock, flags);
	/* Records, not markers: not added to res.lost_markers. */
	kprof_sim_out_lost(o, KPROF_LOST_CORE_RECORDS,
			   KPROF_LOST_RISC_RECORDS, count, first, last);
	return true;
}

/*
 * The engine's copy, a record at a time rather than memcpy(): on CPUs
 * with ERMS the kernel's memcpy() is "rep movsb", which QEMU's TCG (the
 * VM lane) emulates a byte per step, about 8x slower than this loop
 * there. A simulated DMA engine should not cost the host more than the
 * path it feeds (docs/performance.md, "Drain throughput").
 */
static void kprof_sim_copy_markers(void *dst,
				   const struct kprof_rec_marker *src, u32 n)
{
	struct kprof_rec_marker *d = dst;
	u32 i;

	/* Two per turn: a TCG block ends at every branch. */
	for (i = 0; i + 2 <= n; i += 2) {
		d[i] = src[i];
		d[i + 1] = src[i + 1];
	}
	if (i < n)
		d[i] = src[i];
}

/*
 * Markers, round robin over the RISC rings starting one further each pass.
 * A ring's LOST record follows once what it held has been copied, so the
 * loss sits after the markers that preceded it.
 */
static void kprof_sim_drain_l1(struct kprof_sim_dev *sd,
			       struct kprof_sim_out *o)
{
	const u32 msz = sizeof(struct kprof_rec_marker);
	u32 nr = kprof_sim_nr_rings(sd), mask = sd->l1_entries - 1;
	u64 drained = 0;
	u32 i;

	for (i = 0; i < nr && o->len - o->pos >= msz; i++) {
		u32 ring = (sd->rr + i) % nr;
		struct kprof_sim_l1 *r = &sd->l1[ring];
		u32 tail = r->tail, head = sd->l1_snap[ring];
		u32 n = min(head - tail, (o->len - o->pos) / msz);
		u32 off = tail & mask, n1 = min(n, sd->l1_entries - off);
		struct kprof_rec_marker *mem = kprof_sim_ring_mem(sd, ring);
		unsigned long flags;
		u32 count;
		u64 first, last;

		kprof_sim_copy_markers(o->buf + o->pos, mem + off, n1);
		kprof_sim_copy_markers(o->buf + o->pos + n1 * msz, mem, n - n1);
		o->pos += n * msz;
		o->res.records += n;
		drained += n;
		/* Copies are done before the slots are handed back. */
		smp_store_release(&r->tail, tail + n);
		/* A span can be MiBs: let others run (no spinlock held). */
		cond_resched();

		if (!READ_ONCE(r->lost) || tail + n != head ||
		    o->len - o->pos < sizeof(struct kprof_rec_lost))
			continue;
		spin_lock_irqsave(&sd->lost_lock, flags);
		count = r->lost;
		first = r->lost_first_seq;
		last = r->lost_last_seq;
		r->lost = 0;
		spin_unlock_irqrestore(&sd->lost_lock, flags);
		kprof_sim_out_lost(o, ring / sd->num_riscs,
				   ring % sd->num_riscs, count, first, last);
		o->res.lost_markers += count;
	}
	sd->rr = (sd->rr + 1) % nr;
	atomic64_add(drained, &sd->stats.markers_drained);
}

/* Anything left for the engine to move or report. */
static bool kprof_sim_pending(struct kprof_sim_dev *sd)
{
	u32 i, nr = kprof_sim_nr_rings(sd);

	if (READ_ONCE(sd->fifo_head) != sd->fifo_tail ||
	    READ_ONCE(sd->fifo_lost))
		return true;
	for (i = 0; i < nr; i++)
		if (READ_ONCE(sd->l1[i].head) != sd->l1[i].tail ||
		    READ_ONCE(sd->l1[i].lost))
			return true;
	return false;
}

/*
 * One engine pass over the descriptor, engine_mutex held. final is the
 * drain at capture_stop: the completion is then always delivered and a
 * descriptor with nothing in it is cancelled rather than completed.
 * Returns whether a completion was delivered.
 */
static bool kprof_sim_engine_run(struct kprof_sim_dev *sd, bool final)
{
	struct kprof_sim_tref ref;
	struct kprof_sim_out o;
	struct kprof_device *kd;
	unsigned long flags;
	bool deliver = true;
	u64 submitted, now;

	spin_lock_irqsave(&sd->dma_lock, flags);
	kd = sd->dma_kd;
	if (!sd->dma_have || sd->dma_done) {
		bool pending = sd->dma_have && final;

		if (!final)
			atomic64_inc(&sd->stats.engine_idle_passes);

		/* A filled descriptor whose interrupt was dropped. */
		if (pending) {
			o.res = sd->dma_res;
			sd->dma_have = false;
			sd->dma_done = false;
		}
		spin_unlock_irqrestore(&sd->dma_lock, flags);
		if (pending) {
			atomic64_inc(&sd->stats.dma_completions);
			kprof_dma_complete(kd, &o.res);
		}
		return pending;
	}
	o.buf = sd->dma_desc.cpu_addr;
	o.len = sd->dma_desc.len;
	submitted = sd->dma_submit_ns;
	spin_unlock_irqrestore(&sd->dma_lock, flags);

	if (READ_ONCE(sd->fault_dma_stall)) {
		if (final) {
			spin_lock_irqsave(&sd->dma_lock, flags);
			sd->dma_have = false;
			spin_unlock_irqrestore(&sd->dma_lock, flags);
		}
		return false;
	}

	o.pos = 0;
	memset(&o.res, 0, sizeof(o.res));
	now = ktime_get_ns();
	kprof_sim_tref_snapshot(sd, &ref);
	o.now_cycles = kprof_sim_ns_to_cycles(&ref, now);
	/*
	 * Ring heads first, then the FIFO: an op's OP record is queued before
	 * its markers, so every marker seen here has its OP record in the
	 * FIFO snapshot, and markers go out only once that is drained.
	 */
	kprof_sim_snap_l1(sd);
	if (kprof_sim_drain_fifo(sd, &o))
		kprof_sim_drain_l1(sd, &o);
	o.res.bytes = o.pos;

	/*
	 * Nothing to move. Like a NIC's receive timeout, an engine that has
	 * held a descriptor idle for a while retires it empty, so that the
	 * host can tell an idle device from a stalled one; at once if the
	 * core asked for it back (dma_flush).
	 */
	if (!o.res.bytes && !final && !READ_ONCE(sd->dma_flush_req) &&
	    now - submitted < KPROF_SIM_IDLE_FLUSH_NS) {
		hrtimer_start(&sd->idle_timer,
			      ns_to_ktime(KPROF_SIM_IDLE_FLUSH_NS -
					  (now - submitted)),
			      HRTIMER_MODE_REL_SOFT);
		return false;
	}
	spin_lock_irqsave(&sd->dma_lock, flags);
	if (!o.res.bytes && final) {
		sd->dma_have = false;
		spin_unlock_irqrestore(&sd->dma_lock, flags);
		return false;
	}
	sd->dma_res = o.res;
	if (!final && atomic_read(&sd->fault_drop_irq) > 0 &&
	    atomic_dec_if_positive(&sd->fault_drop_irq) >= 0) {
		/* Done, but the interrupt is lost: only dma_poll sees it. */
		sd->dma_done = true;
		deliver = false;
	} else {
		sd->dma_have = false;
		sd->dma_gone_ns = now;
	}
	spin_unlock_irqrestore(&sd->dma_lock, flags);

	atomic64_add(o.res.bytes, &sd->stats.dma_bytes);
	if (deliver) {
		if (!o.res.bytes)
			atomic64_inc(&sd->stats.dma_empty_completions);
		atomic64_inc(&sd->stats.dma_completions);
		WRITE_ONCE(sd->completing, current);
		kprof_dma_complete(kd, &o.res);
		WRITE_ONCE(sd->completing, NULL);
		if (READ_ONCE(sd->dma_gone_ns))
			atomic64_inc(&sd->stats.dma_completions_unlent);
	} else {
		atomic64_inc(&sd->stats.dma_irqs_dropped);
	}
	return deliver;
}

static void kprof_sim_engine_work(struct work_struct *work)
{
	struct kprof_sim_dev *sd = container_of(work, struct kprof_sim_dev,
						engine_work);
	s64 kicked = atomic64_xchg(&sd->kick_ns, 0);

	atomic64_inc(&sd->stats.engine_passes);
	if (kicked)
		kprof_sim_stat_max(&sd->stats.engine_max_latency_ns,
				   ktime_get_ns() - kicked);
	mutex_lock(&sd->engine_mutex);
	kprof_sim_engine_run(sd, false);
	mutex_unlock(&sd->engine_mutex);
}

void kprof_sim_engine_cancel(struct kprof_sim_dev *sd)
{
	hrtimer_cancel(&sd->kick_timer);
	hrtimer_cancel(&sd->idle_timer);
	cancel_work_sync(&sd->engine_work);
	/* The work may have re-armed the idle timer. */
	hrtimer_cancel(&sd->idle_timer);
	atomic_set(&sd->kick_armed, 0);
}

/*
 * Empties rings and FIFO; the caller excludes producer and consumer.
 * Returns the markers still in L1 and adds the overflow counts that never
 * made it into a LOST record to *unreported.
 */
static u64 kprof_sim_l1_clear(struct kprof_sim_dev *sd, u64 *unreported)
{
	u32 i, nr = kprof_sim_nr_rings(sd);
	unsigned long flags;
	u64 left = 0;

	spin_lock_irqsave(&sd->lost_lock, flags);
	for (i = 0; i < nr; i++) {
		left += sd->l1[i].head - sd->l1[i].tail;
		*unreported += sd->l1[i].lost;
		sd->l1[i].head = 0;
		sd->l1[i].tail = 0;
		sd->l1[i].lost = 0;
	}
	sd->fifo_head = 0;
	sd->fifo_tail = 0;
	sd->fifo_lost = 0;
	spin_unlock_irqrestore(&sd->lost_lock, flags);
	return left;
}

int kprof_sim_capture_start(struct kprof_device *kd, u64 counter_mask)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);
	u64 all = GENMASK_ULL(KPROF_SIM_NUM_COUNTERS - 1, 0);
	u64 unreported = 0;

	mutex_lock(&sd->exec_mutex);
	mutex_lock(&sd->engine_mutex);
	kprof_sim_l1_clear(sd, &unreported);
	/* An op already running is named in this capture at its end. */
	sd->cur.op_emitted = false;
	counter_mask &= all;
	WRITE_ONCE(sd->counter_mask, counter_mask ? counter_mask : all);
	WRITE_ONCE(sd->paused, false);
	WRITE_ONCE(sd->capturing, true);
	mutex_unlock(&sd->engine_mutex);
	mutex_unlock(&sd->exec_mutex);
	return 0;
}

void kprof_sim_capture_stop(struct kprof_device *kd)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);
	u64 left, unreported = 0;
	unsigned long flags;
	int i;

	/* After this no marker or record is produced. */
	mutex_lock(&sd->exec_mutex);
	WRITE_ONCE(sd->capturing, false);
	mutex_unlock(&sd->exec_mutex);

	kprof_sim_engine_cancel(sd);
	mutex_lock(&sd->engine_mutex);
	/* A core that lends more spans while stopping gets them filled. */
	for (i = 0; i < KPROF_SIM_FINAL_SPANS; i++) {
		if (!kprof_sim_engine_run(sd, true) || !kprof_sim_pending(sd))
			break;
	}
	/* What the final drain could not fit is gone; say how much. */
	left = kprof_sim_l1_clear(sd, &unreported);
	atomic64_add(left, &sd->stats.discarded_at_stop);
	atomic64_add(unreported, &sd->stats.lost_unreported);
	spin_lock_irqsave(&sd->dma_lock, flags);
	sd->dma_have = false;
	sd->dma_done = false;
	spin_unlock_irqrestore(&sd->dma_lock, flags);
	mutex_unlock(&sd->engine_mutex);
}

void kprof_sim_capture_pause(struct kprof_device *kd, bool paused)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);

	WRITE_ONCE(sd->paused, paused);
}

int kprof_sim_dma_submit(struct kprof_device *kd,
			 const struct kprof_dma_desc *desc)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);
	unsigned long flags;

	if (!desc->cpu_addr || !desc->len || desc->len % 8)
		return -EINVAL;
	spin_lock_irqsave(&sd->dma_lock, flags);
	if (sd->dma_have) {
		spin_unlock_irqrestore(&sd->dma_lock, flags);
		return -EBUSY;
	}
	sd->dma_desc = *desc;
	sd->dma_kd = kd;
	sd->dma_submit_ns = ktime_get_ns();
	/* How long the engine went without a span (stats). */
	if (sd->dma_gone_ns && READ_ONCE(sd->capturing)) {
		u64 gap = sd->dma_submit_ns - sd->dma_gone_ns;

		kprof_sim_stat_max(&sd->stats.dma_gap_max_ns, gap);
		kprof_sim_stat_max(READ_ONCE(sd->completing) == current ?
				   &sd->stats.dma_gap_inline_max_ns :
				   &sd->stats.dma_gap_later_max_ns, gap);
	}
	sd->dma_gone_ns = 0;
	/* A flush request was for the previous descriptor. */
	WRITE_ONCE(sd->dma_flush_req, false);
	sd->dma_have = true;
	sd->dma_done = false;
	spin_unlock_irqrestore(&sd->dma_lock, flags);
	atomic64_inc(&sd->stats.dma_descs);
	kprof_sim_engine_kick(sd, true);
	return 0;
}

/* The core has records waiting: hand the span back soon, even empty. */
void kprof_sim_dma_flush(struct kprof_device *kd)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);

	WRITE_ONCE(sd->dma_flush_req, true);
	kprof_sim_engine_kick(sd, true);
}

bool kprof_sim_dma_poll(struct kprof_device *kd, struct kprof_dma_result *res)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);
	unsigned long flags;
	bool done = false;

	spin_lock_irqsave(&sd->dma_lock, flags);
	if (sd->dma_have && sd->dma_done) {
		*res = sd->dma_res;
		sd->dma_have = false;
		sd->dma_done = false;
		done = true;
	}
	spin_unlock_irqrestore(&sd->dma_lock, flags);
	if (done)
		atomic64_inc(&sd->stats.dma_polled);
	return done;
}

int kprof_sim_l1_init(struct kprof_sim_dev *sd)
{
	size_t nr = kprof_sim_nr_rings(sd);

	spin_lock_init(&sd->lost_lock);
	spin_lock_init(&sd->dma_lock);
	mutex_init(&sd->engine_mutex);
	INIT_WORK(&sd->engine_work, kprof_sim_engine_work);
	hrtimer_init(&sd->kick_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	sd->kick_timer.function = kprof_sim_kick_fn;
	hrtimer_init(&sd->idle_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	sd->idle_timer.function = kprof_sim_idle_fn;
	atomic_set(&sd->kick_armed, 0);
	atomic64_set(&sd->kick_ns, 0);

	/* Sized by module parameters: fail with -ENOMEM, never a splat. */
	sd->l1 = __vmalloc(array_size(nr, sizeof(*sd->l1)),
			   GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	sd->l1_snap = __vmalloc(array_size(nr, sizeof(*sd->l1_snap)),
				GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	sd->l1_mem = __vmalloc(kprof_sim_l1_size(sd),
			       GFP_KERNEL | __GFP_NOWARN);
	/*
	 * Per core and op a COUNTERS record is 96 bytes against 640 bytes
	 * of markers (5 RISCs, no zones); one marker's worth per L1 entry
	 * and core lets the FIFO ride out as long a DMA gap as L1 does.
	 */
	sd->fifo_size = roundup_pow_of_two(clamp_t(size_t,
						   (size_t)sd->num_cores *
						   sd->l1_entries * 32,
						   KPROF_SIM_FIFO_MIN,
						   KPROF_SIM_FIFO_MAX));
	sd->fifo = __vmalloc(sd->fifo_size, GFP_KERNEL | __GFP_NOWARN);
	if (!sd->l1 || !sd->l1_snap || !sd->l1_mem || !sd->fifo)
		return -ENOMEM;
	return 0;
}

/* Bytes of simulated L1 the device's rings take. */
size_t kprof_sim_l1_size(const struct kprof_sim_dev *sd)
{
	return array3_size(kprof_sim_nr_rings(sd), sd->l1_entries,
			   sizeof(*sd->l1_mem));
}

void kprof_sim_l1_free(struct kprof_sim_dev *sd)
{
	vfree(sd->l1);
	vfree(sd->l1_snap);
	vfree(sd->l1_mem);
	vfree(sd->fifo);
}
