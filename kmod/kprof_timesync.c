// SPDX-License-Identifier: GPL-2.0
/*
 * Host/device time sync: (host-before, device, host-after) triples taken
 * through the backend's cross_timestamp op, periodically during a capture
 * (KPROF_REC_SYNC records) and on demand (KPROF_IOC_SYNC_SAMPLE). User
 * space fits them; the kernel only keeps the latest one to date CLOCK
 * records, which are queued where the device timer cannot be read.
 */
#include <linux/math64.h>
#include <linux/workqueue.h>

#include "kprof_internal.h"

int kprof_sync_sample(struct kprof_device *kd, struct kprof_rec_sync *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->hdr.type = KPROF_REC_SYNC;
	rec->hdr.size = sizeof(*rec);
	return kd->ops->cross_timestamp(kd, &rec->host_before_ns,
					&rec->device_cycles,
					&rec->host_after_ns);
}

/* Remember the latest triple (kd->prod_lock held). */
void kprof_timesync_note(struct kprof_capture *cap,
			 const struct kprof_rec_sync *rec)
{
	cap->have_sync = true;
	cap->sync_host_ns = rec->host_before_ns +
			    (rec->host_after_ns - rec->host_before_ns) / 2;
	cap->sync_cycles = rec->device_cycles;
}

/* Device cycles at host_ns from the latest triple (kd->prod_lock held). */
u64 kprof_timesync_estimate_cycles(struct kprof_capture *cap, u64 host_ns)
{
	u64 hz = cap->kd->hw.ref_clock_hz;
	u64 delta;

	if (!cap->have_sync)
		return 0;
	if (host_ns >= cap->sync_host_ns) {
		delta = mul_u64_u64_div_u64(host_ns - cap->sync_host_ns, hz,
					    NSEC_PER_SEC);
		return cap->sync_cycles + delta;
	}
	delta = mul_u64_u64_div_u64(cap->sync_host_ns - host_ns, hz,
				    NSEC_PER_SEC);
	return cap->sync_cycles - min(delta, cap->sync_cycles);
}

static void kprof_timesync_queue(struct kprof_capture *cap,
				 const struct kprof_rec_sync *rec)
{
	struct kprof_device *kd = cap->kd;
	unsigned long flags;

	spin_lock_irqsave(&kd->prod_lock, flags);
	if (cap->active && !cap->stopping) {
		kprof_timesync_note(cap, rec);
		kprof_capture_queue_record(cap, rec, sizeof(*rec));
	}
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	wake_up_all(&kd->read_wq);
}

static void kprof_timesync_work(struct work_struct *work)
{
	struct kprof_capture *cap = container_of(to_delayed_work(work),
						 struct kprof_capture,
						 sync_work);
	struct kprof_rec_sync rec;

	if (!kprof_sync_sample(cap->kd, &rec))
		kprof_timesync_queue(cap, &rec);
	schedule_delayed_work(&cap->sync_work,
			      msecs_to_jiffies(cap->sync_period_ms));
}

void kprof_timesync_init(struct kprof_capture *cap)
{
	INIT_DELAYED_WORK(&cap->sync_work, kprof_timesync_work);
}

void kprof_timesync_start(struct kprof_capture *cap)
{
	schedule_delayed_work(&cap->sync_work,
			      msecs_to_jiffies(cap->sync_period_ms));
}

/* Waits for a running sample; the work cannot re-arm itself after this. */
void kprof_timesync_stop(struct kprof_capture *cap)
{
	cancel_delayed_work_sync(&cap->sync_work);
}

/* kd->lock held (kprof_ioctl.c). */
long kprof_ioctl_sync_sample(struct kprof_file *kf, void *arg)
{
	struct kprof_sync_sample *s = arg;
	struct kprof_device *kd = kf->kd;
	struct kprof_rec_sync rec;
	int ret;

	if (s->reserved0 || !kprof_mem_is_zero(s->reserved, sizeof(s->reserved)))
		return -EINVAL;

	ret = kprof_sync_sample(kd, &rec);
	if (ret)
		return ret;
	/* A capture in progress gets the extra sample for its fit too. */
	if (kd->cap)
		kprof_timesync_queue(kd->cap, &rec);

	memset(s, 0, sizeof(*s));
	s->host_before_ns = rec.host_before_ns;
	s->device_cycles = rec.device_cycles;
	s->host_after_ns = rec.host_after_ns;
	return 0;
}
