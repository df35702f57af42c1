// SPDX-License-Identifier: GPL-2.0
/*
 * The report of an NVIDIA capture (kprof_report_build_to reading the
 * CUPTI agent's spool through kprof_gpu.c) on fuzzed agent spools. The
 * agent runs inside the workload, so what it writes is untrusted input
 * to kprofctl.
 *
 * Input: an agent spool file (raw/gpu-1.kspool); one that does not start
 * with the spool magic is taken as agent records behind a GPU spool
 * header. raw/device.kspool is kprofctl's own, for nvidia:0. The same
 * spool is then split over two GPUs as a capture of several does
 * (kprof_gpu_route.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "kprof_gpu.h"
#include "kprof_gpu_route.h"
#include "kprof_outdir.h"
#include "kprof_report.h"
#include "kprof_spool.h"

/* The spool split over two GPUs (the second UUID is one a GPU_DEVICE
 * record of zeros and 0x01..0x10 bytes names).
 */
static void route(const char *cap)
{
	static const char *const uuids[2] = {
		"GPU-00000000-0000-0000-0000-000000000000",
		"GPU-01020304-0506-0708-090a-0b0c0d0e0f10",
	};
	struct kprof_gpu_route_stats st;
	struct kprof_outdir *raws[2];
	struct kprof_err err = { 0 };
	char path[4200];
	int fd = open(cap, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/split%d", fuzz_scratch(), k);
		raws[k] = kprof_outdir_open(path, 0, (uid_t)-1, (gid_t)-1, &err);
		if (!raws[k])
			abort();
	}
	if (fd < 0)
		abort();
	if (kprof_gpu_route(fd, "raw/gpu-1.kspool", NULL, uuids, raws, 2, &st, &err) < 0 &&
	    !err.msg[0])
		abort();
	close(fd);
	for (int k = 0; k < 2; k++)
		kprof_outdir_close(raws[k]);
	fuzz_clean("split0");
	fuzz_clean("split1");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kprof_report_opts opts = { .version = "fuzz", .config_json = "{}" };
	struct kprof_report_result res;
	struct kprof_err err = { 0 };
	struct kprof_spool_hdr h;
	struct kprof_outdir *od;
	char cap[4096], out[4096];
	int ret;

	snprintf(cap, sizeof(cap), "%s/cap", fuzz_scratch());
	snprintf(out, sizeof(out), "%s/out", fuzz_scratch());
	fuzz_clean("cap/raw");
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, KPROF_SPOOL_MAGIC, 8);
	h.version = KPROF_SPOOL_VERSION;
	h.kind = KPROF_SPOOL_DEVICE;
	h.hdr_size = sizeof(h);
	kprof_gpu_device_info(0, &h.device, &h.counters);
	fuzz_write("cap/" KPROF_SPOOL_DEVICE_FILE, &h, sizeof(h));
	if (size >= 8 && !memcmp(data, KPROF_SPOOL_MAGIC, 8)) {
		fuzz_write("cap/raw/gpu-1.kspool", data, size);
	} else {
		uint8_t *buf = malloc(sizeof(h) + size);

		if (!buf)
			return 0;
		memset(&h, 0, sizeof(h));
		memcpy(h.magic, KPROF_SPOOL_MAGIC, 8);
		h.version = KPROF_SPOOL_VERSION;
		h.kind = KPROF_SPOOL_GPU;
		h.hdr_size = sizeof(h);
		memcpy(buf, &h, sizeof(h));
		memcpy(buf + sizeof(h), data, size);
		fuzz_write("cap/raw/gpu-1.kspool", buf, sizeof(h) + size);
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
	route(cap);
	return 0;
}
