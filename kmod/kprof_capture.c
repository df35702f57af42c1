// SPDX-License-Identifier: GPL-2.0
/*
 * Capture life cycle and the producer side of the ring: lending spans to
 * the backend's DMA engine, committing completions, writing the core's own
 * records (SYNC, CLOCK, STATE) between spans, and the missed-completion
 * watchdog.
 *
 * Producer state lives under kd->prod_lock, taken with IRQs off because
 * kprof_dma_complete() may come from a hard IRQ. At most one descriptor is
 * in flight; the core writes into the ring only while none is, so records
 * stay in order and the backend never races the core for ring space.
 */
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "kprof_internal.h"

static void kprof_capture_release(struct kref *ref)
{
	struct kprof_capture *cap = container_of(ref, struct kprof_capture, ref);

	cap->ring->dirty = max(cap->hwm, cap->head);
	kprof_ring_stash(cap->kd, cap->ring);
	mutex_destroy(&cap->read_lock);
	kfree(cap);
}

void kprof_capture_put(struct kprof_capture *cap)
{
	kref_put(&cap->ref, kprof_capture_release);
}

struct kprof_capture *kprof_file_get_cap(struct kprof_file *kf)
{
	struct kprof_capture *cap;

	spin_lock(&kf->lock);
	cap = kf->cap;
	if (cap)
		kref_get(&cap->ref);
	spin_unlock(&kf->lock);
	return cap;
}

/* ------------------------------------------------------------------ */
/* Producer (kd->prod_lock held)                                       */
/* ------------------------------------------------------------------ */

static void kprof_publish_head(struct kprof_capture *cap)
{
	/* Pairs with the reader's acquire load: data before head. */
	smp_store_release(&cap->ring->ctrl->head, cap->head);
}

static u64 kprof_ring_free(struct kprof_capture *cap)
{
	return cap->ring->size - (cap->head - cap->tail);
}

/* Fill len bytes up to a chunk boundary; len < KPROF_MIN_SPAN < 64 KiB. */
static void kprof_ring_pad(struct kprof_capture *cap, u32 len)
{
	struct kprof_rec_hdr *hdr = kprof_ring_ptr(cap->ring, cap->head);

	hdr->type = KPROF_REC_PAD;
	hdr->size = len;
	hdr->flags = 0;
	cap->head += len;
}

/* Write one core record at head; false if the ring has no room for it. */
static bool kprof_ring_write(struct kprof_capture *cap, const void *rec,
			     u32 size)
{
	u32 room = kprof_ring_room(cap->ring, cap->head);

	if (room < size) {
		if (kprof_ring_free(cap) < room + size)
			return false;
		kprof_ring_pad(cap, room);
	}
	if (kprof_ring_free(cap) < size)
		return false;
	memcpy(kprof_ring_ptr(cap->ring, cap->head), rec, size);
	cap->head += size;
	cap->ring->ctrl->records++;
	return true;
}

static void kprof_flush_queue(struct kprof_capture *cap)
{
	struct kprof_core_rec *rec;

	while (cap->queue_len) {
		rec = &cap->queue[cap->queue_head];
		if (!kprof_ring_write(cap, rec->data, rec->size))
			break;
		cap->queue_head = (cap->queue_head + 1) % KPROF_CORE_QUEUE_LEN;
		cap->queue_len--;
	}
}

static void kprof_arm_watchdog(struct kprof_capture *cap)
{
	mod_timer(&cap->watchdog,
		  jiffies + msecs_to_jiffies(KPROF_DMA_WATCHDOG_MS));
}

/* Lend the backend the next span of free ring space, if worth it. */
static void kprof_submit(struct kprof_capture *cap)
{
	struct kprof_device *kd = cap->kd;
	struct kprof_ring *ring = cap->ring;
	struct kprof_dma_desc desc;
	u32 room = kprof_ring_room(ring, cap->head);
	u64 free = kprof_ring_free(cap);
	int ret;

	if (room < KPROF_MIN_SPAN) {
		/* Tail room too small to be useful: pad to the chunk end. */
		if (free < (u64)room + KPROF_MIN_SPAN)
			return;
		kprof_ring_pad(cap, room);
		free -= room;
		room = kprof_ring_room(ring, cap->head);
	}
	if (free < KPROF_MIN_SPAN)
		return;

	desc.cpu_addr = kprof_ring_ptr(ring, cap->head);
	desc.dma_addr = kprof_ring_dma(ring, cap->head);
	desc.len = min_t(u64, free, room);
	kprof_ring_sync_for_device(ring, cap->head, desc.len);
	ret = kd->ops->dma_submit(kd, &desc);
	if (ret) {
		/* Retried from the watchdog or when the reader moves. */
		kd->dma_submit_errors++;
		kprof_arm_watchdog(cap);
		return;
	}
	cap->dma_inflight = true;
	cap->dma_len = desc.len;
	cap->hwm = max(cap->hwm, cap->head + desc.len);
	cap->dma_submit_jiffies = jiffies;
	cap->dma_timeout_reported = false;
	cap->dma_flush_requested = false;
	kprof_arm_watchdog(cap);
}

/*
 * Make progress while no descriptor is in flight: write queued core
 * records, then lend the next span. Called after a completion, after the
 * reader freed space, and when a core record is queued. While the
 * backend's capture_stop drains, spans are lent only from its own
 * completions, so none can arrive after its final cancel.
 */
static void kprof_produce(struct kprof_capture *cap, bool completion)
{
	if (cap->dma_inflight)
		return;
	kprof_flush_queue(cap);
	if (cap->active && !cap->stopping && !cap->queue_len &&
	    (completion || !cap->draining))
		kprof_submit(cap);
	kprof_publish_head(cap);
}

/* Queue a core record; written at once if the DMA engine is idle. */
static void kprof_queue_record(struct kprof_capture *cap, const void *rec,
			       u16 size)
{
	const struct kprof_rec_hdr *hdr = rec;
	struct kprof_core_rec *slot;
	u32 limit = KPROF_CORE_QUEUE_LEN;

	if (hdr->type != KPROF_REC_STATE)
		limit -= KPROF_CORE_QUEUE_STATE_RESERVE;
	if (cap->queue_len >= limit ||
	    WARN_ON_ONCE(size > KPROF_CORE_REC_MAX)) {
		cap->ring->ctrl->lost_records++;
		return;
	}
	slot = &cap->queue[(cap->queue_head + cap->queue_len) %
			   KPROF_CORE_QUEUE_LEN];
	memcpy(slot->data, rec, size);
	slot->size = size;
	cap->queue_len++;
	if (!cap->dma_inflight) {
		kprof_produce(cap, false);
	} else if (!cap->dma_flush_requested && cap->kd->ops->dma_flush) {
		/* An idle device would sit on the span: ask for it back. */
		cap->dma_flush_requested = true;
		cap->kd->ops->dma_flush(cap->kd);
	}
}

void kprof_capture_queue_record(struct kprof_capture *cap, const void *rec,
				u16 size)
{
	if (cap->active && !cap->stopping)
		kprof_queue_record(cap, rec, size);
}

static void kprof_queue_state(struct kprof_capture *cap, u32 state,
			      u32 reason)
{
	struct kprof_rec_state rec = {
		.hdr = { .type = KPROF_REC_STATE, .size = sizeof(rec) },
		.host_ns = ktime_get_ns(),
		.state = state,
		.reason = reason,
	};

	kprof_queue_record(cap, &rec, sizeof(rec));
}

/* A descriptor finished, by interrupt or found by the watchdog. */
static void kprof_dma_done(struct kprof_capture *cap,
			   const struct kprof_dma_result *res)
{
	struct kprof_device *kd = cap->kd;
	struct kprof_ring_ctrl *ctrl = cap->ring->ctrl;
	u32 bytes = res->bytes;

	cap->dma_inflight = false;
	if (bytes > cap->dma_len || !IS_ALIGNED(bytes, 8)) {
		/* Cannot trust any of it; the reader would lose sync. */
		dev_warn_ratelimited(kd->dev,
				     "backend completed %u bytes of a %u byte span; dropped\n",
				     bytes, cap->dma_len);
		ctrl->lost_records += res->records;
		bytes = 0;
	} else {
		ctrl->records += res->records;
		ctrl->lost_markers += res->lost_markers;
		kd->markers_dropped += res->lost_markers;
	}
	/* Device writes to the span before our publication of head. */
	dma_rmb();
	kprof_ring_sync_for_cpu(cap->ring, cap->head, bytes);
	cap->head += bytes;
	kprof_produce(cap, true);
}

void kprof_dma_complete(struct kprof_device *kd,
			const struct kprof_dma_result *res)
{
	struct kprof_capture *cap;
	unsigned long flags;

	spin_lock_irqsave(&kd->prod_lock, flags);
	cap = kd->cap;
	/* Late completions after stop, or without a descriptor: ignore. */
	if (cap && cap->dma_inflight)
		kprof_dma_done(cap, res);
	else
		cap = NULL;
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	if (cap)
		wake_up_all(&kd->read_wq);
}
EXPORT_SYMBOL_NS_GPL(kprof_dma_complete, KPROF);

void kprof_clock_changed(struct kprof_device *kd, u32 mhz, bool locked)
{
	struct kprof_rec_clock rec = {
		.hdr = { .type = KPROF_REC_CLOCK, .size = sizeof(rec) },
		.mhz = mhz,
	};
	struct kprof_capture *cap;
	unsigned long flags;

	rec.host_ns = ktime_get_ns();
	rec.flags = kprof_clock_flags(kd, locked);
	spin_lock_irqsave(&kd->prod_lock, flags);
	cap = kd->cap;
	if (cap && cap->active && !cap->stopping) {
		/* The device timer cannot be read here: extrapolate. */
		rec.device_cycles = kprof_timesync_estimate_cycles(cap,
								   rec.host_ns);
		kprof_queue_record(cap, &rec, sizeof(rec));
	}
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	if (cap)
		wake_up_all(&kd->read_wq);
}
EXPORT_SYMBOL_NS_GPL(kprof_clock_changed, KPROF);

/*
 * Every 50 ms without a completion, ask the backend whether the
 * descriptor is done (a lost interrupt). After ~1 s say so in the stream,
 * once per descriptor, and keep waiting: the span stays lent because the
 * engine may still write it.
 */
static void kprof_watchdog(struct timer_list *t)
{
	struct kprof_capture *cap = from_timer(cap, t, watchdog);
	struct kprof_device *kd = cap->kd;
	unsigned long wait = msecs_to_jiffies(KPROF_DMA_WATCHDOG_MS);
	struct kprof_dma_result res;
	unsigned long flags;
	bool wake = false;

	spin_lock_irqsave(&kd->prod_lock, flags);
	if (!cap->active || cap->stopping)
		goto out;
	if (!cap->dma_inflight) {
		/* A submit failed earlier: try again. */
		kprof_produce(cap, false);
		wake = true;
		goto out;
	}
	if (time_before(jiffies, cap->dma_submit_jiffies + wait)) {
		/* Raced with a completion and a new submit. */
		mod_timer(&cap->watchdog, cap->dma_submit_jiffies + wait);
		goto out;
	}
	memset(&res, 0, sizeof(res));
	if (kd->ops->dma_poll(kd, &res)) {
		kd->dma_missed_irqs++;
		kprof_dma_done(cap, &res);
		wake = true;
		goto out;
	}
	if (!cap->dma_timeout_reported &&
	    time_after(jiffies, cap->dma_submit_jiffies +
		       msecs_to_jiffies(KPROF_DMA_TIMEOUT_MS))) {
		cap->dma_timeout_reported = true;
		kd->dma_timeouts++;
		dev_warn_ratelimited(kd->dev,
				     "DMA descriptor not completed after %u ms\n",
				     KPROF_DMA_TIMEOUT_MS);
		kprof_queue_state(cap, cap->state, KPROF_REASON_DMA_TIMEOUT);
	}
	kprof_arm_watchdog(cap);
out:
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	if (wake)
		wake_up_all(&kd->read_wq);
}

/* ------------------------------------------------------------------ */
/* Life cycle (kd->lock held)                                          */
/* ------------------------------------------------------------------ */

static int kprof_check_params(struct kprof_device *kd,
			      const struct kprof_capture_params *p,
			      u32 *ring_size, u32 *period, u64 *mask)
{
	/* num_counters <= KPROF_MAX_COUNTERS (32): the shift is defined. */
	u64 all = (1ULL << kd->hw.num_counters) - 1;

	if (p->flags & ~KPROF_CAPTURE_FLAGS_ALL)
		return -EINVAL;
	if (!kprof_mem_is_zero(p->reserved, sizeof(p->reserved)))
		return -EINVAL;

	*ring_size = p->ring_size ? p->ring_size : KPROF_RING_SIZE_DEFAULT;
	if (!is_power_of_2(*ring_size) || *ring_size < KPROF_RING_SIZE_MIN ||
	    *ring_size > KPROF_RING_SIZE_MAX)
		return -EINVAL;

	*period = p->sync_period_ms ? p->sync_period_ms :
		  KPROF_SYNC_PERIOD_DEFAULT_MS;
	if (*period > KPROF_SYNC_PERIOD_MAX_MS)
		return -EINVAL;

	if (p->counter_mask & ~all)
		return -EINVAL;
	*mask = p->counter_mask ? p->counter_mask : all;
	return 0;
}

/* Undo a capture that never got going: the backend keeps nothing. */
static void kprof_capture_abort(struct kprof_device *kd,
				struct kprof_capture *cap)
{
	unsigned long flags;

	spin_lock_irqsave(&kd->prod_lock, flags);
	cap->stopping = true;
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	timer_shutdown_sync(&cap->watchdog);
	kd->ops->capture_stop(kd);
	spin_lock_irqsave(&kd->prod_lock, flags);
	cap->dma_inflight = false;
	cap->active = false;
	kd->cap = NULL;
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	kprof_capture_put(cap);
}

int kprof_capture_start(struct kprof_file *kf,
			const struct kprof_capture_params *p)
{
	struct kprof_device *kd = kf->kd;
	struct kprof_capture *cap, *old;
	struct kprof_rec_sync sync;
	u32 ring_size, period;
	unsigned long flags;
	bool have_sync;
	u64 mask;
	int ret;

	lockdep_assert_held(&kd->lock);
	ret = kprof_check_params(kd, p, &ring_size, &period, &mask);
	if (ret)
		return ret;
	/* kd->cap only changes under kd->lock, which we hold. */
	if (kd->cap)
		return -EBUSY;

	cap = kzalloc(sizeof(*cap), GFP_KERNEL);
	if (!cap)
		return -ENOMEM;
	cap->ring = kprof_ring_get(kd, ring_size);
	if (IS_ERR(cap->ring)) {
		ret = PTR_ERR(cap->ring);
		kfree(cap);
		return ret;
	}
	kref_init(&cap->ref);
	mutex_init(&cap->read_lock);
	cap->kd = kd;
	cap->holder = kf;
	cap->sync_period_ms = period;
	cap->state = (p->flags & KPROF_CAPTURE_PAUSED) ? KPROF_STATE_PAUSED :
							 KPROF_STATE_RUNNING;
	cap->ring->ctrl->state = cap->state;
	timer_setup(&cap->watchdog, kprof_watchdog, 0);
	kprof_timesync_init(cap);

	have_sync = !kprof_sync_sample(kd, &sync);

	spin_lock_irqsave(&kd->prod_lock, flags);
	cap->active = true;
	kd->cap = cap;
	kprof_queue_state(cap, cap->state, KPROF_REASON_START);
	if (have_sync) {
		kprof_timesync_note(cap, &sync);
		kprof_queue_record(cap, &sync, sizeof(sync));
	}
	spin_unlock_irqrestore(&kd->prod_lock, flags);

	ret = kd->ops->capture_start(kd, mask);
	if (ret) {
		kprof_capture_abort(kd, cap);
		return ret;
	}
	/*
	 * capture_start() begins unpaused; pausing right away, before the
	 * ioctl returns, means nothing the caller launches afterwards is
	 * recorded until RESUME.
	 */
	if (cap->state == KPROF_STATE_PAUSED)
		kd->ops->capture_pause(kd, true);

	kd->holder = get_pid(task_tgid(current));
	get_task_comm(kd->holder_comm, current);
	kprof_timesync_start(cap);

	/* A stopped capture left on this fd is replaced. */
	spin_lock(&kf->lock);
	old = kf->cap;
	kf->cap = cap;
	spin_unlock(&kf->lock);
	if (old)
		kprof_capture_put(old);
	return 0;
}

/* End the device's capture, if any, leaving its data for the reader. */
void kprof_capture_stop_locked(struct kprof_device *kd, u32 state,
			       u32 reason)
{
	struct kprof_capture *cap;
	struct kprof_rec_sync sync;
	unsigned long flags;
	bool have_sync;

	lockdep_assert_held(&kd->lock);
	/* kd->cap only changes under kd->lock, which we hold. */
	cap = kd->cap;
	if (!cap)
		return;

	/* Nothing of ours calls the backend after this point but us. */
	timer_shutdown_sync(&cap->watchdog);
	kprof_timesync_stop(cap);
	/*
	 * Spans are still lent while the backend stops, so that it can
	 * drain what the device holds; the one lent when it returns was
	 * cancelled.
	 */
	spin_lock_irqsave(&kd->prod_lock, flags);
	cap->draining = true;
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	kd->ops->capture_stop(kd);
	have_sync = !kprof_sync_sample(kd, &sync);

	spin_lock_irqsave(&kd->prod_lock, flags);
	cap->stopping = true;
	cap->dma_inflight = false;
	kprof_queue_state(cap, state, reason);
	if (have_sync)
		kprof_queue_record(cap, &sync, sizeof(sync));
	/* Whatever still does not fit is lost, and counted. */
	cap->ring->ctrl->lost_records += cap->queue_len;
	cap->queue_len = 0;
	cap->state = state;
	WRITE_ONCE(cap->ring->ctrl->state, state);
	cap->active = false;
	kd->cap = NULL;
	kprof_publish_head(cap);
	spin_unlock_irqrestore(&kd->prod_lock, flags);

	put_pid(kd->holder);
	kd->holder = NULL;
	memset(kd->holder_comm, 0, sizeof(kd->holder_comm));
	wake_up_all(&kd->read_wq);
}

/* Holder check for STOP/PAUSE/RESUME: EBUSY if another fd holds it. */
static int kprof_check_holder(struct kprof_file *kf)
{
	struct kprof_capture *cap = kf->kd->cap;

	if (cap && cap->holder == kf)
		return 0;
	return cap ? -EBUSY : -EINVAL;
}

int kprof_capture_stop(struct kprof_file *kf)
{
	int ret = kprof_check_holder(kf);

	if (ret)
		return ret;
	kprof_capture_stop_locked(kf->kd, KPROF_STATE_STOPPED,
				  KPROF_REASON_STOP);
	return 0;
}

int kprof_capture_set_paused(struct kprof_file *kf, bool paused)
{
	struct kprof_device *kd = kf->kd;
	struct kprof_capture *cap = kd->cap;
	u32 state = paused ? KPROF_STATE_PAUSED : KPROF_STATE_RUNNING;
	unsigned long flags;
	int ret;

	ret = kprof_check_holder(kf);
	if (ret)
		return ret;
	/* Already there: nothing to do, no record. */
	if (cap->state == state)
		return 0;

	kd->ops->capture_pause(kd, paused);

	spin_lock_irqsave(&kd->prod_lock, flags);
	cap->state = state;
	WRITE_ONCE(cap->ring->ctrl->state, state);
	kprof_queue_state(cap, state, paused ? KPROF_REASON_PAUSE :
					       KPROF_REASON_RESUME);
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	wake_up_all(&kd->read_wq);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Consumer side helpers                                               */
/* ------------------------------------------------------------------ */

/* Snapshot for readers: true if records are waiting. */
bool kprof_capture_readable(struct kprof_capture *cap, bool *active)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&cap->kd->prod_lock, flags);
	ret = cap->head != cap->tail;
	if (active)
		*active = cap->active;
	spin_unlock_irqrestore(&cap->kd->prod_lock, flags);
	return ret;
}

/* Move the consumer position (cap->read_lock held) and refill. */
int kprof_capture_advance(struct kprof_capture *cap, u64 pos)
{
	struct kprof_device *kd = cap->kd;
	unsigned long flags;
	int ret = 0;

	lockdep_assert_held(&cap->read_lock);
	spin_lock_irqsave(&kd->prod_lock, flags);
	if (pos < cap->tail || pos > cap->head || !IS_ALIGNED(pos, 8)) {
		ret = -EINVAL;
	} else if (pos != cap->tail) {
		cap->tail = pos;
		WRITE_ONCE(cap->ring->ctrl->tail, pos);
		kprof_produce(cap, false);
	}
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	return ret;
}

/* Head and tail as the reader may use them (cap->read_lock held). */
void kprof_capture_positions(struct kprof_capture *cap, u64 *head, u64 *tail)
{
	unsigned long flags;

	spin_lock_irqsave(&cap->kd->prod_lock, flags);
	*head = cap->head;
	*tail = cap->tail;
	spin_unlock_irqrestore(&cap->kd->prod_lock, flags);
}
