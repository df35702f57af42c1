// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Device dispatch: a device id to its kind's ops (kprof_device.h). */
#include "kprof_device.h"

#include <errno.h>
#include <string.h>

static const struct kprof_device_ops *const kinds[KPROF_DEVICE_NKINDS] = {
	[KPROF_DEVICE_KPROF] = &kprof_device_kprof_ops,
	[KPROF_DEVICE_NVIDIA] = &kprof_device_nvidia_ops,
};

const struct kprof_device_ops *kprof_device_ops_of(enum kprof_device_kind kind)
{
	return (unsigned int)kind < KPROF_DEVICE_NKINDS ? kinds[kind] : NULL;
}

int kprof_device_open(struct kprof_device *d, const struct kprof_device_id *id,
		      int write, struct kprof_err *err)
{
	int r;

	memset(d, 0, sizeof(*d));
	d->kdev.fd = -1;
	d->id = *id;
	d->ops = kprof_device_ops_of(id->kind);
	if (!d->ops)
		return kprof_err_set(err, EINVAL, "unknown device kind %d", (int)id->kind);
	kprof_device_name(id, d->name, sizeof(d->name));
	r = d->ops->open(d, write, err);
	if (r)
		d->ops = NULL;
	return r;
}

void kprof_device_close(struct kprof_device *d)
{
	if (d->ops)
		d->ops->close(d);
	d->ops = NULL;
}

int kprof_device_describe(struct kprof_device *d, struct kprof_device_desc *desc,
			  struct kprof_err *err)
{
	return d->ops->describe(d, desc, err);
}

int kprof_device_clock_lock(struct kprof_device *d, const struct kprof_clock_request *req,
			    char *msg, size_t msg_len, struct kprof_err *err)
{
	if (msg_len)
		msg[0] = '\0';
	return d->ops->clock_lock(d, req, msg, msg_len, err);
}

int kprof_device_clock_reset(struct kprof_device *d, int force, char *msg,
			     size_t msg_len, struct kprof_err *err)
{
	if (msg_len)
		msg[0] = '\0';
	return d->ops->clock_reset(d, force, msg, msg_len, err);
}
