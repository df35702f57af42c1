// SPDX-License-Identifier: GPL-2.0
/*
 * Device clock lock and reset. The state before the first lock is kept
 * here, in the kernel, so that a reset restores exactly what the user had
 * (automatic DVFS, or someone else's lock) even after the tool that locked
 * it has exited or crashed. Removing the device or unloading the module
 * resets it too.
 */
#include <linux/capability.h>
#include <linux/pid.h>
#include <linux/sched.h>

#include "kprof_internal.h"

u32 kprof_clock_flags(struct kprof_device *kd, bool locked)
{
	return (locked ? KPROF_CLOCK_LOCKED : 0) |
	       (READ_ONCE(kd->clk.valid) ? KPROF_CLOCK_SAVED : 0);
}

/* kd->lock held (kprof_ioctl.c). */
long kprof_ioctl_clock_get(struct kprof_file *kf, void *arg)
{
	struct kprof_clock_state *st = arg;
	struct kprof_device *kd = kf->kd;
	struct kprof_hw_clock clk = {};

	if (st->reserved0 ||
	    !kprof_mem_is_zero(st->reserved, sizeof(st->reserved)))
		return -EINVAL;

	memset(st, 0, sizeof(*st));
	kd->ops->get_clock(kd, &clk);
	st->flags = kprof_clock_flags(kd, clk.locked);
	if (kd->clk.valid) {
		st->saved_flags = kd->clk.locked ? KPROF_CLOCK_LOCKED : 0;
		st->saved_mhz = kd->clk.mhz;
		st->locked_by_pid = pid_vnr(kd->clk.pid);
	}
	st->mhz = clk.mhz;
	if (clk.locked)
		st->locked_mhz = clk.mhz;
	return 0;
}

/*
 * Backends report their own DVFS steps; changes made through us are put
 * in the capture stream here.
 */
static void kprof_clock_record(struct kprof_device *kd)
{
	struct kprof_hw_clock clk = {};

	kd->ops->get_clock(kd, &clk);
	kprof_clock_changed(kd, clk.mhz, clk.locked);
}

static void kprof_clock_forget(struct kprof_device *kd)
{
	WRITE_ONCE(kd->clk.valid, false);
	kd->clk.locked = false;
	kd->clk.mhz = 0;
	put_pid(kd->clk.pid);
	kd->clk.pid = NULL;
}

static int kprof_clock_lock(struct kprof_device *kd, u32 mhz)
{
	struct kprof_hw_clock cur = {};
	bool saved_now = false;
	int ret;

	if (!kd->clk.valid) {
		kd->ops->get_clock(kd, &cur);
		kd->clk.locked = cur.locked;
		kd->clk.mhz = cur.mhz;
		kd->clk.pid = get_pid(task_tgid(current));
		WRITE_ONCE(kd->clk.valid, true);
		saved_now = true;
	}
	ret = kd->ops->set_clock(kd, true, mhz);
	/* Nothing changed, so there is nothing to restore later. */
	if (ret && saved_now)
		kprof_clock_forget(kd);
	if (!ret)
		kprof_clock_record(kd);
	return ret;
}

/* Restore the pre-first-lock state, if one is saved (kd->lock held). */
static int kprof_clock_reset(struct kprof_device *kd)
{
	int ret;

	if (!kd->clk.valid)
		return 0;
	ret = kd->ops->set_clock(kd, kd->clk.locked, kd->clk.mhz);
	if (!ret) {
		kprof_clock_forget(kd);
		kprof_clock_record(kd);
	}
	return ret;
}

void kprof_clock_reset_locked(struct kprof_device *kd)
{
	int ret;

	lockdep_assert_held(&kd->lock);
	ret = kprof_clock_reset(kd);
	if (ret)
		dev_warn(kd->dev, "could not restore the device clock: %d\n",
			 ret);
	kprof_clock_forget(kd);
}

/* kd->lock held (kprof_ioctl.c). */
long kprof_ioctl_clock_set(struct kprof_file *kf, void *arg)
{
	struct kprof_clock_req *req = arg;
	struct kprof_device *kd = kf->kd;
	u32 mhz;

	if (req->reserved0 ||
	    !kprof_mem_is_zero(req->reserved, sizeof(req->reserved)))
		return -EINVAL;

	switch (req->op) {
	case KPROF_CLOCK_OP_LOCK_MHZ:
		if (req->mhz < kd->hw.clock_min_mhz ||
		    req->mhz > kd->hw.clock_max_mhz)
			return -EINVAL;
		mhz = req->mhz;
		break;
	case KPROF_CLOCK_OP_LOCK_BASE:
		mhz = kd->hw.clock_base_mhz;
		break;
	case KPROF_CLOCK_OP_LOCK_MAX:
		mhz = kd->hw.clock_max_mhz;
		break;
	case KPROF_CLOCK_OP_RESET:
		mhz = 0;
		break;
	default:
		return -EINVAL;
	}
	/* mhz is only an input of LOCK_MHZ. */
	if (req->op != KPROF_CLOCK_OP_LOCK_MHZ && req->mhz)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	if (req->op == KPROF_CLOCK_OP_RESET)
		return kprof_clock_reset(kd);
	return kprof_clock_lock(kd, mhz);
}
