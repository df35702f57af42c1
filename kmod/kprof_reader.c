// SPDX-License-Identifier: GPL-2.0
/*
 * The consumer side of /dev/kprofN: read() of whole records, poll(),
 * KPROF_IOC_RING_CONSUME for mmap readers, and mmap of the ring and the
 * counter block.
 *
 * Records between tail and head are never touched by the producer, so
 * they are copied to user space without the producer lock; one consumer
 * at a time (cap->read_lock) keeps tail consistent.
 */
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "kprof_internal.h"

int kprof_capture_consume(struct kprof_file *kf, u64 pos)
{
	struct kprof_capture *cap = kprof_file_get_cap(kf);
	int ret;

	if (!cap)
		return READ_ONCE(kf->kd->cap) ? -EBUSY : -EINVAL;
	/*
	 * A read() on another thread or process sharing the file can hold
	 * this across a copy_to_user() that stalls (userfaultfd, FUSE): we
	 * may wait, but must stay killable.
	 */
	ret = mutex_lock_killable(&cap->read_lock);
	if (!ret) {
		ret = kprof_capture_advance(cap, pos);
		mutex_unlock(&cap->read_lock);
	}
	kprof_capture_put(cap);
	return ret;
}

struct kprof_copy {
	struct kprof_ring *ring;
	char __user *buf;
	size_t n;		/* bytes copied to buf */
	u64 run;		/* start of records checked, not yet copied */
};

/* Copy the run [c->run, end), which lies within one chunk. */
static int kprof_copy_run(struct kprof_copy *c, u64 end)
{
	size_t len = end - c->run;

	if (len && copy_to_user(c->buf + c->n, kprof_ring_ptr(c->ring, c->run),
				len))
		return -EFAULT;
	c->n += len;
	c->run = end;
	return 0;
}

/*
 * Copy whole records from *pos into buf. Returns bytes copied, or an
 * error if nothing was copied; *pos moves past what was copied and past
 * skipped PADs. Records are checked one by one but copied in runs, one
 * copy_to_user() per stretch of a chunk, which matters for 32-byte
 * markers. A run ends at a PAD or a chunk end (records never cross one).
 */
static ssize_t kprof_copy_records(struct kprof_capture *cap, char __user *buf,
				  size_t count, u64 *pos, u64 head)
{
	struct kprof_copy c = { .ring = cap->ring, .buf = buf, .run = *pos };
	struct kprof_rec_hdr hdr;
	u64 p = *pos;
	int err = 0;

	while (p < head) {
		u32 room = kprof_ring_room(c.ring, p);

		memcpy(&hdr, kprof_ring_ptr(c.ring, p), sizeof(hdr));
		if (hdr.size < sizeof(hdr) || !IS_ALIGNED(hdr.size, 8) ||
		    hdr.size > room || hdr.size > head - p ||
		    kprof_test_bad_record_step()) {
			/* A backend bug; the stream cannot be resynchronised. */
			dev_warn_ratelimited(cap->kd->dev,
					     "malformed record (type %u size %u) in ring\n",
					     hdr.type, hdr.size);
			err = -EIO;
			break;
		}
		if (hdr.type == KPROF_REC_PAD) {
			err = kprof_copy_run(&c, p);
			if (err)
				break;
			p += hdr.size;
			c.run = p;
			*pos = p;
			continue;
		}
		if (c.n + (p - c.run) + hdr.size > count) {
			err = -EINVAL;
			break;
		}
		p += hdr.size;
		if (hdr.size == room) {
			err = kprof_copy_run(&c, p);
			if (err)
				break;
			*pos = p;
		}
	}
	/* Whole, checked records before the stop point still go out. */
	if (err != -EFAULT) {
		if (kprof_copy_run(&c, p))
			err = -EFAULT;
		else
			*pos = p;
	}
	return c.n ? c.n : err;
}

ssize_t kprof_capture_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct kprof_file *kf = file->private_data;
	struct kprof_device *kd = kf->kd;
	struct kprof_capture *cap = kprof_file_get_cap(kf);
	u64 head, tail, pos;
	ssize_t ret;
	bool active;

	if (!cap)
		return READ_ONCE(kd->dead) ? -ENODEV : -EINVAL;

	for (;;) {
		if (!kprof_capture_readable(cap, &active)) {
			if (!active) {
				ret = 0;	/* stopped and drained: EOF */
				break;
			}
			if (file->f_flags & O_NONBLOCK) {
				ret = -EAGAIN;
				break;
			}
			ret = wait_event_interruptible(kd->read_wq,
						       kprof_capture_readable(cap, &active) ||
						       !active);
			if (ret)
				break;
			continue;
		}

		ret = mutex_lock_interruptible(&cap->read_lock);
		if (ret)
			break;
		kprof_capture_positions(cap, &head, &tail);
		pos = tail;
		ret = kprof_copy_records(cap, buf, count, &pos, head);
		if (pos != tail)
			WARN_ON_ONCE(kprof_capture_advance(cap, pos));
		mutex_unlock(&cap->read_lock);
		/* Only PADs (or another reader won): wait for more. */
		if (ret != 0)
			break;
	}
	kprof_capture_put(cap);
	return ret;
}

__poll_t kprof_capture_poll(struct file *file, struct poll_table_struct *wait)
{
	struct kprof_file *kf = file->private_data;
	struct kprof_device *kd = kf->kd;
	struct kprof_capture *cap;
	__poll_t mask = 0;
	bool active;

	poll_wait(file, &kd->read_wq, wait);
	cap = kprof_file_get_cap(kf);
	if (!cap)
		return READ_ONCE(kd->dead) ? EPOLLHUP | EPOLLERR : 0;
	if (kprof_capture_readable(cap, &active))
		mask |= EPOLLIN | EPOLLRDNORM;
	else if (!active)
		mask |= EPOLLHUP;
	if ((mask & EPOLLHUP) && READ_ONCE(cap->state) == KPROF_STATE_GONE)
		mask |= EPOLLERR;
	kprof_capture_put(cap);
	return mask;
}

/*
 * A backend that maps its counter block without vm_ops of its own gets
 * ours. They pin kd, not the parent device: the parent's release code is
 * the backend module's, which may be unloaded while the mapping lives.
 * Unregister zaps the mapping (kd->inode) before the backend frees the
 * block, and later faults get SIGBUS (no fault handler).
 */
static void kprof_counters_vm_open(struct vm_area_struct *vma)
{
	struct kprof_device *kd = vma->vm_private_data;

	kref_get(&kd->ref);
}

static void kprof_counters_vm_close(struct vm_area_struct *vma)
{
	kprof_device_put(vma->vm_private_data);
}

static const struct vm_operations_struct kprof_counters_vm_ops = {
	.open = kprof_counters_vm_open,
	.close = kprof_counters_vm_close,
};

static int kprof_counters_mmap(struct kprof_device *kd,
			       struct vm_area_struct *vma)
{
	int ret;

	if (!kd->hw.counter_block_size)
		return -EINVAL;
	if (vma->vm_end - vma->vm_start > PAGE_ALIGN(kd->hw.counter_block_size))
		return -EINVAL;

	if (down_read_killable(&kd->mmap_sem))
		return -EINTR;
	ret = kd->mmap_dead ? -ENODEV : kd->ops->mmap_counters(kd, vma);
	if (!ret && !vma->vm_ops) {
		/* kd, not the parent: the backend module may go first. */
		kref_get(&kd->ref);
		vma->vm_private_data = kd;
		vma->vm_ops = &kprof_counters_vm_ops;
	}
	up_read(&kd->mmap_sem);
	return ret;
}

int kprof_capture_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kprof_file *kf = file->private_data;
	struct kprof_capture *cap;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	int ret;

	if (off != KPROF_MMAP_RING && off != KPROF_MMAP_COUNTERS)
		return -EINVAL;
	/*
	 * Read-only and never executable, and mprotect() must not be able
	 * to change that; shared only (a private copy-on-write view of
	 * device memory makes no sense); not inherited by fork(): a child
	 * has no business in the parent's capture.
	 */
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	kprof_vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	kprof_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);

	if (off == KPROF_MMAP_COUNTERS) {
		/* Every user's work on the device shows in the counters. */
		ret = kprof_may_profile();
		return ret ? ret : kprof_counters_mmap(kf->kd, vma);
	}

	cap = kprof_file_get_cap(kf);
	if (!cap)
		return -EINVAL;
	ret = kprof_ring_mmap(cap->ring, vma);
	kprof_capture_put(cap);
	return ret;
}
