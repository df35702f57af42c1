// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libkprof_cupti.so: the CUPTI agent kprofctl injects into a CUDA
 * workload (CUDA_INJECTION64_PATH). libcuda calls InitializeInjection()
 * once when the process initializes CUDA; the agent then asks CUPTI for
 * activity records of kernels, memcpys, memsets and the launch/sync API
 * calls, with CUPTI's timestamps on CLOCK_MONOTONIC, and writes them to
 * $KPROF_AGENT_DIR/gpu-PID.kspool as kprof spool records
 * (<kprof/gpu_rec.h>).
 *
 * It runs inside someone else's process, unprivileged: it must never
 * crash or block the workload. Every failure is written to the spool (an
 * AGENT ERROR record) and the workload goes on; memory is bounded (at
 * most KPROF_AGENT_BUFFERS buffers of KPROF_AGENT_BUFFER_KB; beyond that
 * CUPTI drops records and counts them, which the spool says); the spool
 * is only written, never read.
 *
 * libcupti is loaded with dlopen(): $KPROF_CUPTI_LIB, else libcupti.so.13,
 * .12, libcupti.so on the library path or in the CUDA toolkit's usual
 * places. Its declarations are kprof_cupti.h.
 *
 * Environment: KPROF_AGENT_DIR (required; without it the agent does
 * nothing), KPROF_CUPTI_LIB, KPROF_AGENT_API (driver | runtime | both |
 * none: which API calls to record; default driver), KPROF_AGENT_BUFFER_KB
 * (default 4096), KPROF_AGENT_BUFFERS (default 16), KPROF_AGENT_CB_RECS
 * (records per chunk of host-time callbacks, default and most 512; tests:
 * fewer make more chunks), KPROF_AGENT_DEMANGLE
 * (0: keep mangled kernel names), KPROF_AGENT_RECORD=FILE (also write
 * what CUPTI handed over to FILE, kprof_cuptirec.h: test data),
 * KPROF_AGENT_CUPTI_CLOCK=1 (tests: leave CUPTI on its own clock),
 * KPROF_AGENT_HOST_TIMES (api | callback | queued | both: where the launch
 * and sync calls' host times come from; default api, see
 * enable_host_times()), KPROF_AGENT_COUNTERS (metrics to read per kernel
 * through CUPTI's range profiler: kprof_cupti_counters.c; unset: none).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/kprof.h>
#include <kprof/gpu_rec.h>

#include "kprof_agent.h"
#include "kprof_agent_devices.h"
#include "kprof_array_size.h"
#include "kprof_cupti.h"
#include "kprof_cupti_conv.h"
#include "kprof_cupti_counters.h"
#include "kprof_cuptirec.h"
#include "kprof_outdir.h"
#include "kprof_spool.h"

#define EXPORT	__attribute__((visibility("default")))

#define DEFAULT_BUFFER_KB	4096
#define DEFAULT_BUFFERS		16
#define FLUSH_PERIOD_MS		500

struct cupti_fns {
	kprof_cuptiGetVersion_fn GetVersion;
	kprof_cuptiSubscribe_fn Subscribe;
	kprof_cuptiActivityEnable_fn ActivityEnable;
	kprof_cuptiActivityEnableDriverApi_fn ActivityEnableDriverApi;
	kprof_cuptiActivityEnableRuntimeApi_fn ActivityEnableRuntimeApi;
	kprof_cuptiGetCallbackName_fn GetCallbackName;
	kprof_cuptiActivityRegisterCallbacks_fn ActivityRegisterCallbacks;
	kprof_cuptiActivityRegisterTimestampCallback_fn ActivityRegisterTimestampCallback;
	kprof_cuptiActivityGetNextRecord_fn ActivityGetNextRecord;
	kprof_cuptiActivityGetNumDroppedRecords_fn ActivityGetNumDroppedRecords;
	kprof_cuptiActivityFlushAll_fn ActivityFlushAll;
	kprof_cuptiActivityFlushPeriod_fn ActivityFlushPeriod;
	kprof_cuptiGetTimestamp_fn GetTimestamp;
	kprof_cuptiActivityEnableLatencyTimestamps_fn ActivityEnableLatencyTimestamps;
	kprof_cuptiEnableCallback_fn EnableCallback;
};

/*
 * Host-time callbacks (KPROF_GHOST_CALLBACK): each launching thread fills
 * chunks of API records of its own; full chunks wait on a list until a
 * buffer completion (CUPTI's thread) or the exit writes them, so that a
 * launch never waits for the spool. A thread whose chunk is full when all
 * CB_MAX_CHUNKS are taken writes the waiting ones itself (a stall, no
 * loss). Lock order: a thread's own lock, then cb_lock.
 */
#define CB_CHUNK_RECS	512
#define CB_MAX_CHUNKS	256	/* 256 * 512 * 48 bytes: 6 MiB in flight at most */

struct cb_chunk {
	struct cb_chunk *next;
	unsigned int used;
	struct kprof_grec_api rec[CB_CHUNK_RECS];
};

struct cb_thread {
	struct cb_thread *next;		/* never removed: a few per process */
	pthread_mutex_t lock;
	struct cb_chunk *cur;
	uint32_t tid;
};

static __thread struct cb_thread *cb_self;

/*
 * Two locks. lock: the spool and the conversion; buffer_complete() holds
 * it while it calls CUPTI (record iteration, dropped counts, timestamps).
 * buf_lock: the buffer pool alone, a leaf never held across a call out.
 * buffer_request() takes only buf_lock: CUPTI asks for a buffer from the
 * launching thread with its own locks held, and waiting there for lock
 * while the completing thread waits in CUPTI for those locks hung
 * workloads of 200k+ launches on an H100 (no CPU, spool stopped).
 */
static struct agent {
	pthread_mutex_t lock;
	pthread_mutex_t buf_lock;
	int inited;
	pid_t pid;			/* the process that set up; a fork child differs */
	struct kprof_spool_writer *w;
	int write_failed;
	void *lib;
	struct cupti_fns f;
	uint32_t clock;
	uint32_t host_times;		/* KPROF_GHOST_* */
	int latency;			/* CUPTI's latency timestamps on */
	struct CUpti_Subscriber_st *sub;
	pthread_mutex_t cb_lock;	/* the lists below; a leaf */
	struct cb_thread *cb_threads;
	struct cb_chunk *cb_full, *cb_free;
	unsigned int cb_chunks;		/* allocated */
	unsigned int cb_recs;		/* records a chunk takes (KPROF_AGENT_CB_RECS) */
	uint64_t cb_lost;		/* calls not recorded: no memory (cb_lock) */
	struct kprof_grec_api *cb_sorted;	/* CB_MAX_CHUNKS * CB_CHUNK_RECS */
	size_t buf_size;
	unsigned int max_bufs, nbufs;	/* allocated (in use or free) */
	void *free_bufs;		/* list through each buffer's first word */
	uint64_t refused, refused_told;
	kprof_cupti_result_t pending_error;	/* of enable_host_times() */
	const char *pending_what;
	uint64_t records, forks;
	struct kprof_conv conv;
	int rec_fd;			/* KPROF_AGENT_RECORD, or -1 */
	int devices_put;		/* KPROF_GREC_DEVICE records written */
	const void **rec_strs;		/* name pointers already recorded */
	size_t nrec_strs;
	uint8_t out[2 * KPROF_CONV_MAX_BYTES];
} A = { .lock = PTHREAD_MUTEX_INITIALIZER, .buf_lock = PTHREAD_MUTEX_INITIALIZER,
	.cb_lock = PTHREAD_MUTEX_INITIALIZER, .rec_fd = -1 };

#define REC_STRS_MAX	65536

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- spool (A.lock held) ---- */

static void put(const void *rec, size_t len)
{
	struct kprof_err err;

	if (!A.w || A.write_failed)
		return;
	if (kprof_spool_append(A.w, rec, len, &err))
		A.write_failed = 1;	/* disk full or the like: stop writing, go on running */
	else
		A.records++;
}

/* an AGENT record (no lock needed: what it reads is set before any use) */
static void make_agent(struct kprof_grec_agent *rp, uint32_t event, int32_t code,
		       uint64_t value, uint64_t value2, const char *text)
{
	struct kprof_grec_agent r;

	memset(&r, 0, sizeof(r));
	r.type = KPROF_GREC_AGENT;
	r.size = sizeof(r);
	r.host_ns = mono_ns();
	r.event = event;
	r.pid = (uint32_t)getpid();
	r.ppid = (uint32_t)getppid();
	r.code = code;
	r.clock = A.clock;
	r.host_times = A.host_times;
	r.value = value;
	r.value2 = value2;
	if (event == KPROF_GAGENT_START) {
		int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			ssize_t n = read(fd, r.comm, sizeof(r.comm) - 1);

			if (n > 0 && r.comm[n - 1] == '\n')
				r.comm[n - 1] = '\0';
			close(fd);
		}
	}
	if (text)
		snprintf(r.text, sizeof(r.text), "%s", text);
	*rp = r;
}

static void put_agent(uint32_t event, int32_t code, uint64_t value, uint64_t value2,
		      const char *text)
{
	struct kprof_grec_agent r;

	make_agent(&r, event, code, value, value2, text);
	put(&r, sizeof(r));
}

/* A CUPTI call failed: say which and with what. */
static void put_error(const char *what, kprof_cupti_result_t res)
{
	put_agent(KPROF_GAGENT_ERROR, (int32_t)res, 0, 0, what);
}

/* (CLOCK_MONOTONIC, CUPTI timestamp, CLOCK_MONOTONIC): the narrowest of
 * a few reads, so that a preempted one is not the one the fit gets (a
 * capture has few of these)
 */
static int take_sync(struct kprof_rec_sync *best)
{
	struct kprof_rec_sync s;
	uint64_t t;

	if (!A.f.GetTimestamp)
		return -1;
	memset(&s, 0, sizeof(s));
	s.hdr.type = KPROF_REC_SYNC;
	s.hdr.size = sizeof(s);
	*best = s;
	for (int i = 0; i < 5; i++) {
		s.host_before_ns = mono_ns();
		if (A.f.GetTimestamp(&t) != KPROF_CUPTI_SUCCESS)
			return -1;
		s.device_cycles = t;
		s.host_after_ns = mono_ns();
		if (!i || s.host_after_ns - s.host_before_ns <
			  best->host_after_ns - best->host_before_ns)
			*best = s;
	}
	return 0;
}

static void put_sync(void)
{
	struct kprof_rec_sync s;

	if (!take_sync(&s))
		put(&s, sizeof(s));
}

static void flush_spool(void)
{
	struct kprof_err err;

	if (A.w && !A.write_failed && kprof_spool_flush(A.w, &err))
		A.write_failed = 1;
}

/* ---- recorder (A.lock held) ---- */

static void rec_frame(uint16_t type, uint32_t a, uint32_t b, uint64_t c,
		      const void *payload, size_t len)
{
	struct kprof_crec_frame f = { KPROF_CREC_MAGIC, type, 0, a, b, c, len };
	static const uint8_t zero[8];
	size_t pad = (8 - len % 8) % 8;

	if (A.rec_fd < 0)
		return;
	if (write(A.rec_fd, &f, sizeof(f)) != (ssize_t)sizeof(f) ||
	    (len && write(A.rec_fd, payload, len) != (ssize_t)len) ||
	    (pad && write(A.rec_fd, zero, pad) != (ssize_t)pad)) {
		close(A.rec_fd);	/* test data only: give up quietly */
		A.rec_fd = -1;
	}
}

/* ---- for the agent's other parts (kprof_agent.h) ---- */

void kprof_agent_put(const void *rec, size_t len)
{
	put(rec, len);
}

void kprof_agent_event(uint32_t event, int32_t code, uint64_t value, uint64_t value2,
		       const char *text)
{
	put_agent(event, code, value, value2, text);
}

void kprof_agent_event_rec(struct kprof_grec_agent *r, uint32_t event, int32_t code,
			   uint64_t value, uint64_t value2, const char *text)
{
	make_agent(r, event, code, value, value2, text);
}

void kprof_agent_rec_frame(uint16_t type, uint32_t a, uint32_t b, uint64_t c,
			   const void *payload, size_t len)
{
	rec_frame(type, a, b, c, payload, len);
}

static void rec_string(const char *p)
{
	size_t i;

	if (A.rec_fd < 0 || !p)
		return;
	for (i = 0; i < A.nrec_strs; i++)
		if (A.rec_strs[i] == p)
			return;
	if (A.nrec_strs < REC_STRS_MAX) {
		if (!A.rec_strs)
			A.rec_strs = calloc(REC_STRS_MAX, sizeof(*A.rec_strs));
		if (!A.rec_strs)
			return;
		A.rec_strs[A.nrec_strs++] = p;
	}
	rec_frame(KPROF_CREC_STRING, 0, 0, (uint64_t)(uintptr_t)p, p, strlen(p) + 1);
}

/* ---- CUPTI buffers ---- */

static void buffer_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	void *b = NULL;

	pthread_mutex_lock(&A.buf_lock);
	if (A.free_bufs) {
		b = A.free_bufs;
		A.free_bufs = *(void **)b;
	} else {
		if (A.nbufs < A.max_bufs)
			b = aligned_alloc(KPROF_CUPTI_BUFFER_ALIGN, A.buf_size);
		/* the memory bound: CUPTI drops (and counts) what does not fit */
		if (b)
			A.nbufs++;
		else
			A.refused++;
	}
	pthread_mutex_unlock(&A.buf_lock);
	*buffer = b;
	*size = b ? A.buf_size : 0;
	*max_records = 0;
}

static void convert_buffer(uint8_t *buffer, size_t valid)
{
	struct kprof_cupti_activity *r = NULL, *prev = NULL;

	while (A.f.ActivityGetNextRecord(buffer, valid, &r) == KPROF_CUPTI_SUCCESS) {
		size_t n;

		if (A.rec_fd >= 0) {
			if (prev)
				rec_frame(KPROF_CREC_RECORD, prev->kind, 0, 0, prev,
					  (size_t)((uint8_t *)r - (uint8_t *)prev));
			if (r->kind == KPROF_CUPTI_KIND_CONCURRENT_KERNEL)
				rec_string(((const struct kprof_cupti_kernel *)(void *)r)->name);
			prev = r;
		}
		n = kprof_cupti_conv(&A.conv, r, A.out);
		if (n)
			put(A.out, n);
	}
	if (prev)
		rec_frame(KPROF_CREC_RECORD, prev->kind, 0, 0, prev,
			  valid - (size_t)((uint8_t *)prev - buffer));
}

/* ---- host-time callbacks ---- */

static int cb_by_start(const void *a, const void *b)
{
	const struct kprof_grec_api *x = a, *y = b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/*
 * The full chunks and every thread's partial one, into the spool (A.lock
 * held), in order of entry: the report merges the launch and sync calls
 * with the kernels by time (kprof_report_spool.c), so one call written
 * before earlier ones would hold back those, and their kernels would be
 * written without them. Chunks come newest first and from several threads:
 * sorted here (A.cb_sorted holds every chunk's worth).
 */
static void cb_drain(void)
{
	struct cb_chunk *list, *c, *next;
	struct cb_thread *th;
	size_t n = 0;

	if (!A.cb_sorted)
		return;		/* not in callback mode */
	pthread_mutex_lock(&A.cb_lock);
	list = A.cb_full;
	A.cb_full = NULL;
	th = A.cb_threads;
	pthread_mutex_unlock(&A.cb_lock);
	/* the list only grows at its head: what th reaches stays put */
	for (; th; th = th->next) {
		pthread_mutex_lock(&th->lock);
		c = th->cur;
		if (c && c->used) {
			th->cur = NULL;
			c->next = list;
			list = c;
		}
		pthread_mutex_unlock(&th->lock);
	}
	for (c = list; c; c = next) {
		next = c->next;
		memcpy(A.cb_sorted + n, c->rec, c->used * sizeof(c->rec[0]));
		n += c->used;
		c->used = 0;
		pthread_mutex_lock(&A.cb_lock);
		c->next = A.cb_free;
		A.cb_free = c;
		pthread_mutex_unlock(&A.cb_lock);
	}
	qsort(A.cb_sorted, n, sizeof(A.cb_sorted[0]), cb_by_start);
	for (size_t i = 0; i < n; i++)
		put(&A.cb_sorted[i], sizeof(A.cb_sorted[i]));
}

static struct cb_thread *cb_thread_new(void)
{
	struct cb_thread *th = calloc(1, sizeof(*th));

	if (!th)
		return NULL;
	pthread_mutex_init(&th->lock, NULL);
	th->tid = (uint32_t)syscall(SYS_gettid);
	pthread_mutex_lock(&A.cb_lock);
	th->next = A.cb_threads;
	A.cb_threads = th;
	pthread_mutex_unlock(&A.cb_lock);
	cb_self = th;
	return th;
}

/* A free chunk, or NULL when CB_MAX_CHUNKS are in use (A.cb_lock taken here). */
static struct cb_chunk *cb_chunk_get(void)
{
	struct cb_chunk *c;

	pthread_mutex_lock(&A.cb_lock);
	c = A.cb_free;
	if (c) {
		A.cb_free = c->next;
	} else if (A.cb_chunks < CB_MAX_CHUNKS) {
		c = malloc(sizeof(*c));
		A.cb_chunks += !!c;
	}
	pthread_mutex_unlock(&A.cb_lock);
	if (c)
		c->used = 0;
	return c;
}

/* One call's record, on the calling thread. */
static void cb_put(const struct kprof_grec_api *r)
{
	struct cb_thread *th = cb_self ? cb_self : cb_thread_new();
	struct cb_chunk *full = NULL;
	int stored = 0;

	for (int tries = 0; th && tries < 2 && !stored; tries++) {
		pthread_mutex_lock(&th->lock);
		if (!th->cur)
			th->cur = cb_chunk_get();
		if (th->cur) {
			th->cur->rec[th->cur->used] = *r;
			th->cur->rec[th->cur->used].tid = th->tid;
			if (++th->cur->used == A.cb_recs) {
				full = th->cur;
				th->cur = NULL;
			}
			pthread_mutex_unlock(&th->lock);
			stored = 1;
			break;
		}
		pthread_mutex_unlock(&th->lock);
		/* every chunk waits for the spool: write them from here */
		pthread_mutex_lock(&A.lock);
		cb_drain();
		pthread_mutex_unlock(&A.lock);
	}
	if (!full && stored)
		return;
	pthread_mutex_lock(&A.cb_lock);
	if (full) {
		full->next = A.cb_full;
		A.cb_full = full;
	}
	/* counted, said at the exit (agent_exit) */
	A.cb_lost += !stored;
	pthread_mutex_unlock(&A.cb_lock);
}

/*
 * CUPTI's API callback (the launch and sync calls enable_api() enabled):
 * entry and exit times on CUPTI's clock (the activity records' clock,
 * CLOCK_MONOTONIC where the timestamp callback took), the entry's kept in
 * the call's correlation slot; at the exit, one record as CUPTI's API
 * activity record would have been.
 */
static void subscriber_cb(void *userdata, unsigned int domain, uint32_t cbid,
			  const void *data)
{
	const struct kprof_cupti_callback_data *d = data;
	struct kprof_grec_api r;
	uint64_t t;
	int role;

	(void)userdata;
	kprof_counters_cb(domain, cbid, data);
	/* the launch callbacks the counters enabled are not host times */
	if (A.host_times != KPROF_GHOST_CALLBACK)
		return;
	if ((domain != KPROF_CUPTI_DOMAIN_DRIVER_API && domain != KPROF_CUPTI_DOMAIN_RUNTIME_API) ||
	    cbid >= KPROF_CONV_MAX_CBID || !d || !d->correlation_data)
		return;
	role = A.conv.role[domain - 1][cbid];
	if (!role || A.f.GetTimestamp(&t) != KPROF_CUPTI_SUCCESS)
		return;
	if (d->callback_site == KPROF_CUPTI_API_ENTER) {
		*d->correlation_data = t;
		return;
	}
	memset(&r, 0, sizeof(r));
	r.type = KPROF_GREC_API;
	r.size = sizeof(r);
	r.start_ns = *d->correlation_data;
	r.end_ns = t;
	r.correlation = d->correlation_id;
	r.cbid = cbid;
	r.pid = (uint32_t)A.pid;
	r.ret = d->function_return_value ? *(const uint32_t *)d->function_return_value : 0;
	r.domain = (uint8_t)domain;
	r.role = (uint8_t)role;
	cb_put(&r);
}

/*
 * Once, before the first ops: which GPU each device ordinal is, for a
 * capture of several GPUs (kprof_gpu_route.h). Queried without A.lock
 * (libcuda's locks), written under it.
 */
static void put_devices(void)
{
	struct kprof_grec_device d[KPROF_AGENT_MAX_DEVICES];
	int n;

	if (__atomic_load_n(&A.devices_put, __ATOMIC_ACQUIRE))
		return;
	n = kprof_agent_devices(d, KPROF_AGENT_MAX_DEVICES);
	pthread_mutex_lock(&A.lock);
	if (!A.devices_put && n > 0) {
		for (int i = 0; i < n; i++)
			put(&d[i], sizeof(d[i]));
		__atomic_store_n(&A.devices_put, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&A.lock);
}

static void buffer_complete(struct CUctx_st *ctx, uint32_t stream, uint8_t *buffer,
			    size_t size, size_t valid)
{
	size_t dropped = 0;
	struct kprof_rec_sync sync;
	int have_sync;
	uint64_t refused;

	(void)size;
	/* a forked child's CUPTI: not ours to write (A.pid is set once) */
	if (getpid() != A.pid)
		return;
	/* CUPTI's calls that may take its locks: before ours (see buf_lock) */
	if (A.f.ActivityGetNumDroppedRecords &&
	    A.f.ActivityGetNumDroppedRecords(ctx, stream, &dropped) != KPROF_CUPTI_SUCCESS)
		dropped = 0;
	have_sync = !take_sync(&sync);
	put_devices();
	pthread_mutex_lock(&A.lock);
	kprof_counters_drain();
	rec_frame(KPROF_CREC_BEGIN, stream, 0, 0, NULL, 0);
	/* the launches first, as CUPTI's API records mostly come: the report
	 * joins a launch to its kernel as it streams (kprof_gpu.c), and the
	 * launches of this buffer's kernels have all returned by now
	 */
	cb_drain();
	if (buffer && valid)
		convert_buffer(buffer, valid);
	if (dropped) {
		struct kprof_grec_dropped d = {
			.type = KPROF_GREC_DROPPED, .size = sizeof(d), .host_ns = mono_ns(),
			.count = dropped, .context = 0, .stream = stream,
		};

		put(&d, sizeof(d));
	}
	rec_frame(KPROF_CREC_END, 0, 0, dropped, NULL, 0);
	pthread_mutex_lock(&A.buf_lock);
	refused = A.refused;
	pthread_mutex_unlock(&A.buf_lock);
	if (refused != A.refused_told) {
		put_agent(KPROF_GAGENT_NO_BUFFER, 0, refused - A.refused_told, 0,
			  "buffer limit reached (KPROF_AGENT_BUFFERS)");
		A.refused_told = refused;
	}
	if (have_sync)
		put(&sync, sizeof(sync));
	flush_spool();
	pthread_mutex_unlock(&A.lock);
	if (buffer) {
		pthread_mutex_lock(&A.buf_lock);
		*(void **)(void *)buffer = A.free_bufs;
		A.free_bufs = buffer;
		pthread_mutex_unlock(&A.buf_lock);
	}
}

static uint64_t timestamp_cb(void)
{
	return mono_ns();
}

/* ---- set-up ---- */

static void *open_cupti(void)
{
	static const char *const names[] = {
		"libcupti.so.13", "libcupti.so.12", "libcupti.so",
		"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
		"/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so",
		"/usr/local/cuda/lib64/libcupti.so",
	};
	const char *env = getenv("KPROF_CUPTI_LIB");
	void *h;

	if (env && env[0])
		return dlopen(env, RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
	}
	return NULL;
}

#define SYM(name) (A.f.name = (__typeof__(A.f.name))dlsym(A.lib, "cupti" #name))

static int load_fns(void)
{
	SYM(GetVersion);
	SYM(Subscribe);
	SYM(ActivityEnable);
	SYM(ActivityEnableDriverApi);
	SYM(ActivityEnableRuntimeApi);
	SYM(GetCallbackName);
	SYM(ActivityRegisterCallbacks);
	SYM(ActivityRegisterTimestampCallback);
	SYM(ActivityGetNextRecord);
	SYM(ActivityGetNumDroppedRecords);
	SYM(ActivityFlushAll);
	SYM(ActivityFlushPeriod);
	SYM(GetTimestamp);
	SYM(ActivityEnableLatencyTimestamps);
	SYM(EnableCallback);
	/* the ones nothing works without */
	return A.f.ActivityEnable && A.f.ActivityRegisterCallbacks &&
	       A.f.ActivityGetNextRecord && A.f.ActivityFlushAll ? 0 : -1;
}

static unsigned long env_ul(const char *name, unsigned long def, unsigned long min,
			    unsigned long max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return def;
	return v;
}

/*
 * __cxa_demangle: in the global scope for a C++ program; Python loads
 * libstdc++ with its extensions, locally, so it is asked for by name
 * (the one loaded, else the system's).
 */
static void *find_demangler(void)
{
	void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle"), *h;

	if (f)
		return f;
	h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!h)
		h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	return h ? dlsym(h, "__cxa_demangle") : NULL;
}

/*
 * Where the launch and sync calls' host times come from (sub_r: how
 * cuptiSubscribe went). api (default): CUPTI's API activity records of
 * the calls. callback: CUPTI's API callbacks of those calls, the agent
 * taking CUPTI's timestamp at entry and exit (subscriber_cb): the same
 * records, measured on an H100 no cheaper than api (docs/performance.md,
 * "Host-time sources"), and sent ahead of the kernels they launched, so
 * that the report can take some kernels' records as late.
 * queued: CUPTI's latency timestamps on the kernel records instead, and
 * no records of the kernel launch calls; no cheaper, and not the launch
 * call's time: it follows the call's exit by the time the launch waited
 * in the queue, so LAUNCH TO START from it is queue-to-start. both: api,
 * with queued recorded too (a comparison, for KPROF_AGENT_RECORD).
 * Where the chosen one is refused, api, with an ERROR record (after
 * START, which says which was used).
 */
static void enable_host_times(kprof_cupti_result_t sub_r)
{
	const char *mode = getenv("KPROF_AGENT_HOST_TIMES");
	kprof_cupti_result_t r = KPROF_CUPTI_ERROR_NOT_SUPPORTED;

	A.host_times = KPROF_GHOST_API;
	if (!mode || !strcmp(mode, "api"))
		return;
	if (!strcmp(mode, "callback")) {
		/* a callback the agent does not want, turned off: the
		 * subscriber and the call work, so enabling will
		 */
		if (sub_r == KPROF_CUPTI_SUCCESS && A.f.EnableCallback && A.f.GetTimestamp)
			r = A.f.EnableCallback(0, A.sub, KPROF_CUPTI_DOMAIN_DRIVER_API, 1);
		else if (sub_r != KPROF_CUPTI_SUCCESS)
			r = sub_r;
		if (r == KPROF_CUPTI_SUCCESS) {
			A.cb_sorted = malloc((size_t)CB_MAX_CHUNKS * CB_CHUNK_RECS *
					     sizeof(*A.cb_sorted));
			if (!A.cb_sorted)
				r = KPROF_CUPTI_ERROR_MAX_LIMIT_REACHED;
		}
		if (r == KPROF_CUPTI_SUCCESS) {
			A.host_times = KPROF_GHOST_CALLBACK;
		} else {
			A.pending_error = r;
			A.pending_what = "cuptiEnableCallback: using API records";
		}
		return;
	}
	if (strcmp(mode, "queued") && strcmp(mode, "both"))
		return;
	if (A.f.ActivityEnableLatencyTimestamps)
		r = A.f.ActivityEnableLatencyTimestamps(1);
	if (r == KPROF_CUPTI_SUCCESS) {
		A.latency = 1;
		if (!strcmp(mode, "queued"))
			A.host_times = KPROF_GHOST_QUEUED;
	} else {
		A.pending_error = r;
		A.pending_what = "cuptiActivityEnableLatencyTimestamps: using API records";
	}
}

/* Per-call API records: only the launch and sync calls (kprof_conv_api_role). */
static void enable_api(void)
{
	const char *mode = getenv("KPROF_AGENT_API");
	/* default: driver calls only. The runtime's calls make driver calls
	 * with the same correlation ids, so they are seen too, at half the
	 * cost of runtime records (measured on an H100: +1.4 vs +2.9 us per
	 * launch), and direct driver users (Triton) are covered
	 */
	int want[2] = { 1, 0 }, percall = 1, any = 0;

	if (mode && !strcmp(mode, "none"))
		return;
	if (mode && !strcmp(mode, "runtime")) {
		want[0] = 0;
		want[1] = 1;
	}
	if (mode && !strcmp(mode, "both"))
		want[1] = 1;
	if (!A.f.GetCallbackName) {
		put_error("cuptiGetCallbackName missing: no API records",
			  KPROF_CUPTI_ERROR_NOT_SUPPORTED);
		return;
	}
	for (unsigned int dom = KPROF_CUPTI_DOMAIN_DRIVER_API;
	     dom <= KPROF_CUPTI_DOMAIN_RUNTIME_API; dom++) {
		kprof_cuptiActivityEnableDriverApi_fn en =
			dom == KPROF_CUPTI_DOMAIN_DRIVER_API ? A.f.ActivityEnableDriverApi :
			A.f.ActivityEnableRuntimeApi;

		if (!want[dom - 1])
			continue;
		for (uint32_t cbid = 1; cbid < KPROF_CONV_MAX_CBID; cbid++) {
			const char *name = NULL;
			int role;
			size_t n;

			if (A.f.GetCallbackName(dom, cbid, &name) != KPROF_CUPTI_SUCCESS || !name)
				continue;
			role = kprof_conv_api_role(name);
			/* kernels' queued timestamps stand in for their launch calls */
			if (!role || (A.host_times == KPROF_GHOST_QUEUED &&
				      kprof_conv_api_kernel_launch(name)))
				continue;
			A.conv.role[dom - 1][cbid] = (uint8_t)role;
			rec_frame(KPROF_CREC_CBNAME, dom, cbid, 0, name, strlen(name) + 1);
			n = kprof_conv_name(dom << 16 | cbid, KPROF_GNAME_API, name, A.out);
			put(A.out, n);
			if (A.host_times == KPROF_GHOST_CALLBACK) {
				kprof_cupti_result_t r = A.f.EnableCallback(1, A.sub, dom, cbid);

				if (r == KPROF_CUPTI_SUCCESS)
					continue;
				/* this call's times from its activity records */
				put_error("cuptiEnableCallback: API records for this call", r);
			}
			if (!en || en(cbid, 1) != KPROF_CUPTI_SUCCESS)
				percall = 0;
			any = 1;
		}
	}
	if (any && !percall) {
		/* older CUPTI: every API call of the kind is recorded (slower);
		 * the conversion keeps the classified ones
		 */
		put_error("per-call API records not supported: recording whole API kinds",
			  KPROF_CUPTI_ERROR_NOT_SUPPORTED);
		if (want[0] && A.f.ActivityEnable(KPROF_CUPTI_KIND_DRIVER) != KPROF_CUPTI_SUCCESS)
			put_error("cuptiActivityEnable(DRIVER)", KPROF_CUPTI_ERROR_NOT_SUPPORTED);
		if (want[1] && A.f.ActivityEnable(KPROF_CUPTI_KIND_RUNTIME) != KPROF_CUPTI_SUCCESS)
			put_error("cuptiActivityEnable(RUNTIME)", KPROF_CUPTI_ERROR_NOT_SUPPORTED);
	}
}

static void at_fork_parent(void)
{
	/* the child gets no records (CUDA does not work across fork()
	 * without exec; one that execs a CUDA program gets its own spool)
	 */
	A.forks++;
}

static void agent_exit(void)
{
	uint32_t version = 0;

	if (!A.inited || getpid() != A.pid)
		return;
	kprof_counters_exit();
	/* CUPTI hands over what it still holds: buffer_complete() runs */
	A.f.ActivityFlushAll(KPROF_CUPTI_FLUSH_FORCED);
	pthread_mutex_lock(&A.lock);
	if (A.f.GetVersion)
		A.f.GetVersion(&version);
	kprof_counters_drain();
	cb_drain();
	if (A.cb_lost)
		put_agent(KPROF_GAGENT_ERROR, -ENOMEM, A.cb_lost, 0,
			  "host-time callbacks: calls not recorded (memory)");
	put_sync();
	put_agent(KPROF_GAGENT_STOP, 0, A.records + 1, A.forks, NULL);
	if (A.w) {
		struct kprof_err err;

		kprof_spool_close(A.w, &err);
		A.w = NULL;
	}
	if (A.rec_fd >= 0) {
		close(A.rec_fd);
		A.rec_fd = -1;
	}
	pthread_mutex_unlock(&A.lock);
}

/* $KPROF_AGENT_DIR/gpu-PID.kspool: a new file (O_EXCL, no links) in a
 * directory of ours (kprof_outdir.h's checks)
 */
static int open_spool(void)
{
	const char *dir = getenv("KPROF_AGENT_DIR");
	struct kprof_outdir *od;
	struct kprof_err err = { 0 };
	char name[64];

	if (!dir || !dir[0])
		return -1;
	snprintf(name, sizeof(name), KPROF_SPOOL_GPU_PREFIX "%d" KPROF_SPOOL_GPU_SUFFIX,
		 (int)getpid());
	od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	if (od)
		A.w = kprof_spool_create_in(od, name, KPROF_SPOOL_GPU, NULL, NULL, &err);
	kprof_outdir_close(od);
	if (!A.w) {
		fprintf(stderr, "kprof agent: %s; this process is not profiled\n", err.msg);
		return -1;
	}
	return 0;
}

/* Called by libcuda (CUDA_INJECTION64_PATH) when CUDA initializes. */
EXPORT int InitializeInjection(void)
{
	uint32_t version = 0;
	kprof_cupti_result_t r, sub_r;
	const char *rec;

	pthread_mutex_lock(&A.lock);
	if (A.inited) {
		pthread_mutex_unlock(&A.lock);
		return 1;
	}
	A.inited = 1;
	A.pid = getpid();
	if (open_spool()) {
		A.inited = 0;
		pthread_mutex_unlock(&A.lock);
		return 1;	/* never stop the workload */
	}
	rec = getenv("KPROF_AGENT_RECORD");
	if (rec && rec[0]) {
		A.rec_fd = open(rec, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (A.rec_fd < 0)
			fprintf(stderr, "kprof agent: cannot write the recording %s: %s\n", rec,
				strerror(errno));
	}
	A.buf_size = env_ul("KPROF_AGENT_BUFFER_KB", DEFAULT_BUFFER_KB, 64, 1 << 20) << 10;
	A.max_bufs = (unsigned int)env_ul("KPROF_AGENT_BUFFERS", DEFAULT_BUFFERS, 2, 4096);
	A.cb_recs = (unsigned int)env_ul("KPROF_AGENT_CB_RECS", CB_CHUNK_RECS, 2, CB_CHUNK_RECS);
	A.clock = KPROF_GCLOCK_CUPTI;
	A.lib = open_cupti();
	if (!A.lib || load_fns()) {
		const char *e = dlerror();
		char msg[64];

		snprintf(msg, sizeof(msg), "libcupti: %s", e ? e : "missing functions");
		put_agent(KPROF_GAGENT_START, 0, 0, A.buf_size, NULL);
		put_agent(KPROF_GAGENT_ERROR, -ENOENT, 0, 0, msg);
		fprintf(stderr,
			"kprof agent: cannot load %s (%s); set KPROF_CUPTI_LIB or kprofctl --cupti; this process is not profiled\n",
			getenv("KPROF_CUPTI_LIB") ? getenv("KPROF_CUPTI_LIB") : "libcupti",
			e ? e : "missing functions");
		kprof_spool_close(A.w, NULL);
		A.w = NULL;
		A.inited = 0;
		pthread_mutex_unlock(&A.lock);
		return 1;
	}
	if (!getenv("KPROF_AGENT_DEMANGLE") || strcmp(getenv("KPROF_AGENT_DEMANGLE"), "0"))
		A.conv.demangle = find_demangler();
	if (A.f.GetVersion)
		A.f.GetVersion(&version);
	/* KPROF_AGENT_CUPTI_CLOCK=1 (tests): keep CUPTI's clock, as where the
	 * callback is refused, so that the sync-triple path can be checked
	 */
	r = KPROF_CUPTI_ERROR_NOT_SUPPORTED;
	if (A.f.ActivityRegisterTimestampCallback && !getenv("KPROF_AGENT_CUPTI_CLOCK"))
		r = A.f.ActivityRegisterTimestampCallback(timestamp_cb);
	if (r == KPROF_CUPTI_SUCCESS)
		A.clock = KPROF_GCLOCK_MONOTONIC;
	rec_frame(KPROF_CREC_CLOCK, A.clock == KPROF_GCLOCK_MONOTONIC, 0, 0, NULL, 0);
	/* the subscriber: CUPTI's one slot (seen to be ours) and the callbacks */
	sub_r = A.f.Subscribe ? A.f.Subscribe(&A.sub, subscriber_cb, NULL) :
				KPROF_CUPTI_ERROR_NOT_SUPPORTED;
	enable_host_times(sub_r);
	put_agent(KPROF_GAGENT_START, 0, version, A.buf_size, NULL);
	/* CUPTI's clock then, mapped by the SYNC triples (START says which) */
	if (A.clock != KPROF_GCLOCK_MONOTONIC && !getenv("KPROF_AGENT_CUPTI_CLOCK"))
		put_error("cuptiActivityRegisterTimestampCallback", r);
	if (A.f.Subscribe && sub_r != KPROF_CUPTI_SUCCESS)
		put_error("cuptiSubscribe", sub_r);
	if (sub_r == KPROF_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS)
		fprintf(stderr,
			"kprof agent: another CUPTI client (a profiler) holds this process; its records may be missing\n");
	if (A.pending_error)
		put_error(A.pending_what, A.pending_error);
	put_sync();
	r = A.f.ActivityRegisterCallbacks(buffer_request, buffer_complete);
	if (r != KPROF_CUPTI_SUCCESS) {
		put_error("cuptiActivityRegisterCallbacks", r);
		flush_spool();
		pthread_mutex_unlock(&A.lock);
		return 1;
	}
	r = A.f.ActivityEnable(KPROF_CUPTI_KIND_CONCURRENT_KERNEL);
	if (r != KPROF_CUPTI_SUCCESS)
		put_error("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
	/*
	 * Not with latency timestamps (queued, both): CUPTI with them and
	 * copy records stops the workload for good once its first buffers
	 * fill (an H100, CUDA 13.0: 38,762 launches of spin.cu; a 10-line
	 * CUPTI client, bench/nvidia/min_cupti.c, does the same). The
	 * report says so (kprof_gpu.c, host times "queued").
	 */
	if (!A.latency) {
		r = A.f.ActivityEnable(KPROF_CUPTI_KIND_MEMCPY);
		if (r != KPROF_CUPTI_SUCCESS)
			put_error("cuptiActivityEnable(MEMCPY)", r);
		r = A.f.ActivityEnable(KPROF_CUPTI_KIND_MEMSET);
		if (r != KPROF_CUPTI_SUCCESS)
			put_error("cuptiActivityEnable(MEMSET)", r);
	}
	enable_api();
	if (sub_r == KPROF_CUPTI_SUCCESS)
		kprof_counters_init(A.lib, A.sub, A.f.EnableCallback, A.f.GetCallbackName);
	else if (getenv("KPROF_AGENT_COUNTERS"))
		put_error("counters: no CUPTI subscriber", sub_r);
	if (A.f.ActivityFlushPeriod)
		A.f.ActivityFlushPeriod(FLUSH_PERIOD_MS);
	flush_spool();
	pthread_atfork(NULL, at_fork_parent, NULL);
	atexit(agent_exit);
	pthread_mutex_unlock(&A.lock);
	return 1;
}
