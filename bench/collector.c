// SPDX-License-Identifier: GPL-2.0
/*
 * Collector throughput bench (docs/performance.md, "## Collector").
 *
 *   collector gen DIR MARKERS [ring OPS]
 *                               write a synthetic capture spool:
 *                               DIR/raw/device.kspool (+ host.kspool);
 *                               ring OPS (1-4096): the markers as a drain
 *                               of every RISC's ring each OPS ops gives
 *                               them, a ring at a time (a RISC's 4 markers
 *                               of each op in turn), not an op at a time
 *   collector gen-gpu DIR KERNELS [queued|uprobe]
 *                               write a synthetic NVIDIA capture: the
 *                               CUPTI agent's spool (raw/gpu-1.kspool)
 *                               of a launch loop, made by the agent's
 *                               own converter (kprof_cupti_conv);
 *                               queued: host times --host-times queued;
 *                               uprobe: --host-times uprobe (the calls
 *                               in raw/cuda-uprobes.kspool, to be joined)
 *   collector run DIR OUTDIR [trace|devlog]
 *                               kprof_report_build() on it, to OUTDIR, without
 *                               device_log.csv (unless "devlog") and
 *                               trace.json (unless "trace"); prints
 *                               markers/s (wall and CPU) and peak RSS
 *
 * The synthetic device: 64 cores x 5 RISCs, ops of 1 ms back to back,
 * each RISC writing FW/kernel start/end markers (1280 markers per op),
 * one COUNTERS record per core per op (4 counters), an OP record per op,
 * a SYNC triple every 100 ms of device time with 200 ppm drift, host
 * launch/sync events per op. Markers of an op arrive interleaved across
 * cores, the way the kernel drains per-RISC rings.
 *
 *   collector limit DIR         the machine's limit: a minimal loop that
 *                               maps DIR's device spool, walks the records
 *                               by size and sums one field of every marker
 *
 *   collector html OUTDIR       report.html alone, made again from the
 *                               outputs a run left in OUTDIR (as the
 *                               report's last step does): its CPU time,
 *                               bytes and MB/s
 *
 *   collector timesync DIR TRUTH  (in the VM, after a capture) the time-
 *                               sync fits of DIR's spool against the sim's
 *                               debugfs ground truth (TRUTH: a copy of
 *                               .../kprof_sim/sim0/truth): |error| of FW
 *                               start/end host times for the piecewise
 *                               and the one-shot fit, and of ops.csv's
 *                               DEVICE FW DURATION, as p50/p99/max
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "kprof_agg.h"
#include "kprof_array_size.h"
#include "kprof_err.h"
#include "kprof_cupti_conv.h"
#include "kprof_gpu.h"
#include "kprof_html.h"
#include "kprof_outdir.h"
#include "kprof_rec.h"
#include "kprof_report.h"
#include "kprof_spool.h"
#include "kprof_timesync.h"

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

/* gen's device records, appended to the spool 1 MiB at a time */
struct gen_buf {
	struct kprof_spool_writer *d;
	size_t n;
	uint8_t b[1 << 20];
};

static int gen_flush(struct gen_buf *g)
{
	struct kprof_err err;

	if (kprof_spool_append(g->d, g->b, g->n, &err)) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return -1;
	}
	g->n = 0;
	return 0;
}

static int gen_put(struct gen_buf *g, const void *rec, size_t size)
{
	if (g->n + size > sizeof(g->b) && gen_flush(g))
		return -1;
	memcpy(g->b + g->n, rec, size);
	g->n += size;
	return 0;
}

/*
 * Markers held for a drain of the RISC rings every `every` ops (gen's
 * ring layout): ring (core, RISC) holds that RISC's markers of those ops
 * in order
 */
#define RING_OPS_MAX	4096

struct gen_rings {
	unsigned int every, held, rr;
	struct kprof_rec_marker *m;	/* [CORES * RISCS][every * 4] */
};

/* the held ops' markers, ring after ring, from one ring further each drain */
static int gen_drain(struct gen_buf *g, struct gen_rings *rg)
{
	for (unsigned int i = 0; i < CORES * RISCS; i++) {
		unsigned int ring = (rg->rr + i) % (CORES * RISCS);

		for (unsigned int k = 0; k < rg->held * 4; k++)
			if (gen_put(g, &rg->m[(size_t)ring * rg->every * 4 + k],
				    sizeof(rg->m[0])))
				return -1;
	}
	rg->rr = (rg->rr + 1) % (CORES * RISCS);
	rg->held = 0;
	return 0;
}

static int gen(const char *dir, uint64_t markers, unsigned int ring_every)
{
	struct kprof_device_info info = { .size = sizeof(info), .version = 1,
		.num_cores = CORES, .grid_x = 8, .grid_y = 8, .riscs_per_core = RISCS,
		.num_counters = 4, .ref_clock_hz = 1000000000ULL, .clock_mhz = 1000,
		.clock_flags = KPROF_CLOCK_LOCKED };
	struct kprof_counter_info ci = { .size = sizeof(ci), .num_counters = 4 };
	static const char *const rn[RISCS] = { "BRISC", "NCRISC", "TRISC_0", "TRISC_1", "TRISC_2" };
	struct kprof_spool_writer *d, *h;
	struct kprof_outdir *od;
	struct kprof_err err;
	static struct gen_buf g;
	uint64_t done = 0, seq = 0, host0 = 1000000000ULL, next_sync = host0;
	struct gen_rings rg = { .every = ring_every };

	if (ring_every) {
		rg.m = malloc((size_t)CORES * RISCS * ring_every * 4 * sizeof(*rg.m));
		if (!rg.m) {
			fprintf(stderr, "collector: out of memory\n");
			return 1;
		}
	}

	strcpy(info.name, "bench");
	strcpy(info.backend, "synthetic");
	for (int r = 0; r < RISCS; r++)
		strcpy(info.risc_names[r], rn[r]);
	for (int i = 0; i < 4; i++) {
		snprintf(ci.desc[i].name, sizeof(ci.desc[i].name), "counter%d", i);
		strcpy(ci.desc[i].unit, "events");
	}
	od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	d = od ? kprof_spool_create(od, KPROF_SPOOL_DEVICE, &info, &ci, &err) : NULL;
	h = d ? kprof_spool_create(od, KPROF_SPOOL_HOST, NULL, NULL, &err) : NULL;
	kprof_outdir_close(od);
	if (!d || !h) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return 1;
	}
	g.d = d;
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
				.host_before_ns = next_sync - 200,
				.device_cycles = dev_of(next_sync),
				.host_after_ns = next_sync + 200 };

			if (gen_put(&g, &s, sizeof(s)))
				return 1;
			next_sync += SYNC_NS;
		}
		snprintf(op.name, sizeof(op.name), "op%" PRIu64, seq % 7);
		if (gen_put(&g, &op, sizeof(op)))
			return 1;
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
					size_t ring = (size_t)c * RISCS + (size_t)r;

					at += (uint64_t)c * 3 + (uint64_t)r;
					m.timestamp = dev_of(t + at);
					if (ring_every)
						rg.m[(ring * ring_every + rg.held) * 4 +
						     (size_t)k - 1] = m;
					else if (gen_put(&g, &m, sizeof(m)))
						return 1;
				}
		done += 4 * CORES * RISCS;
		/* a drain: the device's record queue (OP, COUNTERS) went first */
		if (ring_every && ++rg.held == ring_every && gen_drain(&g, &rg))
			return 1;
		for (int c = 0; c < CORES; c++) {
			struct { struct kprof_rec_counters c; uint64_t v[4]; } cr = {
				.c = { .hdr = { KPROF_REC_COUNTERS, sizeof(cr), 0 },
				       .op_seq = seq, .counter_mask = 0xf, .core = (uint32_t)c },
				.v = { seq, (uint64_t)c, 1000, 2000 } };

			if (gen_put(&g, &cr, sizeof(cr)))
				return 1;
		}
	}
	if ((rg.held && gen_drain(&g, &rg)) || gen_flush(&g))
		return 1;
	free(rg.m);
	if (kprof_spool_close(d, &err) || kprof_spool_close(h, &err)) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return 1;
	}
	printf("generated %" PRIu64 " markers in %" PRIu64 " ops\n", done, seq);
	return 0;
}

/*
 * The NVIDIA launch loop as the agent writes it: kernels of 8 names
 * launched every 4 us (driver API launch records), each running 2 us
 * on one stream once its launch returned, a cuCtxSynchronize after
 * every 1000. Records in the order CUDA 13's CUPTI hands them over
 * (tests/nvidia/data/spin.cuptirec): a kernel's record, then its
 * launch's; the sync call's record after the kernels it waited for.
 * CUPTI fills buffers (GPU_BUF_LAUNCHES launches each) and hands them
 * over in batches of 16 (the agent's buffer count): after each buffer
 * the agent writes a SYNC triple taken then, up to a batch later than
 * the buffer's records.
 */
#define GPU_LAUNCH_NS	4000ULL
#define GPU_KERNEL_NS	2000ULL
#define GPU_SYNC_EVERY	1000
#define GPU_CB_LAUNCH	307	/* cuLaunchKernel */
#define GPU_CB_SYNC	17	/* cuCtxSynchronize */
#define GPU_BUF_LAUNCHES 15000
#define GPU_BUF_BATCH	16

/* Room for one converted CUPTI record (and its name) at the buffer's end. */
static uint8_t *gen_room(struct gen_buf *g)
{
	if (g->n + 2 * KPROF_CONV_MAX_BYTES > sizeof(g->b) && gen_flush(g))
		return NULL;
	return g->b + g->n;
}

static int gen_conv(struct gen_buf *g, struct kprof_conv *conv, const void *rec)
{
	uint8_t *p = gen_room(g);

	if (!p)
		return -1;
	g->n += kprof_cupti_conv(conv, rec, p);
	return 0;
}

static int gen_api_name(struct gen_buf *g, uint32_t cbid, const char *name)
{
	uint8_t *p = gen_room(g);

	if (!p)
		return -1;
	g->n += kprof_conv_name(1U << 16 | cbid, KPROF_GNAME_API, name, p);
	return 0;
}

/* --host-times uprobe: one call as the BPF uprobes record it */
static int gen_uprobe_call(struct kprof_spool_writer *u, uint32_t fn, uint64_t enter,
			   uint64_t exit)
{
	struct kprof_cuda_event e = { .type = KPROF_HREC_CUDA, .size = sizeof(e),
		.enter_ns = enter, .exit_ns = exit, .pid = 1, .tid = 1, .fn = fn };
	struct kprof_err err;

	if (!u)
		return 0;
	if (kprof_spool_append(u, &e, sizeof(e), &err)) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return -1;
	}
	return 0;
}

enum { GEN_API, GEN_QUEUED, GEN_UPROBE };

static int gen_gpu(const char *dir, uint64_t kernels, int mode)
{
	int queued = mode == GEN_QUEUED;
	struct kprof_spool_writer *u = NULL;
	static const char *const names[8] = { "gemm", "relu", "softmax", "add", "mul",
					      "reduce", "copy", "norm" };
	static struct kprof_conv conv;
	static struct gen_buf gb;
	struct kprof_device_info info;
	struct kprof_counter_info ci;
	struct kprof_spool_writer *d, *g;
	struct kprof_outdir *od;
	struct kprof_err err;
	struct kprof_grec_agent a = { .type = KPROF_GREC_AGENT, .size = sizeof(a),
		.event = KPROF_GAGENT_START, .pid = 1, .ppid = 1, .clock = KPROF_GCLOCK_MONOTONIC };
	uint64_t t = 1000000000ULL, gpu_free = 0;
	uint32_t corr = 0;
	char raw[4096];

	kprof_gpu_device_info(0, &info, &ci);
	od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	d = od ? kprof_spool_create(od, KPROF_SPOOL_DEVICE, &info, &ci, &err) : NULL;
	if (d && kprof_spool_close(d, &err))
		d = NULL;
	kprof_outdir_close(od);
	/* where kprofctl points the agent (KPROF_AGENT_DIR) */
	snprintf(raw, sizeof(raw), "%s/%s", dir, KPROF_SPOOL_DIR);
	od = d ? kprof_outdir_open(raw, 0, (uid_t)-1, (gid_t)-1, &err) : NULL;
	g = od ? kprof_spool_create_in(od, KPROF_SPOOL_GPU_PREFIX "1" KPROF_SPOOL_GPU_SUFFIX,
				      KPROF_SPOOL_GPU, NULL, NULL, &err) : NULL;
	if (g && mode == GEN_UPROBE) {
		u = kprof_spool_create_in(od, KPROF_SPOOL_CUDA_NAME, KPROF_SPOOL_HOST, NULL, NULL,
					  &err);
		if (!u)
			g = NULL;
	}
	kprof_outdir_close(od);
	if (!g) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return 1;
	}
	gb.d = g;
	a.host_ns = t;
	a.host_times = queued ? KPROF_GHOST_QUEUED : KPROF_GHOST_API;
	strcpy(a.comm, "gen-gpu");
	conv.role[0][GPU_CB_LAUNCH] = KPROF_GROLE_LAUNCH;
	conv.role[0][GPU_CB_SYNC] = KPROF_GROLE_SYNC;
	if (gen_put(&gb, &a, sizeof(a)) ||
	    gen_api_name(&gb, GPU_CB_LAUNCH, "cuLaunchKernel") ||
	    gen_api_name(&gb, GPU_CB_SYNC, "cuCtxSynchronize"))
		return 1;
	for (uint64_t i = 0; i < kernels; i++) {
		struct kprof_cupti_api l = { .kind = KPROF_CUPTI_KIND_DRIVER,
			.cbid = GPU_CB_LAUNCH, .start = t, .end = t + GPU_LAUNCH_NS / 2,
			.process_id = 1, .thread_id = 1, .correlation_id = ++corr };
		struct kprof_cupti_kernel k = { .kind = KPROF_CUPTI_KIND_CONCURRENT_KERNEL,
			.device_id = 0, .context_id = 1, .stream_id = 7, .grid_x = 1,
			.grid_y = 1, .grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1,
			.correlation_id = corr, .name = names[i % 8] };

		k.start = l.end > gpu_free ? l.end : gpu_free;
		k.end = k.start + GPU_KERNEL_NS;
		gpu_free = k.end;
		if (queued) {
			/* --host-times queued: no launch record, the kernel's own */
			k.queued = l.start + 500;
			k.submitted = l.end - 200;
		}
		/* uprobe: the launch call from the uprobes, not the agent */
		if (gen_conv(&gb, &conv, &k) || (mode == GEN_API && gen_conv(&gb, &conv, &l)) ||
		    gen_uprobe_call(u, KPROF_CUDA_LAUNCH_KERNEL, l.start, l.end))
			return 1;
		t += GPU_LAUNCH_NS;
		if ((i + 1) % GPU_SYNC_EVERY == 0) {
			struct kprof_cupti_api s = { .kind = KPROF_CUPTI_KIND_DRIVER,
				.cbid = GPU_CB_SYNC, .start = t, .process_id = 1,
				.thread_id = 1, .correlation_id = ++corr };

			s.end = (gpu_free > t ? gpu_free : t) + 500;
			t = s.end + 100;
			if (mode == GEN_UPROBE ?
			    gen_uprobe_call(u, KPROF_CUDA_CTX_SYNC, s.start, s.end) :
			    gen_conv(&gb, &conv, &s))
				return 1;
		}
		if ((i + 1) % GPU_BUF_LAUNCHES == 0) {
			uint64_t b = i / GPU_BUF_LAUNCHES, at = t + (GPU_BUF_BATCH - 1 -
				b % GPU_BUF_BATCH) * GPU_BUF_LAUNCHES * GPU_LAUNCH_NS;
			struct kprof_rec_sync y = { .hdr = { KPROF_REC_SYNC, sizeof(y), 0 },
				.host_before_ns = at, .device_cycles = at + 100,
				.host_after_ns = at + 200 };

			if (gen_put(&gb, &y, sizeof(y)))
				return 1;
		}
	}
	a.event = KPROF_GAGENT_STOP;
	a.host_ns = t;
	if (gen_put(&gb, &a, sizeof(a)) || gen_flush(&gb))
		return 1;
	if (u) {
		/* the counters kprofctl writes when the capture ends */
		struct kprof_cuda_bpf_stats bs = { .type = KPROF_HREC_CUDA_STATS,
			.size = sizeof(bs), .events = kernels + kernels / GPU_SYNC_EVERY };

		if (kprof_spool_append(u, &bs, sizeof(bs), &err))
			u = NULL, g = NULL;
	}
	if (!g || kprof_spool_close(g, &err) || (u && kprof_spool_close(u, &err))) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return 1;
	}
	printf("generated %" PRIu64 " kernels\n", kernels);
	return 0;
}

static int run(const char *dir, const char *outdir, int trace, int devlog)
{
	struct kprof_report_opts opts = { .flags = (devlog ? 0 : KPROF_REPORT_NO_DEVICE_LOG) |
					  (trace ? 0 : KPROF_REPORT_NO_TRACE) };
	struct kprof_report_result res;
	struct kprof_outdir *od;
	struct kprof_err err;
	struct rusage ru;
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID), w, c;

	od = kprof_outdir_open(outdir, 0, (uid_t)-1, (gid_t)-1, &err);
	if (!od || kprof_report_build(dir, od, &opts, &res, &err)) {
		fprintf(stderr, "collector: %s\n", err.msg);
		kprof_outdir_close(od);
		return 1;
	}
	kprof_outdir_close(od);
	w = now(CLOCK_MONOTONIC) - w0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	getrusage(RUSAGE_SELF, &ru);
	printf("markers %" PRIu64 " ops %" PRIu64 " wall %.3f s cpu %.3f s%s%s\n",
	       res.markers, res.ops, w, c, trace ? " (with trace.json)" : "",
	       devlog ? " (with device_log.csv)" : "");
	printf("markers/s (wall) %.1fM  markers/s (cpu) %.1fM  peak RSS %ld KiB\n",
	       res.markers / w / 1e6, res.markers / c / 1e6, ru.ru_maxrss);
	printf("device spool read %u time%s\n", res.spool_reads, res.spool_reads == 1 ? "" : "s");
	return 0;
}

/*
 * The outputs report.html reads, committed again through od: the page is
 * made only from files this od wrote (kprof_outdir_reopen).
 */
static int rewrite_inputs(struct kprof_outdir *od, const char *outdir, struct kprof_err *err)
{
	static const char *const names[] = {
		"ops.csv", "counters.csv", "host_events.csv", "summary.txt", "params.json",
		"report.md", "bubbles.csv", "roofline.csv", "trace.json",
	};
	char path[4096], buf[1 << 16];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct kprof_outfile of;
		size_t n;
		FILE *in;

		snprintf(path, sizeof(path), "%s/%s", outdir, names[i]);
		in = fopen(path, "r");
		if (!in)
			continue;
		if (kprof_outfile_create(od, names[i], &of, err)) {
			fclose(in);
			return -1;
		}
		while ((n = fread(buf, 1, sizeof(buf), in)))
			fwrite(buf, 1, n, of.f);
		fclose(in);
		if (kprof_outfile_commit(&of, 0, err))
			return -1;
	}
	return 0;
}

/* report.html from the outputs in outdir, timed alone */
static int page(const char *outdir)
{
	struct kprof_err err = { 0 };
	struct kprof_outdir *od;
	char path[4096];
	struct stat st;
	double w0, c0, w, c;

	od = kprof_outdir_open(outdir, 0, (uid_t)-1, (gid_t)-1, &err);
	if (!od || rewrite_inputs(od, outdir, &err))
		goto fail;
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	if (kprof_html_write(od, &err))
		goto fail;
	kprof_outdir_close(od);
	w = now(CLOCK_MONOTONIC) - w0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	snprintf(path, sizeof(path), "%s/report.html", outdir);
	if (stat(path, &st)) {
		fprintf(stderr, "collector: %s: %s\n", path, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/trace.json", outdir);
	printf("report.html alone%s: wall %.3f s cpu %.3f s, %lld bytes, %.1f MB/s (cpu)\n",
	       access(path, F_OK) ? "" : " (with trace.json)", w, c, (long long)st.st_size,
	       (double)st.st_size / c / 1e6);
	return 0;
fail:
	fprintf(stderr, "collector: %s\n", err.msg);
	kprof_outdir_close(od);
	return 1;
}

/* ---- timesync: fit error against the sim's ground truth ---- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void pctl(const char *what, double *v, size_t n)
{
	if (!n) {
		printf("%-34s no samples\n", what);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_dbl);
	printf("%-34s n=%zu p50 %.0f p99 %.0f max %.0f\n", what, n, v[n / 2],
	       v[n * 99 / 100], v[n - 1]);
}

/* Splits a CSV line (quotes respected) into at most max fields, in place. */
static int split(char *s, char **f, int max)
{
	int n = 0, q = 0;

	f[n++] = s;
	for (char *w = s; *s; s++) {
		if (*s == '"') {
			q = !q;
			continue;
		}
		if (*s == ',' && !q) {
			*w++ = '\0';
			if (n < max)
				f[n++] = w;
			continue;
		}
		if (*s == '\n')
			break;
		*w++ = *s;
		if (!s[1])
			*w = '\0';
	}
	return n;
}

/* ops.csv: DEVICE FW DURATION [ns] per GLOBAL CALL COUNT (seq < cap) */
static double *load_ops(const char *dir, uint64_t cap, uint64_t *rows)
{
	char path[4096], *line = NULL, *f[64];
	size_t len = 0;
	int cseq = -1, cdur = -1, n;
	double *dur = malloc(cap * sizeof(*dur));
	FILE *fp;

	snprintf(path, sizeof(path), "%s/ops.csv", dir);
	fp = fopen(path, "r");
	if (!fp || !dur) {
		free(dur);
		if (fp)
			fclose(fp);
		return NULL;
	}
	for (uint64_t i = 0; i < cap; i++)
		dur[i] = -1;
	*rows = 0;
	while (getline(&line, &len, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		n = split(line, f, 64);
		if (cseq < 0) {
			for (int i = 0; i < n; i++) {
				if (!strcmp(f[i], "GLOBAL CALL COUNT"))
					cseq = i;
				if (!strcmp(f[i], "DEVICE FW DURATION [ns]"))
					cdur = i;
			}
			continue;
		}
		(*rows)++;
		if (cdur < n && cseq < n && f[cdur][0]) {
			uint64_t seq = strtoull(f[cseq], NULL, 10);

			if (seq < cap)
				dur[seq] = atof(f[cdur]);
		}
	}
	free(line);
	fclose(fp);
	return dur;
}

/* percent -> thousandths of a percent, for pctl's integer print */
static void scale_1000(double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] *= 1000;
}

static int timesync(const char *dir, const char *truth)
{
	char path[4096], *line = NULL, name[64];
	size_t len = 0, npts = 0, cap = 0, n = 0, nd = 0, ncap = 0;
	struct kprof_sync_pt *pts = NULL;
	struct kprof_spool_reader *r;
	const struct kprof_rec_hdr *rec;
	struct kprof_tsfit pw, os;
	struct kprof_err err;
	double *epw = NULL, *eos = NULL, *rel = NULL, hz, *dur;
	uint64_t rows = 0, missing = 0, outside = 0, ntruth = 0, c_first = 0, c_last = 0;
	double t_first = 0, t_last = 0;
	FILE *tf;

	snprintf(path, sizeof(path), "%s/%s", dir, KPROF_SPOOL_DEVICE_FILE);
	r = kprof_spool_open(path, &err);
	if (!r) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return 1;
	}
	hz = (double)kprof_spool_header(r)->device.ref_clock_hz;
	while (kprof_spool_next(r, &rec, &err) == KPROF_REC_OK) {
		const struct kprof_rec_sync *s = (const void *)rec;

		if (rec->type != KPROF_REC_SYNC)
			continue;
		if (npts == cap) {
			cap = cap ? 2 * cap : 1024;
			pts = realloc(pts, cap * sizeof(*pts));
		}
		pts[npts++] = (struct kprof_sync_pt){ s->host_before_ns, s->device_cycles,
						      s->host_after_ns };
	}
	kprof_spool_free(r);
	if (kprof_tsfit_piecewise(pts, npts, hz, &pw, &err) ||
	    kprof_tsfit_oneshot(pts, npts, hz, &os, &err)) {
		fprintf(stderr, "collector: %s\n", err.msg);
		return 1;
	}
	tf = fopen(truth, "r");
	if (!tf) {
		fprintf(stderr, "collector: cannot open %s\n", truth);
		return 1;
	}
	dur = load_ops(dir, 1 << 22, &rows);
	while (getline(&line, &len, tf) > 0) {
		unsigned long long seq, fc, lc, mhz;
		unsigned long long launch, start, end, fsc, fec;

		if (sscanf(line, "%llu %63s %llu %llu %llu %llu %llu %llu %llu %llu",
			   &seq, name, &fc, &lc, &mhz, &launch, &start, &end, &fsc, &fec) != 10)
			continue;	/* header */
		if (!ntruth) {
			t_first = (double)start;
			c_first = fsc;
		}
		t_last = (double)start;
		c_last = fsc;
		ntruth++;
		if (n + 2 > ncap) {
			ncap = ncap ? 2 * ncap : 4096;
			epw = realloc(epw, ncap * sizeof(*epw));
			eos = realloc(eos, ncap * sizeof(*eos));
			rel = realloc(rel, ncap * sizeof(*rel));
		}
		if (fsc < pw.first_dev || fec > pw.last_dev)
			outside++;
		epw[n] = fabs(kprof_tsfit_to_host(&pw, fsc) - (double)start);
		eos[n++] = fabs(kprof_tsfit_to_host(&os, fsc) - (double)start);
		epw[n] = fabs(kprof_tsfit_to_host(&pw, fec) - (double)end);
		eos[n++] = fabs(kprof_tsfit_to_host(&os, fec) - (double)end);
		if (dur && seq < (1 << 22) && dur[seq] >= 0 && end > start)
			rel[nd++] = fabs(dur[seq] - (double)(end - start)) /
				    (double)(end - start) * 100;
		else
			missing++;
	}
	fclose(tf);
	/*
	 * Where inside its window each sync read really happened: the truth
	 * gives exact (cycles, host ns) pairs on the same linear timer, so the
	 * first and last op pin it down (0 = at host_before, 1 = at host_after;
	 * 0.5 is the midpoint the fit assumes).
	 */
	if (ntruth >= 2 && npts) {
		double *pos = malloc(npts * sizeof(*pos));
		size_t np = 0;

		for (size_t i = 0; pos && i < npts; i++) {
			double t = t_first + ((double)pts[i].device_cycles - (double)c_first) *
				   (t_last - t_first) / ((double)c_last - (double)c_first);
			double w = (double)(pts[i].host_after_ns - pts[i].host_before_ns);

			if (w > 0)
				pos[np++] = (t - (double)pts[i].host_before_ns) / w * 1000;
		}
		pctl("sync read position [0.001 of window]", pos, np);
		free(pos);
	}
	printf("sync samples %zu used %zu rejected %zu, ", pw.samples, pw.used, pw.rejected);
	printf("median window %.0f ns, drift %.2f ppm, bound %.0f ns\n",
	       pw.median_window_ns, pw.drift_ppm, pw.err_bound_ns);
	printf("truth ops %" PRIu64 " (%" PRIu64 " outside the sampled range), ops.csv rows %"
	       PRIu64 ", truth ops without a duration in ops.csv %" PRIu64 "\n",
	       ntruth, outside, rows, missing);
	pctl("piecewise |error| [ns] (FW start+end)", epw, n);
	pctl("one-shot  |error| [ns] (FW start+end)", eos, n);
	scale_1000(rel, nd);
	pctl("FW duration |error| [0.001 % of truth]", rel, nd);
	free(epw);
	free(eos);
	free(rel);
	free(dur);
	free(pts);
	free(line);
	kprof_tsfit_free(&pw);
	kprof_tsfit_free(&os);
	return 0;
}

/*
 * The machine's limit for a report: map the device spool, walk the records
 * by size and add up one field of every marker, nothing else. Prints the
 * markers, the time and the sum (so the loop cannot be optimised away).
 */
static int limit_loop(const char *dir)
{
	char path[4096];
	const struct kprof_spool_hdr *h;
	const uint8_t *p, *end;
	uint64_t markers = 0, sum = 0;
	double w0, c0, w, c;
	struct stat st;
	void *map;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, KPROF_SPOOL_DEVICE_FILE);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "collector: %s: %s\n", path, strerror(errno));
		return 1;
	}
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, "collector: mmap %s: %s\n", path, strerror(errno));
		return 1;
	}
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	h = map;
	p = (const uint8_t *)map + h->hdr_size;
	end = (const uint8_t *)map + st.st_size;
	while (p + sizeof(struct kprof_rec_hdr) <= end) {
		const struct kprof_rec_hdr *r = (const void *)p;

		if (r->size < sizeof(*r) || p + r->size > end)
			break;
		if (r->type == KPROF_REC_MARKER) {
			sum += ((const struct kprof_rec_marker *)r)->timestamp;
			markers++;
		}
		p += r->size;
	}
	munmap(map, (size_t)st.st_size);
	w = now(CLOCK_MONOTONIC) - w0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	printf("limit: markers %" PRIu64 " wall %.3f s cpu %.3f s markers/s (wall) %.1fM (sum %"
	       PRIx64 ")\n", markers, w, c, markers / w / 1e6, sum);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], strtoull(argv[3], NULL, 10), 0);
	if (argc == 6 && !strcmp(argv[1], "gen") && !strcmp(argv[4], "ring") &&
	    strtoul(argv[5], NULL, 10) - 1 < RING_OPS_MAX)
		return gen(argv[2], strtoull(argv[3], NULL, 10),
			   (unsigned int)strtoul(argv[5], NULL, 10));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "gen-gpu"))
		return gen_gpu(argv[2], strtoull(argv[3], NULL, 10),
			       argc < 5 ? GEN_API : !strcmp(argv[4], "queued") ? GEN_QUEUED :
			       !strcmp(argv[4], "uprobe") ? GEN_UPROBE : GEN_API);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "run"))
		return run(argv[2], argv[3], argc == 5 && !strcmp(argv[4], "trace"),
			   argc == 5 && !strcmp(argv[4], "devlog"));
	if (argc == 3 && !strcmp(argv[1], "limit"))
		return limit_loop(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "timesync"))
		return timesync(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "html"))
		return page(argv[2]);
	fprintf(stderr,
		"usage: collector gen DIR MARKERS [ring OPS] | collector gen-gpu DIR KERNELS [queued|uprobe] |\n"
		"       collector run DIR OUTDIR [trace|devlog] | collector limit DIR |\n"
		"       collector html OUTDIR |\n"
		"       collector timesync CAPTURE_DIR TRUTH (sim debugfs truth)\n");
	return 2;
}
