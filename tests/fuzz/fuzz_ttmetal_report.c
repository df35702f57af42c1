// SPDX-License-Identifier: GPL-2.0
/*
 * The tt-metal report pipeline (kprof_report_ttmetal: parser, aggregation,
 * ops/device_log CSV writers, summary, params.json) on a fuzzed device log,
 * written to a scratch directory.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "kprof_outdir.h"
#include "kprof_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *csv = fuzz_write("tt/profile_log_device.csv", data, size);
	char out[4096];
	struct kprof_report_opts opts = { .version = "fuzz" };
	struct kprof_report_result res;
	struct kprof_err err = { 0 };
	struct kprof_outdir *od;
	int ret;

	snprintf(out, sizeof(out), "%s/tt-out", fuzz_scratch());
	od = kprof_outdir_open(out, 0, (uid_t)-1, (gid_t)-1, &err);
	if (!od)
		abort();
	ret = kprof_report_ttmetal(csv, od, &opts, &res, &err);
	kprof_outdir_close(od);
	if (ret < 0 && !err.msg[0])
		abort();
	fuzz_clean("tt-out");
	return 0;
}
