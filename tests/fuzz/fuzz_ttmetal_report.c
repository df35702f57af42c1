// SPDX-License-Identifier: GPL-2.0
/*
 * The tt-metal report pipeline (kprof_report_ttmetal: parser, aggregation,
 * ops/device_log CSV writers, summary, params.json) on a fuzzed device log,
 * written to a scratch directory.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "kprof_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *csv = fuzz_write("tt/profile_log_device.csv", data, size);
	char out[4096];
	struct kprof_report_opts opts = { .version = "fuzz" };
	struct kprof_report_result res;
	struct kprof_err err = { 0 };
	int ret;

	snprintf(out, sizeof(out), "%s/tt-out", fuzz_scratch());
	ret = kprof_report_ttmetal(csv, out, &opts, &res, &err);
	if (ret < 0 && !err.msg[0])
		abort();
	fuzz_clean("tt-out");
	return 0;
}
