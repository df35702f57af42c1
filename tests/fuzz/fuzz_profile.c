// SPDX-License-Identifier: GPL-2.0
/*
 * Driver profile JSON (kprof_profile_parse). The parsed strings must be
 * NUL-terminated within their fields.
 */
#include <stdlib.h>
#include <string.h>

#include "kprof_profile.h"

#define TERMINATED(f) (!!memchr((f), '\0', sizeof(f)))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kprof_profile p;
	struct kprof_err err = { 0 };

	memset(&p, 0xa5, sizeof(p));
	if (kprof_profile_parse((const char *)data, size, "fuzz.json", &p, &err)) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	if (!TERMINATED(p.name) || !TERMINATED(p.description) ||
	    !TERMINATED(p.backend) || !TERMINATED(p.node) ||
	    !TERMINATED(p.handler) || !TERMINATED(p.uapi) ||
	    !TERMINATED(p.launch.ioctl) || !TERMINATED(p.sync.ioctl))
		abort();
	return 0;
}
