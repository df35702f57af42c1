// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_gpu: a hand-written agent spool read as device records (OP with a
 * long name, markers, counters, SYNC, STATE) and host events; the agent's
 * account of itself; tracks; the long OP CODE through kprof_agg; the spool
 * list of a capture directory.
 */
#include "kt.h"
#include "kprof_array_size.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include "kprof_agg.h"
#include "kprof_gpu.h"
#include "kprof_outdir.h"
#include "kprof_spool.h"

static char dir[32] = "/tmp/kprof-test-gpu-XXXXXX";
static char longname[600];

/* a new agent spool dir/name, as the agent makes it */
static struct kprof_spool_writer *create(const char *name)
{
	struct kprof_err err = { 0 };
	struct kprof_outdir *od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	struct kprof_spool_writer *w = od ? kprof_spool_create_in(od, name, KPROF_SPOOL_GPU,
								  NULL, NULL, &err) : NULL;

	KT_CHECK(w, "%s", err.msg);
	kprof_outdir_close(od);
	return w;
}

static void put(struct kprof_spool_writer *w, const void *r, size_t n)
{
	struct kprof_err err;

	KT_CHECK(!kprof_spool_append(w, r, n, &err), "append: %s", err.msg);
}

static void put_name_kind(struct kprof_spool_writer *w, uint16_t kind, uint32_t id,
			  const char *text, int bad);

static void put_name(struct kprof_spool_writer *w, uint32_t id, const char *text, int bad)
{
	put_name_kind(w, KPROF_GNAME_KERNEL, id, text, bad);
}

static void put_name_kind(struct kprof_spool_writer *w, uint16_t kind, uint32_t id,
			  const char *text, int bad)
{
	uint8_t b[1024];
	struct kprof_grec_name *n = (void *)b;
	size_t len = strlen(text), size = (sizeof(*n) + len + 1 + 7) & ~(size_t)7;

	memset(b, 0, sizeof(b));
	n->type = KPROF_GREC_NAME;
	n->size = (uint16_t)size;
	n->id = id;
	n->kind = kind;
	n->len = (uint16_t)(bad ? len + 64 : len);	/* bad: says more than it holds */
	memcpy(n->text, text, len);
	put(w, b, size);
}

static void put_api(struct kprof_spool_writer *w, uint32_t corr, uint64_t s, uint64_t e,
		    uint8_t role, uint32_t ret)
{
	struct kprof_grec_api a = {
		.type = KPROF_GREC_API, .size = sizeof(a), .start_ns = s, .end_ns = e,
		.correlation = corr, .cbid = 307, .pid = 40, .tid = 41, .ret = ret,
		.domain = KPROF_GDOMAIN_DRIVER, .role = role,
	};

	put(w, &a, sizeof(a));
}

static void put_agent(struct kprof_spool_writer *w, uint32_t ev, int32_t code, uint64_t v,
		      uint64_t v2, uint32_t clock, const char *text)
{
	struct kprof_grec_agent a = {
		.type = KPROF_GREC_AGENT, .size = sizeof(a), .host_ns = 100 + ev, .event = ev,
		.pid = 40, .ppid = 39, .code = code, .clock = clock, .value = v, .value2 = v2,
	};

	snprintf(a.comm, sizeof(a.comm), "%s", "python3");
	snprintf(a.text, sizeof(a.text), "%s", text);
	put(w, &a, sizeof(a));
}

/* the spool every test reads */
static void write_spool(const char *name, uint32_t clock)
{
	struct kprof_spool_writer *w;
	struct kprof_err err;
	struct kprof_grec_kernel k = {
		.type = KPROF_GREC_KERNEL, .size = sizeof(k), .start_ns = 1500, .end_ns = 2500,
		.correlation = 10, .device = 0, .stream = 7, .grid = { 4, 2, 1 },
		.block = { 128, 2, 1 }, .static_smem = 100, .dynamic_smem = 28, .registers = 32,
		.name_id = 3,
	};
	struct kprof_grec_copy c = {
		.type = KPROF_GREC_COPY, .size = sizeof(c), .start_ns = 2600, .end_ns = 2700,
		.bytes = 4096, .correlation = 11, .stream = 8, .kind = KPROF_GCOPY_MEMCPY,
		.copy_kind = KPROF_GMEMCPY_HTOD,
	};
	struct kprof_grec_dropped d = { .type = KPROF_GREC_DROPPED, .size = sizeof(d),
					.host_ns = 3000, .count = 5, .stream = 7 };
	struct kprof_rec_sync s = {
		.hdr = { KPROF_REC_SYNC, sizeof(s), 0 },
		.host_before_ns = 10, .device_cycles = 12, .host_after_ns = 14
	};

	w = create(name);
	if (!w)
		return;
	put_agent(w, KPROF_GAGENT_START, 0, 130001, 4096, clock, "");
	put(w, &s, sizeof(s));
	put_agent(w, KPROF_GAGENT_ERROR, KPROF_GERR_MULTIPLE_SUBSCRIBERS, 0, 0, clock,
		  "cuptiSubscribe");
	put_name(w, 3, longname, 0);
	put_api(w, 10, 1000, 1100, KPROF_GROLE_LAUNCH, 0);
	put(w, &k, sizeof(k));
	put_api(w, 11, 2550, 2560, KPROF_GROLE_LAUNCH, 1);
	put(w, &c, sizeof(c));
	put_api(w, 12, 2700, 2800, KPROF_GROLE_SYNC, 0);
	put(w, &d, sizeof(d));
	/* a NAME that does not hold the text it announces, then a kernel of it */
	put_name(w, 4, "short", 1);
	k.name_id = 4;
	k.correlation = 13;
	k.start_ns = 2900;
	k.end_ns = 2950;
	put(w, &k, sizeof(k));
	put_agent(w, KPROF_GAGENT_NO_BUFFER, 0, 6, 0, clock, "");
	put_agent(w, KPROF_GAGENT_STOP, 0, 17, 2, clock, "");
	KT_CHECK(!kprof_spool_close(w, &err), "%s", err.msg);
}

static const struct kprof_rec_hdr *next(struct kprof_gpu_src *s)
{
	const struct kprof_rec_hdr *r = NULL;
	struct kprof_err err;
	int ret = kprof_gpu_next(s, &r, &err);

	return ret == 1 ? r : NULL;
}

static void check_op(const struct kprof_rec_hdr *r, uint32_t corr, uint32_t track,
		     const char *name, uint64_t ts, uint64_t s, uint64_t e,
		     struct kprof_gpu_src *src)
{
	const struct kprof_rec_op *op = (const void *)r;
	static const uint8_t kinds[] = { KPROF_MARK_FW_START, KPROF_MARK_KERNEL_START,
					 KPROF_MARK_KERNEL_END, KPROF_MARK_FW_END };

	KT_CHECK(r && r->type == KPROF_REC_OP, "OP");
	if (!r || r->type != KPROF_REC_OP)
		return;
	KT_EQ_U64(op->op_seq, corr);
	KT_EQ_U64(op->first_core, track);
	KT_EQ_U64(op->num_cores, 1);
	KT_EQ_U64(op->timestamp, ts);
	KT_EQ_U64(r->size % 8, 0);
	if (strlen(name) >= KPROF_NAME_LEN) {
		KT_CHECK(r->size > sizeof(*op), "a long name follows the record");
		KT_STR((const char *)(op + 1), name);
		KT_EQ_U64(strnlen(op->name, sizeof(op->name)), KPROF_NAME_LEN - 1);
	} else {
		KT_EQ_U64(r->size, sizeof(*op));
		KT_STR(op->name, name);
	}
	for (int i = 0; i < 4; i++) {
		const struct kprof_rec_marker *m = (const void *)next(src);

		KT_CHECK(m && m->hdr.type == KPROF_REC_MARKER, "marker %d", i);
		if (!m)
			return;
		KT_EQ_U64(m->kind, kinds[i]);
		KT_EQ_U64(m->core, track);
		KT_EQ_U64(m->risc, 0);
		KT_EQ_U64(m->op_seq, corr);
		KT_EQ_U64(m->timestamp, i < 2 ? s : e);
	}
}

static void test_device_view(const char *path, uint32_t clock)
{
	struct kprof_err err;
	struct kprof_gpu_src *s = kprof_gpu_open(path, KPROF_GPU_VIEW_DEVICE, &err);
	const struct kprof_rec_hdr *r;
	const struct kprof_rec_counters *c;
	const struct kprof_gpu_stats *st;
	char name[64];

	KT_CHECK(s, "%s", err.msg);
	if (!s)
		return;
	for (int pass = 0; pass < 2; pass++) {
		r = next(s);
		KT_CHECK(r && r->type == KPROF_REC_STATE &&
			 ((const struct kprof_rec_state *)r)->reason == KPROF_REASON_START,
			 "start");
		/* SYNC triples map CUPTI's clock; on CLOCK_MONOTONIC they map
		 * nothing and, taken when CUPTI hands a buffer over, would
		 * make the buffer's records look late (the report's memory)
		 */
		if (clock == KPROF_GCLOCK_CUPTI) {
			r = next(s);
			KT_CHECK(r && r->type == KPROF_REC_SYNC &&
				 ((const struct kprof_rec_sync *)r)->device_cycles == 12,
				 "SYNC as it is");
		}
		/* the kernel: dispatched at its launch's entry */
		check_op(next(s), 10, 0, longname, 1000, 1500, 2500, s);
		c = (const void *)next(s);
		KT_CHECK(c && c->hdr.type == KPROF_REC_COUNTERS, "counters");
		if (c) {
			KT_EQ_U64(c->counter_mask, 1ULL << KPROF_GPU_CNT_BLOCKS |
				  1ULL << KPROF_GPU_CNT_THREADS | 1ULL << KPROF_GPU_CNT_REGS |
				  1ULL << KPROF_GPU_CNT_SMEM);
			KT_EQ_U64(c->values[0], 8);	/* blocks */
			KT_EQ_U64(c->values[1], 256);	/* threads per block */
			KT_EQ_U64(c->values[2], 32);
			KT_EQ_U64(c->values[3], 128);
			KT_EQ_U64(c->op_seq, 10);
		}
		/* the memcpy, on a second track */
		check_op(next(s), 11, 1, "[memcpy HtoD]", 2550, 2600, 2700, s);
		c = (const void *)next(s);
		KT_CHECK(c && c->counter_mask == 1ULL << KPROF_GPU_CNT_BYTES &&
			 c->values[0] == 4096, "bytes");
		/* the kernel whose name record was bad: unnamed, counted; no
		 * launch seen: dispatched at its start
		 */
		check_op(next(s), 13, 0, "", 2900, 2900, 2950, s);
		next(s);
		r = next(s);
		KT_CHECK(r && r->type == KPROF_REC_STATE &&
			 ((const struct kprof_rec_state *)r)->reason == KPROF_REASON_STOP, "stop");
		KT_CHECK(!next(s), "end");
		st = kprof_gpu_stats(s);
		KT_EQ_U64(st->pid, 40);
		KT_STR(st->comm, "python3");
		KT_EQ_U64(st->kernels, 2);
		KT_EQ_U64(st->memcpys, 1);
		KT_EQ_U64(st->dropped, 5);
		KT_EQ_U64(st->no_buffer, 6);
		KT_EQ_U64(st->api_launches, 2);
		KT_EQ_U64(st->api_syncs, 1);
		KT_EQ_U64(st->stopped, 1);
		KT_EQ_U64(st->forks, 2);
		KT_EQ_U64(st->records_written, 17);
		KT_EQ_U64(st->multiple_subscribers, 1);
		KT_EQ_U64(st->nerrors, 1);
		KT_STR(st->errors[0].text, "cuptiSubscribe");
		KT_EQ_U64(st->bad_names, 1);
		KT_EQ_U64(st->unnamed, 1);
		KT_EQ_U64(kprof_gpu_ntracks(s), 2);
		/* a second pass: the same, counted once */
		if (!pass)
			KT_CHECK(!kprof_gpu_rewind(s, &err), "rewind");
	}
	kprof_gpu_track_name(s, 1, name, sizeof(name));
	KT_STR(name, "GPU 0 stream 8");
	kprof_gpu_free(s);
}

static void test_host_view(const char *path)
{
	struct kprof_err err;
	struct kprof_gpu_src *s = kprof_gpu_open(path, KPROF_GPU_VIEW_HOST, &err);
	const struct kprof_host_event *ev;
	struct kprof_tsfit fit;

	KT_CHECK(s, "%s", err.msg);
	if (!s)
		return;
	ev = (const void *)next(s);
	KT_CHECK(ev && ev->type == KPROF_HREC_IOCTL, "host event");
	if (ev) {
		KT_EQ_U64(ev->role, KPROF_ROLE_LAUNCH);
		KT_EQ_U64(ev->enter_ns, 1000);
		KT_EQ_U64(ev->exit_ns, 1100);
		KT_EQ_U64(ev->seq, 10);
		KT_EQ_U64(ev->ret, 0);
		KT_EQ_U64(ev->tid, 41);
		KT_EQ_U64(ev->cmd, (uint32_t)KPROF_GDOMAIN_DRIVER << 16 | 307);
		KT_STR(ev->comm, "python3");
	}
	ev = (const void *)next(s);
	KT_CHECK(ev && ev->ret == -1 && ev->seq == 11, "a failed call: ret < 0");
	ev = (const void *)next(s);
	KT_CHECK(ev && ev->role == KPROF_ROLE_SYNC && ev->seq == 12, "sync");
	KT_CHECK(!next(s), "only API calls");
	/* CUPTI's own clock: converted through the fit */
	kprof_tsfit_linear(&fit, 1.0, 500);
	kprof_gpu_set_fit(s, &fit);
	KT_CHECK(!kprof_gpu_rewind(s, &err), "rewind");
	ev = (const void *)next(s);
	KT_CHECK(ev && ev->enter_ns == 1500 && ev->exit_ns == 1600, "fit applied");
	kprof_tsfit_free(&fit);
	kprof_gpu_free(s);
}

static int emit_row(void *ctx, const struct kprof_op_row *row)
{
	if (row->seq == 10)
		snprintf(ctx, KPROF_OP_CODE_LEN, "%s", row->op_code);
	return 0;
}

/* the long name reaches the op row, cut to KPROF_OP_CODE_LEN - 1 */
static void test_agg_long_name(const char *path)
{
	struct kprof_err err;
	struct kprof_gpu_src *s = kprof_gpu_open(path, KPROF_GPU_VIEW_DEVICE, &err);
	struct kprof_tsfit fit;
	struct kprof_agg_config cfg;
	struct kprof_agg *a;
	const struct kprof_rec_hdr *r;
	char got[KPROF_OP_CODE_LEN] = "";

	if (!s)
		return;
	kprof_tsfit_linear(&fit, 1.0, 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.fit = &fit;
	cfg.num_riscs = 1;
	cfg.emit = emit_row;
	cfg.ctx = got;
	a = kprof_agg_new(&cfg, &err);
	while ((r = next(s)))
		kprof_agg_device_rec(a, r, &err);
	kprof_agg_finish(a, &err);
	KT_EQ_U64(strlen(got), sizeof(longname) - 1 < KPROF_OP_CODE_LEN - 1 ?
		  sizeof(longname) - 1 : KPROF_OP_CODE_LEN - 1);
	KT_CHECK(!strncmp(got, longname, strlen(got)), "the long name");
	kprof_agg_free(a);
	kprof_tsfit_free(&fit);
	kprof_gpu_free(s);
}

/* Untrusted sizes: a name far longer than the agent writes, a SYNC record
 * padded to 9000 bytes. Neither may overrun the view's record queue.
 */
static void test_oversized(void)
{
	static uint8_t b[9216];
	struct kprof_grec_name *n = (void *)b;
	struct kprof_rec_sync *y = (void *)b;
	struct kprof_grec_kernel k = {
		.type = KPROF_GREC_KERNEL, .size = sizeof(k), .start_ns = 5, .end_ns = 6,
		.correlation = 1, .name_id = 0,
	};
	struct kprof_spool_writer *w;
	struct kprof_gpu_src *s;
	const struct kprof_rec_hdr *r;
	struct kprof_err err;
	char path[512];

	snprintf(path, sizeof(path), "%s/gpu-41.kspool", dir);
	w = create("gpu-41.kspool");
	if (!w)
		return;
	memset(b, 'y', sizeof(b));
	n->type = KPROF_GREC_NAME;
	n->size = 9000;
	n->flags = 0;
	n->id = 0;
	n->kind = KPROF_GNAME_KERNEL;
	n->len = 9000 - sizeof(*n) - 8;
	n->text[n->len] = '\0';
	put(w, b, 9000);
	put(w, &k, sizeof(k));
	memset(b, 0, sizeof(b));
	y->hdr.type = KPROF_REC_SYNC;
	y->hdr.size = 9000;
	y->device_cycles = 77;
	put(w, b, 9000);
	kprof_spool_close(w, &err);
	s = kprof_gpu_open(path, KPROF_GPU_VIEW_DEVICE, &err);
	if (!s)
		return;
	r = next(s);
	KT_CHECK(r && r->type == KPROF_REC_OP, "OP");
	if (r)
		KT_EQ_U64(strlen((const char *)((const struct kprof_rec_op *)(const void *)r + 1)),
			  KPROF_GNAME_MAX);
	for (int i = 0; i < 5; i++)
		next(s);	/* markers, counters */
	r = next(s);
	KT_CHECK(r && r->type == KPROF_REC_SYNC && r->size == sizeof(struct kprof_rec_sync) &&
		 ((const struct kprof_rec_sync *)(const void *)r)->device_cycles == 77,
		 "SYNC at its known size");
	kprof_gpu_free(s);
}

static void test_list(void)
{
	static const struct { const char *name; size_t bytes; } files[] = {
		{ "gpu-5.kspool", 100 }, { "gpu-12.kspool", 300 }, { "gpu-7.kspool", 300 },
		{ "gpu-x.kspool", 900 }, { "gpu-9.kspool.tmp", 900 }, { "device.kspool", 900 },
	};
	struct kprof_gpu_spool sp[8];
	struct kprof_err err;
	char path[512];
	int n, capfd;

	snprintf(path, sizeof(path), "%s/raw", dir);
	mkdir(path, 0755);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/raw/%s", dir, files[i].name);
		f = fopen(path, "w");
		for (size_t b = 0; f && b < files[i].bytes; b++)
			fputc(0, f);
		if (f)
			fclose(f);
	}
	capfd = open(dir, O_RDONLY | O_DIRECTORY);
	n = kprof_gpu_list(capfd, dir, sp, 8, &err);
	KT_EQ_U64(n, 3);
	if (n == 3) {
		KT_EQ_U64(sp[0].pid, 5);
		KT_EQ_U64(sp[1].pid, 7);
		KT_EQ_U64(sp[2].pid, 12);
		/* the largest; of equals, the lowest pid */
		KT_EQ_U64(kprof_gpu_pick(sp, n), 1);
	}
	KT_EQ_U64(kprof_gpu_list(capfd, dir, sp, 1, &err), 3);	/* more than fit: counted */
	KT_EQ_U64(kprof_gpu_pick(sp, 0), (uint64_t)-1);
	close(capfd);
	capfd = open("/", O_RDONLY | O_DIRECTORY);
	KT_CHECK(kprof_gpu_list(capfd, "/", sp, 8, &err) < 0, "no raw/");
	close(capfd);
	KT_STR(kprof_gpu_copy_name(KPROF_GCOPY_MEMSET, 0), "[memset]");
	KT_STR(kprof_gpu_copy_name(KPROF_GCOPY_MEMCPY, KPROF_GMEMCPY_DTOH), "[memcpy DtoH]");
	KT_STR(kprof_gpu_copy_name(KPROF_GCOPY_MEMCPY, 200), "[memcpy]");
}

static void test_device_info(void)
{
	struct kprof_device_info d;
	struct kprof_counter_info c;

	kprof_gpu_device_info(3, &d, &c);
	KT_STR(d.backend, KPROF_GPU_BACKEND);
	KT_STR(d.name, "nvidia:3");
	KT_EQ_U64(d.device_id, 3);
	KT_EQ_U64(d.riscs_per_core, 0);
	KT_EQ_U64(d.ref_clock_hz, 1000000000ULL);
	KT_EQ_U64(c.num_counters, KPROF_GPU_NCOUNTERS);
	KT_STR(c.desc[KPROF_GPU_CNT_BYTES].name, "bytes");
}

/* --host-times queued: a kernel's queued timestamp is its launch (the
 * op's dispatch, a host launch event); an older agent's 80-byte kernel
 * record (no latency timestamps) still reads
 */
static void test_queued(void)
{
	struct kprof_grec_agent a = {
		.type = KPROF_GREC_AGENT, .size = sizeof(a), .host_ns = 1,
		.event = KPROF_GAGENT_START,
		.pid = 40, .clock = KPROF_GCLOCK_MONOTONIC, .host_times = KPROF_GHOST_QUEUED,
	};
	struct kprof_grec_kernel k = {
		.type = KPROF_GREC_KERNEL, .size = KPROF_GREC_KERNEL_V1_SIZE, .start_ns = 50,
		.end_ns = 60, .correlation = 1,
	};
	const struct kprof_host_event *ev;
	const struct kprof_rec_hdr *r;
	struct kprof_spool_writer *w;
	struct kprof_gpu_src *s;
	struct kprof_err err;
	char path[512];

	snprintf(path, sizeof(path), "%s/gpu-43.kspool", dir);
	w = create("gpu-43.kspool");
	if (!w)
		return;
	put(w, &a, sizeof(a));
	put(w, &k, KPROF_GREC_KERNEL_V1_SIZE);
	k.size = sizeof(k);
	k.correlation = 2;
	k.start_ns = 100;
	k.end_ns = 110;
	k.queued_ns = 90;
	k.submitted_ns = 95;
	put(w, &k, sizeof(k));
	KT_CHECK(!kprof_spool_close(w, &err), "%s", err.msg);
	s = kprof_gpu_open(path, KPROF_GPU_VIEW_DEVICE, &err);
	KT_CHECK(s, "%s", err.msg);
	if (!s)
		return;
	r = next(s);
	KT_CHECK(r && r->type == KPROF_REC_STATE, "start");
	r = next(s);
	KT_CHECK(r && r->type == KPROF_REC_OP && ((const struct kprof_rec_op *)r)->op_seq == 1 &&
		 ((const struct kprof_rec_op *)r)->timestamp == 50,
		 "80-byte record: dispatched at start");
	for (int i = 0; i < 5; i++)	/* its markers and counters */
		next(s);
	r = next(s);
	KT_CHECK(r && r->type == KPROF_REC_OP && ((const struct kprof_rec_op *)r)->op_seq == 2 &&
		 ((const struct kprof_rec_op *)r)->timestamp == 90, "dispatched at queued");
	KT_EQ_U64(kprof_gpu_stats(s)->host_times, KPROF_GHOST_QUEUED);
	KT_EQ_U64(kprof_gpu_stats(s)->queued_launches, 1);
	KT_STR(kprof_gpu_host_times_name(kprof_gpu_stats(s)->host_times), "queued");
	kprof_gpu_free(s);
	s = kprof_gpu_open(path, KPROF_GPU_VIEW_HOST, &err);
	if (!s)
		return;
	ev = (const void *)next(s);
	KT_CHECK(ev && ev->type == KPROF_HREC_IOCTL && ev->seq == 2 && ev->enter_ns == 90 &&
		 ev->exit_ns == 95 && ev->role == KPROF_ROLE_LAUNCH &&
		 ev->cmd == (uint32_t)KPROF_GDOMAIN_QUEUED << 16 && ev->pid == 40,
		 "a launch at queued .. submitted");
	KT_CHECK(!next(s), "only the kernel with a queued timestamp");
	kprof_gpu_free(s);
}

/*
 * A synchronize on an event (its API NAME record says which cbid) is a
 * sync host event flagged KPROF_HEVF_NO_COVER: it covers no op; a
 * stream's synchronize is not flagged.
 */
static void test_event_sync(void)
{
	struct kprof_spool_writer *w = create("evsync.kspool");
	const struct kprof_host_event *ev;
	struct kprof_gpu_src *s;
	struct kprof_grec_api a = {
		.type = KPROF_GREC_API, .size = sizeof(a), .pid = 40, .tid = 41,
		.domain = KPROF_GDOMAIN_DRIVER, .role = KPROF_GROLE_SYNC,
	};
	struct kprof_err err;
	char path[64];

	if (!w)
		return;
	put_agent(w, KPROF_GAGENT_START, 0, 130001, 4096, KPROF_GCLOCK_MONOTONIC, "");
	put_name_kind(w, KPROF_GNAME_API, KPROF_GDOMAIN_DRIVER << 16 | 121,
		      "cuEventSynchronize", 0);
	put_name_kind(w, KPROF_GNAME_API, KPROF_GDOMAIN_DRIVER << 16 | 126,
		      "cuStreamSynchronize", 0);
	for (uint32_t i = 0; i < 2; i++) {
		a.correlation = 20 + i;
		a.cbid = i ? 126 : 121;
		a.start_ns = 1000 + 100 * i;
		a.end_ns = a.start_ns + 50;
		put(w, &a, sizeof(a));
	}
	KT_CHECK(!kprof_spool_close(w, &err), "close: %s", err.msg);
	snprintf(path, sizeof(path), "%s/evsync.kspool", dir);
	s = kprof_gpu_open(path, KPROF_GPU_VIEW_HOST, &err);
	KT_CHECK(s, "%s", err.msg);
	if (!s)
		return;
	ev = (const void *)next(s);
	KT_CHECK(ev && ev->role == KPROF_ROLE_SYNC && ev->seq == 20 &&
		 ev->flags == KPROF_HEVF_NO_COVER, "cuEventSynchronize: no cover (flags %#x)",
		 ev ? ev->flags : 0);
	ev = (const void *)next(s);
	KT_CHECK(ev && ev->role == KPROF_ROLE_SYNC && ev->seq == 21 && ev->flags == 0,
		 "cuStreamSynchronize: covers (flags %#x)", ev ? ev->flags : 0);
	kprof_gpu_free(s);
}

int main(void)
{
	char path[512];

	KT_CHECK(mkdtemp(dir), "mkdtemp");
	for (size_t i = 0; i < sizeof(longname) - 1; i++)
		longname[i] = (char)('a' + i % 26);
	snprintf(path, sizeof(path), "%s/gpu-40.kspool", dir);
	write_spool("gpu-40.kspool", KPROF_GCLOCK_MONOTONIC);
	test_device_view(path, KPROF_GCLOCK_MONOTONIC);
	test_host_view(path);
	test_agg_long_name(path);
	snprintf(path, sizeof(path), "%s/gpu-42.kspool", dir);
	write_spool("gpu-42.kspool", KPROF_GCLOCK_CUPTI);
	test_device_view(path, KPROF_GCLOCK_CUPTI);
	test_oversized();
	test_queued();
	test_event_sync();
	test_list();
	test_device_info();
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	KT_CHECK(system(path) == 0, "cleanup");
	return kt_done("test_gpu");
}
