// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The process's CUDA devices by UUID (kprof_agent_devices.h). */
#include "kprof_agent_devices.h"

#include <dlfcn.h>
#include <string.h>

typedef int (*count_fn)(int *count);
typedef int (*get_fn)(int *dev, int ordinal);
typedef int (*uuid_fn)(unsigned char uuid[16], int dev);

static void *sym(void *h, const char *name)
{
	void *p = h ? dlsym(h, name) : NULL;

	return p ? p : dlsym(RTLD_DEFAULT, name);
}

int kprof_agent_devices(struct kprof_grec_device *out, int max)
{
	/* already loaded by the process: never load a libcuda of our own */
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	count_fn count = (count_fn)sym(h, "cuDeviceGetCount");
	get_fn get = (get_fn)sym(h, "cuDeviceGet");
	uuid_fn uuid = (uuid_fn)sym(h, "cuDeviceGetUuid_v2");
	int n = 0;

	if (!uuid)
		uuid = (uuid_fn)sym(h, "cuDeviceGetUuid");
	if (!count || !get || !uuid || count(&n) || n < 0) {
		n = -1;
		goto out;
	}
	if (n > max)
		n = max;
	for (int i = 0; i < n; i++) {
		struct kprof_grec_device *d = &out[i];
		int dev = 0;

		memset(d, 0, sizeof(*d));
		d->type = KPROF_GREC_DEVICE;
		d->size = sizeof(*d);
		d->ordinal = (__u32)i;
		d->code = get(&dev, i);
		if (!d->code)
			d->code = uuid(d->uuid, dev);
	}
out:
	if (h)
		dlclose(h);
	return n;
}
