// SPDX-License-Identifier: GPL-2.0
/*
 * Collector throughput bench (docs/performance.md, "## Collector").
 *
 *   collector gen DIR MARKERS   write a synthetic capture spool:
 *                               DIR/raw/device.kspool (+ host.kspool)
 *   collector run DIR OUTDIR    kprof_report_build_to() on it, without
 *                               device_log.csv; prints markers/s (wall
 *                               and CPU) and peak RSS
 *
 * The synthetic device: 64 cores x 5 RISCs, ops of 1 ms back to back,
 * each RISC writing FW/kernel start/end markers (1280 markers per op),
 * one COUNTERS record per core per op (4 counters), an OP record per op,
 * a SYNC triple every 100 ms of device time with 200 ppm drift, host
 * launch/sync events per op. Markers of an op arrive interleaved across
 * cores, the way the kernel drains per-RISC rings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "kprof.h"

#define CORES		64
#define RISCS		5
#define OP_NS		1000000ULL	/* host ns per op */
#define SYNC_NS		100000000ULL

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t dev_of(uint64_t host)
{
	/* 1 GHz nominal, 200 ppm fast */
	return 7000000000ULL + host + host / 5000;
}

static int gen(const char *dir, uint64_t markers)
{
	struct kprof_device_info info = { .size = sizeof(info), .version = 1,
		.num_cores = CORES, .grid_x = 8, .grid_y = 8, .riscs_per_core = RISCS,
		.num_counters = 4, .ref_clock_hz = 1000000000ULL, .clock_mhz = 1000,
		.clock_flags = KPROF_CLOCK_LOCKED };
	struct kprof_counter_info ci = { .size = sizeof(ci), .num_counters = 4 };
	static const char *const rn[RISCS] = { "BRISC", "NCRISC", "TRISC_0", "TRISC_1", "TRISC_2" };
	struct kprof_spool_writer *d, *h;
	struct kprof_err err;
	static uint8_t buf[1 << 20];
	size_t n = 0;
	uint64_t done = 0, seq = 0, host0 = 1000000000ULL, next_sync = host0;

	strcpy(info.name, "bench");
	strcpy(info.backend, "synthetic");
	for (int r = 0; r < RISCS; r++)
		strcpy(info.risc_names[r], rn[r]);
	for (int i = 0; i < 4; i++) {
		snprintf(ci.desc[i].name, sizeof(ci.desc[i].name), "counter%d", i);
		strcpy(ci.desc[i].unit, "events");
	}
	d = kprof_spool_create(dir, KPROF_SPOOL_DEVICE, &info, &ci, &err);
	h = d ? kprof_spool_create(dir, KPROF_SPOOL_HOST, NULL, NULL, &err) : NULL;
	if (!d || !h) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return 1;
	}
#define FLUSH() do {							\
	if (kprof_spool_append(d, buf, n, &err)) {			\
		fprintf(stderr, "collector: %s\n", err.msg);		\
		return 1;						\
	}								\
	n = 0;								\
} while (0)
	while (done < markers) {
		uint64_t t = host0 + seq * OP_NS;
		struct kprof_host_event ev = { .type = KPROF_HREC_IOCTL, .size = sizeof(ev),
			.enter_ns = t - 20000, .exit_ns = t - 16000, .pid = 1, .tid = 1,
			.role = KPROF_ROLE_LAUNCH, .seq = seq + 1 };
		struct kprof_rec_op op = { .hdr = { KPROF_REC_OP, sizeof(op), 0 },
			.op_seq = seq + 1, .timestamp = dev_of(t - 1000), .num_cores = CORES,
			.clock_mhz = 1000 };

		seq++;
		strcpy(ev.comm, "bench");
		kprof_spool_append(h, &ev, sizeof(ev), &err);
		ev.role = KPROF_ROLE_SYNC;
		ev.enter_ns = t - 15000;
		ev.exit_ns = t + OP_NS - 1000;
		kprof_spool_append(h, &ev, sizeof(ev), &err);
		while (next_sync <= t) {
			struct kprof_rec_sync s = { .hdr = { KPROF_REC_SYNC, sizeof(s), 0 },
				.host_before_ns = next_sync - 200, .device_cycles = dev_of(next_sync),
				.host_after_ns = next_sync + 200 };
			if (n + sizeof(s) > sizeof(buf))
				FLUSH();
			memcpy(buf + n, &s, sizeof(s));
			n += sizeof(s);
			next_sync += SYNC_NS;
		}
		snprintf(op.name, sizeof(op.name), "op%" PRIu64, seq % 7);
		if (n + sizeof(op) > sizeof(buf))
			FLUSH();
		memcpy(buf + n, &op, sizeof(op));
		n += sizeof(op);
		for (int k = 1; k <= 4; k++)
			for (int c = 0; c < CORES; c++)
				for (int r = 0; r < RISCS; r++) {
					struct kprof_rec_marker m = {
						.hdr = { KPROF_REC_MARKER, sizeof(m), 0 },
						.core = (uint16_t)c, .risc = (uint8_t)r,
						.kind = (uint8_t)k, .op_seq = (uint32_t)seq };
					uint64_t at = k == 1 ? 0 : k == 3 ? 500 :
						      k == 4 ? OP_NS - 2000 - (uint64_t)c * 10 :
						      OP_NS - 1000;

					m.timestamp = dev_of(t + at + (uint64_t)c * 3 + (uint64_t)r);
					if (n + sizeof(m) > sizeof(buf))
						FLUSH();
					memcpy(buf + n, &m, sizeof(m));
					n += sizeof(m);
				}
		done += 4 * CORES * RISCS;
		for (int c = 0; c < CORES; c++) {
			struct { struct kprof_rec_counters c; uint64_t v[4]; } cr = {
				.c = { .hdr = { KPROF_REC_COUNTERS, sizeof(cr), 0 },
				       .op_seq = seq, .counter_mask = 0xf, .core = (uint32_t)c },
				.v = { seq, (uint64_t)c, 1000, 2000 } };
			if (n + sizeof(cr) > sizeof(buf))
				FLUSH();
			memcpy(buf + n, &cr, sizeof(cr));
			n += sizeof(cr);
		}
	}
	FLUSH();
	if (kprof_spool_close(d, &err) || kprof_spool_close(h, &err)) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return 1;
	}
	printf("generated %" PRIu64 " markers in %" PRIu64 " ops\n", done, seq);
	return 0;
}

static int run(const char *dir, const char *outdir)
{
	struct kprof_report_opts opts = { .flags = KPROF_REPORT_NO_DEVICE_LOG };
	struct kprof_report_result res;
	struct kprof_err err;
	struct rusage ru;
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID), w, c;

	if (kprof_report_build_to(dir, outdir, &opts, &res, &err)) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return 1;
	}
	w = now(CLOCK_MONOTONIC) - w0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	getrusage(RUSAGE_SELF, &ru);
	printf("markers %" PRIu64 " ops %" PRIu64 " wall %.2f s cpu %.2f s\n",
	       res.markers, res.ops, w, c);
	printf("markers/s (wall) %.1fM  markers/s (cpu) %.1fM  peak RSS %ld KiB\n",
	       res.markers / w / 1e6, res.markers / c / 1e6, ru.ru_maxrss);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], strtoull(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "run"))
		return run(argv[2], argv[3]);
	fprintf(stderr, "usage: collector gen DIR MARKERS | collector run DIR OUTDIR\n");
	return 2;
}
