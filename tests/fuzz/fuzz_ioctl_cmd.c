// SPDX-License-Identifier: GPL-2.0
/* ioctl command expressions as users write them (kprof_ioctl_cmd_parse). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kprof_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct kprof_err err = { 0 };
	uint32_t cmd;

	if (!s)
		return 0;
	if (kprof_ioctl_cmd_parse(s, &cmd, &err) && !err.msg[0])
		abort();
	free(s);
	return 0;
}
