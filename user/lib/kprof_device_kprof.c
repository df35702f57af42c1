// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The /dev/kprofN device ops, over kprof_dev.c. The kernel keeps the
 * pre-lock clock state, so reset works after kprofctl exits.
 */
#include "kprof_device.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

static int kp_enumerate(struct kprof_device_id *ids, int max, struct kprof_err *err)
{
	int nums[KPROF_DEV_MAX], n, i;

	(void)err;
	n = kprof_dev_list(nums, KPROF_DEV_MAX);
	if (n < 0)	/* no device directory: no devices */
		return 0;
	for (i = 0; i < n && i < max; i++) {
		memset(&ids[i], 0, sizeof(ids[i]));
		ids[i].kind = KPROF_DEVICE_KPROF;
		ids[i].index = (uint32_t)nums[i];
	}
	return i;
}

static int kp_open(struct kprof_device *d, int write, struct kprof_err *err)
{
	char msg[256];
	int r = kprof_dev_open(&d->kdev, (int)d->id.index, write ? O_RDWR : O_RDONLY);

	if (r == -EACCES && write)	/* group members may only have read access */
		r = kprof_dev_open(&d->kdev, (int)d->id.index, O_RDONLY);
	if (r)
		return kprof_err_set(err, -r, "%s",
				     kprof_dev_open_error((int)d->id.index, r, msg, sizeof(msg)));
	return 0;
}

static void kp_close(struct kprof_device *d)
{
	kprof_dev_close(&d->kdev);
}

static int kp_describe(struct kprof_device *d, struct kprof_device_desc *desc,
		       struct kprof_err *err)
{
	int r;

	memset(desc, 0, sizeof(*desc));
	desc->kind = KPROF_DEVICE_KPROF;
	snprintf(desc->name, sizeof(desc->name), "%s", d->name);
	r = kprof_dev_info(&d->kdev, &desc->kprof.info);
	if (!r)
		r = kprof_dev_counter_info(&d->kdev, &desc->kprof.ci);
	if (!r)
		r = kprof_dev_clock_get(&d->kdev, &desc->kprof.cs);
	if (r)
		return kprof_err_set(err, -r, "%s: query failed: %s", d->kdev.path,
				     strerror(-r));
	return 0;
}

/* op: KPROF_CLOCK_OP_*; prints what changed into msg. */
static int kp_clock(struct kprof_device *d, uint32_t op, uint32_t mhz, char *msg,
		    size_t msg_len, struct kprof_err *err)
{
	struct kprof_clock_state before, after;
	struct kprof_device_info info;
	uint32_t id = d->id.index;
	char a[48], b[48];
	int r;

	r = kprof_dev_clock_get(&d->kdev, &before);
	if (!r)
		r = kprof_dev_info(&d->kdev, &info);
	if (r)
		return kprof_err_set(err, -r, "%s: cannot read clock state: %s", d->kdev.path,
				     strerror(-r));
	if (op == KPROF_CLOCK_OP_LOCK_MHZ &&
	    (mhz < info.clock_min_mhz || mhz > info.clock_max_mhz))
		return kprof_err_set(err, ERANGE, "device %u: %u MHz is outside %u..%u MHz",
				     id, mhz, info.clock_min_mhz, info.clock_max_mhz);
	r = kprof_dev_clock_set(&d->kdev, op, mhz);
	if (r)
		return kprof_err_set(err, -r, "device %u: %s", id, kprof_dev_clock_error(r));
	r = kprof_dev_clock_get(&d->kdev, &after);
	if (r)
		return kprof_err_set(err, -r, "%s: cannot read clock state: %s", d->kdev.path,
				     strerror(-r));
	kprof_dev_clock_str(before.flags, before.mhz, b, sizeof(b));
	kprof_dev_clock_str(after.flags, after.mhz, a, sizeof(a));
	if (op == KPROF_CLOCK_OP_RESET) {
		snprintf(msg, msg_len, "device %u: clock reset: %s (was %s)", id, a, b);
	} else {
		char saved[48];

		kprof_dev_clock_saved_str(&after, saved, sizeof(saved));
		snprintf(msg, msg_len, "device %u: clock %s (was %s); reset-clock restores %s",
			 id, a, b, saved);
	}
	return 0;
}

static int kp_clock_lock(struct kprof_device *d, const struct kprof_clock_request *req,
			 char *msg, size_t msg_len, struct kprof_err *err)
{
	static const uint32_t ops[] = {
		[KPROF_CLOCK_TARGET_BASE] = KPROF_CLOCK_OP_LOCK_BASE,
		[KPROF_CLOCK_TARGET_MAX] = KPROF_CLOCK_OP_LOCK_MAX,
		[KPROF_CLOCK_TARGET_MHZ] = KPROF_CLOCK_OP_LOCK_MHZ,
	};

	if (req->mem)
		return kprof_err_set(err, EINVAL,
				     "device %u: --mem-mhz is for NVIDIA GPUs (a kprof device has one clock)",
				     d->id.index);
	return kp_clock(d, ops[req->target], req->mhz, msg, msg_len, err);
}

static int kp_clock_reset(struct kprof_device *d, int force, char *msg, size_t msg_len,
			  struct kprof_err *err)
{
	if (force)
		return kprof_err_set(err, EINVAL,
				     "device %u: --force is for NVIDIA GPUs (the kernel keeps a kprof device's state: reset-clock restores it)",
				     d->id.index);
	return kp_clock(d, KPROF_CLOCK_OP_RESET, 0, msg, msg_len, err);
}

const struct kprof_device_ops kprof_device_kprof_ops = {
	.kind = KPROF_DEVICE_KPROF,
	.enumerate = kp_enumerate,
	.open = kp_open,
	.close = kp_close,
	.describe = kp_describe,
	.clock_lock = kp_clock_lock,
	.clock_reset = kp_clock_reset,
};
