// SPDX-License-Identifier: GPL-2.0
/*
 * The whole capture report pipeline (kprof_report_build: spool reader,
 * time sync, aggregation, every CSV/JSON writer) on fuzzed spools in a
 * scratch capture directory.
 *
 * Input: a device spool file, optionally followed by a host spool file
 * (split at the next 8-byte aligned "KPROFSPL"). An input that does not
 * start with the magic is taken as device records behind a default
 * header, so the fuzzer also explores record streams directly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kprof_outdir.h"
#include "kprof_report.h"
#include "kprof_spool.h"

static size_t find_second(const uint8_t *d, size_t n)
{
	for (size_t off = 8; off + 8 <= n; off += 8)
		if (!memcmp(d + off, KPROF_SPOOL_MAGIC, 8))
			return off;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kprof_report_opts opts = { .version = "fuzz", .config_json = "{}" };
	struct kprof_report_result res;
	struct kprof_err err = { 0 };
	struct kprof_outdir *od;
	char cap[4096], out[4096];
	size_t split;
	int ret;

	snprintf(cap, sizeof(cap), "%s/cap", fuzz_scratch());
	snprintf(out, sizeof(out), "%s/out", fuzz_scratch());
	fuzz_clean("cap/raw");
	if (size >= 8 && !memcmp(data, KPROF_SPOOL_MAGIC, 8)) {
		split = find_second(data, size);
		fuzz_write("cap/" KPROF_SPOOL_DEVICE_FILE, data, split);
		if (split < size)
			fuzz_write("cap/" KPROF_SPOOL_HOST_FILE, data + split,
				   size - split);
	} else {
		struct kprof_spool_hdr h;
		uint8_t *buf = malloc(sizeof(h) + size);

		if (!buf)
			return 0;
		memset(&h, 0, sizeof(h));
		memcpy(h.magic, KPROF_SPOOL_MAGIC, 8);
		h.version = KPROF_SPOOL_VERSION;
		h.kind = KPROF_SPOOL_DEVICE;
		h.hdr_size = sizeof(h);
		h.device.size = sizeof(h.device);
		h.device.num_cores = 4;
		h.device.grid_x = 2;
		h.device.grid_y = 2;
		h.device.riscs_per_core = 5;
		h.device.ref_clock_hz = 1000000000;
		h.device.clock_mhz = 1000;
		memcpy(buf, &h, sizeof(h));
		memcpy(buf + sizeof(h), data, size);
		fuzz_write("cap/" KPROF_SPOOL_DEVICE_FILE, buf, sizeof(h) + size);
		free(buf);
	}
	od = kprof_outdir_open(out, 0, (uid_t)-1, (gid_t)-1, &err);
	if (!od)
		abort();
	ret = kprof_report_build(cap, od, &opts, &res, &err);
	kprof_outdir_close(od);
	if (ret < 0 && !err.msg[0])
		abort();
	fuzz_clean("out");
	return 0;
}
