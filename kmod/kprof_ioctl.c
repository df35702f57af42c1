// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl dispatch for /dev/kprofN: one table of commands, found by _IOC_NR
 * and direction, saying for each its struct, how small a struct may be, and
 * what the handler needs (device lock, live device). The size encoded in
 * the command number is not matched: the struct's own size field is the
 * version (kprof_uaccess.c), so a newer, larger struct reaches an older
 * kernel and an older, smaller one a newer kernel. Handlers get a kernel
 * copy of the struct and never touch user memory; the device lock is
 * never held across a user copy.
 */
#include <linux/capability.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include "kprof_internal.h"

/*
 * Who may profile the whole device (start a capture, which sees every
 * user's ops on it, or map the live counters), as perf_event_paranoid
 * and i915's perf_stream_paranoid decide it:
 *   1 (default): perfmon_capable() (CAP_PERFMON or CAP_SYS_ADMIN);
 *   0: anyone who can open the node read-write (udev: group kprof).
 */
static int kprof_paranoid = 1;
module_param_named(paranoid, kprof_paranoid, int, 0644);
MODULE_PARM_DESC(paranoid,
		 "1: device-wide capture and counters need CAP_PERFMON (default); 0: any opener of /dev/kprofN (group kprof)");

/* 0, or -EACCES when the paranoid setting refuses this process. */
int kprof_may_profile(void)
{
	return READ_ONCE(kprof_paranoid) <= 0 || perfmon_capable() ? 0 :
	       -EACCES;
}

/* kprof_ioctl_desc.flags */
#define KPROF_IOCF_LOCK		BIT(0)	/* kd->lock held, device live */
#define KPROF_IOCF_DEAD_OK	BIT(1)	/* also after the device is gone */
#define KPROF_IOCF_RAW		BIT(2)	/* a plain value: no size field */
#define KPROF_IOCF_WRITE	BIT(3)	/* changes state: fd open for writing */
#define KPROF_IOCF_PROFILE	BIT(4)	/* device-wide: kprof_may_profile() */

struct kprof_ioctl_desc {
	unsigned int cmd;
	u32 flags;
	u16 ksize;		/* our struct; 0: no argument */
	u16 min;		/* smallest struct accepted */
	long (*fn)(struct kprof_file *kf, void *arg);
};

/* A struct ending in reserved words: those may be missing. */
#define KPROF_IOCTL(c, type, tail, f, fl) \
	{ .cmd = (c), .flags = (fl), .ksize = sizeof(type), \
	  .min = offsetof(type, tail), .fn = (f) }
#define KPROF_IOCTL_RAW(c, type, f, fl) \
	{ .cmd = (c), .flags = (fl) | KPROF_IOCF_RAW, \
	  .ksize = sizeof(type), .min = sizeof(type), .fn = (f) }
#define KPROF_IOCTL_NOARG(c, f, fl) \
	{ .cmd = (c), .flags = (fl), .fn = (f) }

static long kprof_ioctl_info(struct kprof_file *kf, void *arg)
{
	struct kprof_device_info *info = arg;
	struct kprof_device *kd = kf->kd;
	struct kprof_hw_clock clk = {};
	unsigned long flags;
	u32 i;

	if (!kprof_mem_is_zero(info->reserved, sizeof(info->reserved)))
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	kd->ops->get_clock(kd, &clk);
	info->clock_flags = kprof_clock_flags(kd, clk.locked);
	/* In the caller's pid namespace; a holder outside it is 0. */
	info->capture_pid = pid_vnr(kd->holder);
	if (info->capture_pid)
		strscpy(info->capture_comm, kd->holder_comm,
			sizeof(info->capture_comm));
	info->version = KPROF_UAPI_VERSION;
	info->device_id = kd->id;
	info->num_cores = kd->hw.num_cores;
	info->grid_x = kd->hw.grid_x;
	info->grid_y = kd->hw.grid_y;
	info->riscs_per_core = kd->hw.riscs_per_core;
	info->num_counters = kd->hw.num_counters;
	info->ref_clock_hz = kd->hw.ref_clock_hz;
	info->clock_mhz = clk.mhz;
	info->clock_min_mhz = kd->hw.clock_min_mhz;
	info->clock_base_mhz = kd->hw.clock_base_mhz;
	info->clock_max_mhz = kd->hw.clock_max_mhz;
	spin_lock_irqsave(&kd->prod_lock, flags);
	info->markers_dropped = kd->markers_dropped;
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	info->l1_ring_entries = kd->hw.l1_ring_entries;
	info->counter_block_size = kd->hw.counter_block_size;
	strscpy(info->backend, kd->backend_name, sizeof(info->backend));
	kprof_test_info_step();
	strscpy(info->name, kd->parent_name, sizeof(info->name));
	for (i = 0; i < kd->hw.riscs_per_core; i++)
		strscpy(info->risc_names[i], kd->risc_names[i],
			sizeof(info->risc_names[i]));
	return 0;
}

/* Static description: no lock needed. */
static long kprof_ioctl_counters(struct kprof_file *kf, void *arg)
{
	struct kprof_counter_info *ci = arg;
	struct kprof_device *kd = kf->kd;

	if (!kprof_mem_is_zero(ci->reserved, sizeof(ci->reserved)))
		return -EINVAL;
	memset(ci, 0, sizeof(*ci));
	ci->num_counters = kd->hw.num_counters;
	memcpy(ci->desc, kd->counters,
	       kd->hw.num_counters * sizeof(ci->desc[0]));
	return 0;
}

static long kprof_ioctl_capture_start(struct kprof_file *kf, void *arg)
{
	return kprof_capture_start(kf, arg);
}

static long kprof_ioctl_capture_stop(struct kprof_file *kf, void *arg)
{
	return kprof_capture_stop(kf);
}

static long kprof_ioctl_capture_pause(struct kprof_file *kf, void *arg)
{
	return kprof_capture_set_paused(kf, true);
}

static long kprof_ioctl_capture_resume(struct kprof_file *kf, void *arg)
{
	return kprof_capture_set_paused(kf, false);
}

/* The consumer side needs no device, only the ring. */
static long kprof_ioctl_ring_consume(struct kprof_file *kf, void *arg)
{
	return kprof_capture_consume(kf, *(u64 *)arg);
}

static const struct kprof_ioctl_desc kprof_ioctls[] = {
	KPROF_IOCTL(KPROF_IOC_INFO, struct kprof_device_info, reserved,
		    kprof_ioctl_info, KPROF_IOCF_LOCK),
	KPROF_IOCTL(KPROF_IOC_COUNTERS, struct kprof_counter_info, reserved,
		    kprof_ioctl_counters, 0),
	KPROF_IOCTL(KPROF_IOC_CAPTURE_START, struct kprof_capture_params,
		    reserved, kprof_ioctl_capture_start,
		    KPROF_IOCF_LOCK | KPROF_IOCF_WRITE | KPROF_IOCF_PROFILE),
	KPROF_IOCTL_NOARG(KPROF_IOC_CAPTURE_STOP, kprof_ioctl_capture_stop,
			  KPROF_IOCF_LOCK | KPROF_IOCF_WRITE),
	KPROF_IOCTL_NOARG(KPROF_IOC_CAPTURE_PAUSE, kprof_ioctl_capture_pause,
			  KPROF_IOCF_LOCK | KPROF_IOCF_WRITE),
	KPROF_IOCTL_NOARG(KPROF_IOC_CAPTURE_RESUME,
			  kprof_ioctl_capture_resume,
			  KPROF_IOCF_LOCK | KPROF_IOCF_WRITE),
	KPROF_IOCTL_RAW(KPROF_IOC_RING_CONSUME, u64, kprof_ioctl_ring_consume,
			KPROF_IOCF_DEAD_OK),
	KPROF_IOCTL(KPROF_IOC_CLOCK_GET, struct kprof_clock_state, reserved,
		    kprof_ioctl_clock_get, KPROF_IOCF_LOCK),
	KPROF_IOCTL(KPROF_IOC_CLOCK_SET, struct kprof_clock_req, reserved,
		    kprof_ioctl_clock_set, KPROF_IOCF_LOCK | KPROF_IOCF_WRITE),
	KPROF_IOCTL(KPROF_IOC_SYNC_SAMPLE, struct kprof_sync_sample, reserved,
		    kprof_ioctl_sync_sample, KPROF_IOCF_LOCK),
};

static const struct kprof_ioctl_desc *kprof_ioctl_find(unsigned int cmd)
{
	const struct kprof_ioctl_desc *d;

	if (_IOC_TYPE(cmd) != KPROF_IOC_MAGIC)
		return NULL;
	/* The number and direction identify a command; the size does not. */
	for (d = kprof_ioctls; d < kprof_ioctls + ARRAY_SIZE(kprof_ioctls); d++)
		if (_IOC_NR(d->cmd) == _IOC_NR(cmd) &&
		    _IOC_DIR(d->cmd) == _IOC_DIR(cmd))
			return d;
	return NULL;
}

static long kprof_ioctl_call(struct kprof_file *kf,
			     const struct kprof_ioctl_desc *d, void *karg)
{
	long ret;

	if (!(d->flags & KPROF_IOCF_LOCK))
		return d->fn(kf, karg);
	ret = kprof_lock_live(kf->kd);
	if (ret)
		return ret;
	ret = d->fn(kf, karg);
	mutex_unlock(&kf->kd->lock);
	return ret;
}

long kprof_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	const struct kprof_ioctl_desc *d = kprof_ioctl_find(cmd);
	struct kprof_file *kf = file->private_data;
	void __user *uarg = (void __user *)arg;
	u64 stack[16];
	void *karg = stack;
	u32 usize = 0;
	long ret;

	if (!d)
		return -ENOTTY;
	/* As write(2) on a read-only fd. */
	if ((d->flags & KPROF_IOCF_WRITE) && !(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (d->flags & KPROF_IOCF_PROFILE) {
		ret = kprof_may_profile();
		if (ret)
			return ret;
	}
	/* Checked again under kd->lock where it matters. */
	if (READ_ONCE(kf->kd->dead) && !(d->flags & KPROF_IOCF_DEAD_OK))
		return -ENODEV;
	if (d->ksize > sizeof(stack)) {
		karg = kzalloc(d->ksize, GFP_KERNEL);
		if (!karg)
			return -ENOMEM;
	}
	if (!d->ksize)
		ret = 0;
	else if (d->flags & KPROF_IOCF_RAW)
		ret = copy_from_user(karg, uarg, d->ksize) ? -EFAULT : 0;
	else
		ret = kprof_copy_struct_in(karg, d->ksize, d->min, uarg,
					   &usize);
	if (!ret)
		ret = kprof_ioctl_call(kf, d, karg);
	if (!ret && d->ksize && !(d->flags & KPROF_IOCF_RAW) &&
	    (_IOC_DIR(d->cmd) & _IOC_READ))
		ret = kprof_copy_struct_out(uarg, karg, d->ksize, usize);
	if (karg != stack)
		kfree(karg);
	return ret;
}
