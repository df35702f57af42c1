// SPDX-License-Identifier: GPL-2.0
/*
 * tt-metal device log parser (kprof_ttmetal.c): the input is a
 * profile_log_device.csv, read through a memory FILE. Touches every field
 * of every row so that ASan sees a bad pointer in the callback's view.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprof_ttmetal.h"

static int on_row(void *ctx, const struct kprof_tt_info *info,
		  const struct kprof_tt_row *row)
{
	size_t *sum = ctx;

	*sum += strlen(info->arch) + strlen(row->risc) +
		strlen(row->zone_name) + strlen(row->type);
	*sum += (size_t)(row->time ^ row->data ^ row->run_host_id ^ row->timer_id);
	/* stop early now and then: the parser must clean up mid-file */
	return (row->line % 997) == 996 ? 7 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kprof_tt_info info;
	struct kprof_err err = { 0 };
	size_t sum = 0;
	FILE *f;
	int ret;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	ret = kprof_tt_parse(f, "fuzz.csv", on_row, &sum, &info, &err);
	if (ret < 0 && !err.msg[0])
		abort();
	fclose(f);
	return 0;
}
