// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in libcupti for tests without a GPU: the functions the agent
 * (user/agent/) calls, answering from a recording the real agent made on
 * a real GPU (KPROF_AGENT_RECORD; kprof_cuptirec.h). kprof_standin_play()
 * hands the recorded buffers to the agent through its own buffer
 * callbacks, one recorded buffer per buffer, kernel name pointers pointed
 * at the recorded strings, and answers cuptiActivityGetNumDroppedRecords
 * with the recorded count. The recorded timestamps (CLOCK_MONOTONIC of
 * the recording machine) are moved by one constant so that the first
 * lies just after the playback starts: the agent's own records (start,
 * sync triples) are of this machine's clock, and a capture's records are
 * all of one clock. Built as a shared library; the agent loads it as
 * KPROF_CUPTI_LIB.
 *
 * Environment: KPROF_STANDIN_DATA (the recording; required to play),
 * KPROF_STANDIN_SUBSCRIBE (a CUptiResult cuptiSubscribe returns, e.g. 39:
 * another subscriber holds CUPTI), KPROF_STANDIN_BRACKET=1 (the records
 * are moved to lie between the agent's start and the playback, as on a
 * GPU, where its sync triples bracket them: playback waits the
 * recording's span first; for the CUPTI-clock path),
 * KPROF_STANDIN_LATENCY (see cuptiActivityEnableLatencyTimestamps),
 * KPROF_STANDIN_ENABLED=FILE (the kinds the agent enables, one a line),
 * KPROF_STANDIN_LOCKS=1 (cuptiActivityGetNumDroppedRecords waits for a
 * buffer request made on another thread, as CUPTI can wait for a
 * launching thread that is requesting a buffer: an agent that holds its
 * own lock across that call and takes it in the request hangs),
 * KPROF_STANDIN_CALLBACK (a CUptiResult cuptiEnableCallback returns, e.g.
 * 27), KPROF_STANDIN_DEVICE=N (every kernel, memcpy and memset played as
 * run on CUDA device ordinal N: a recording of one GPU stands in for the
 * work of a process on another, for the captures of several GPUs; with
 * fake_cuda's KPROF_STANDIN_GPUS naming the GPU of each ordinal).
 *
 * API callbacks (cuptiEnableCallback): a recorded API activity record of
 * a call whose callback the agent enabled is played as that callback
 * instead, entry then exit, with cuptiGetTimestamp answering the
 * record's start at the entry and its end at the exit, before the buffer
 * it was in is completed; the record itself is left out of the buffer,
 * as CUPTI makes none for a call that only has a callback. So a
 * recording made with API records plays the callback path with the same
 * times. Unless the agent takes its host times from callbacks
 * (KPROF_AGENT_HOST_TIMES=callback), the record is kept too: the counters'
 * launch callbacks come beside the API records, as on a GPU.
 *
 * The range profiler (capture --counters, KPROF_AGENT_COUNTERS): every
 * call succeeds; a kernel launch's range (the exit callback of its
 * played launch record) evaluates to the values the recording's
 * KPROF_CREC_METRICS frame of that correlation holds, mapped by metric
 * name through KPROF_AGENT_COUNTERS (the list the recording was made
 * with); a metric the recording has no value of (NaN in every frame: CUPTI
 * refused it there) is refused by cuptiProfilerHostConfigAddMetrics with
 * CUPTI_ERROR_INVALID_PARAMETER, as CUDA 13 did on the H100. Not
 * recorded, so made up: the chip name, image sizes, 1 pass.
 * KPROF_STANDIN_RANGE_ENABLE: a CUptiResult cuptiRangeProfilerEnable
 * returns (e.g. 35: the driver lets only admins read counters).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kprof_cupti.h"
#include "kprof_cupti_prof.h"
#include "kprof_cuptirec.h"

#define EXPORT __attribute__((visibility("default")))

static struct {
	int loaded;
	struct kprof_crec rec;
	kprof_cupti_buffer_request_fn request;
	kprof_cupti_buffer_complete_fn complete;
	size_t played;			/* frames consumed */
	/* the buffer being completed: where its records start, in order */
	size_t *offs, noffs, cap;
	uint64_t dropped;
	int64_t shift;			/* added to every recorded timestamp */
	int shifted;
	uint64_t t_reg;			/* when the agent registered its callbacks */
	kprof_cupti_callback_fn cb;	/* the subscriber's */
	void *cb_userdata;
	uint8_t cb_on[2][4096];		/* [domain - 1][cbid]: callback enabled */
	uint64_t cb_now;		/* during a played callback: its timestamp */
	uint32_t cb_corr;		/* during a played callback: its correlation */
} S;

EXPORT kprof_cupti_result_t cuptiGetTimestamp(uint64_t *t)
{
	struct timespec ts;

	if (S.cb_now) {
		*t = S.cb_now;
		return KPROF_CUPTI_SUCCESS;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return KPROF_CUPTI_SUCCESS;
}

static void load(void)
{
	const char *p = getenv("KPROF_STANDIN_DATA");
	struct kprof_err err;

	if (S.loaded)
		return;
	S.loaded = 1;
	if (p && kprof_crec_load(p, &S.rec, &err))
		fprintf(stderr, "cupti stand-in: %s\n", err.msg);
}

EXPORT kprof_cupti_result_t cuptiGetVersion(uint32_t *v)
{
	*v = 130001;
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiGetResultString(kprof_cupti_result_t r, const char **s)
{
	(void)r;
	*s = "stand-in";
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiSubscribe(struct CUpti_Subscriber_st **sub,
					   kprof_cupti_callback_fn cb, void *ud)
{
	const char *e = getenv("KPROF_STANDIN_SUBSCRIBE");
	kprof_cupti_result_t r = e ? (kprof_cupti_result_t)atoi(e) : KPROF_CUPTI_SUCCESS;

	*sub = NULL;
	if (r == KPROF_CUPTI_SUCCESS) {
		*sub = (struct CUpti_Subscriber_st *)&S;
		S.cb = cb;
		S.cb_userdata = ud;
	}
	return r;
}

EXPORT kprof_cupti_result_t cuptiEnableCallback(uint32_t on, struct CUpti_Subscriber_st *sub,
						unsigned int domain, uint32_t cbid)
{
	const char *e = getenv("KPROF_STANDIN_CALLBACK");

	if (e)
		return (kprof_cupti_result_t)atoi(e);
	if (sub != (struct CUpti_Subscriber_st *)&S || domain < 1 || domain > 2 || cbid >= 4096)
		return KPROF_CUPTI_ERROR_INVALID_PARAMETER;
	S.cb_on[domain - 1][cbid] = on != 0;
	return KPROF_CUPTI_SUCCESS;
}

/* A recorded API record (times moved) as its call's two callbacks. */
static void play_callback(unsigned int domain, const struct kprof_cupti_api *a)
{
	uint64_t slot = 0;
	uint32_t ret = a->return_value;
	struct kprof_cupti_callback_data d = {
		.callback_site = KPROF_CUPTI_API_ENTER,
		.function_name = "stand-in",
		.function_return_value = &ret,
		.correlation_data = &slot,
		.correlation_id = a->correlation_id,
	};

	S.cb_now = a->start;
	S.cb_corr = a->correlation_id;
	S.cb(S.cb_userdata, domain, a->cbid, &d);
	d.callback_site = KPROF_CUPTI_API_EXIT;
	S.cb_now = a->end;
	S.cb(S.cb_userdata, domain, a->cbid, &d);
	S.cb_now = 0;
	S.cb_corr = 0;
}

/* KPROF_STANDIN_ENABLED=FILE: each kind enabled, a line of FILE */
EXPORT kprof_cupti_result_t cuptiActivityEnable(unsigned int kind)
{
	const char *path = getenv("KPROF_STANDIN_ENABLED");
	FILE *f = path ? fopen(path, "a") : NULL;

	if (f) {
		fprintf(f, "%u\n", kind);
		fclose(f);
	}
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiActivityEnableDriverApi(uint32_t cbid, uint8_t on)
{
	(void)cbid;
	(void)on;
	return KPROF_CUPTI_SUCCESS;
}

/* KPROF_STANDIN_LATENCY: the CUptiResult it returns (e.g. 27: a CUPTI
 * without latency timestamps)
 */
EXPORT kprof_cupti_result_t cuptiActivityEnableLatencyTimestamps(uint8_t on)
{
	const char *e = getenv("KPROF_STANDIN_LATENCY");

	(void)on;
	return e ? (kprof_cupti_result_t)atoi(e) : KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiActivityEnableRuntimeApi(uint32_t cbid, uint8_t on)
{
	(void)cbid;
	(void)on;
	return KPROF_CUPTI_SUCCESS;
}

/* the names the recording holds (the ones the agent asked for) */
EXPORT kprof_cupti_result_t cuptiGetCallbackName(unsigned int domain, uint32_t cbid,
						 const char **name)
{
	const struct kprof_crec_frame *f;
	const void *pl;
	size_t off = 0;

	load();
	while ((f = kprof_crec_next(&S.rec, &off, &pl)))
		if (f->type == KPROF_CREC_CBNAME && f->a == domain && f->b == cbid) {
			*name = pl;
			return KPROF_CUPTI_SUCCESS;
		}
	return KPROF_CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT kprof_cupti_result_t cuptiActivityRegisterCallbacks(kprof_cupti_buffer_request_fn rq,
							   kprof_cupti_buffer_complete_fn cp)
{
	S.request = rq;
	S.complete = cp;
	cuptiGetTimestamp(&S.t_reg);
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiActivityRegisterTimestampCallback(kprof_cupti_timestamp_fn fn)
{
	(void)fn;	/* the recorded timestamps are CLOCK_MONOTONIC already */
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
						       struct kprof_cupti_activity **rec)
{
	size_t i = 0;

	(void)valid;
	if (*rec) {
		size_t at = (size_t)((uint8_t *)*rec - buffer);

		while (i < S.noffs && S.offs[i] != at)
			i++;
		i++;
	}
	if (i >= S.noffs)
		return KPROF_CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (void *)(buffer + S.offs[i]);
	return KPROF_CUPTI_SUCCESS;
}

static void *request_thread(void *arg)
{
	uint8_t *b = NULL;
	size_t size = 0, maxrec = 0;

	(void)arg;
	S.request(&b, &size, &maxrec);
	return b;	/* kept: one buffer fewer for the agent's pool */
}

EXPORT kprof_cupti_result_t cuptiActivityGetNumDroppedRecords(struct CUctx_st *ctx,
							      uint32_t stream, size_t *dropped)
{
	(void)ctx;
	(void)stream;
	if (getenv("KPROF_STANDIN_LOCKS") && S.request) {
		pthread_t t;
		void *b;

		if (!pthread_create(&t, NULL, request_thread, NULL))
			pthread_join(t, &b);
	}
	*dropped = (size_t)S.dropped;
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiActivityFlushPeriod(uint32_t ms)
{
	(void)ms;
	return KPROF_CUPTI_SUCCESS;
}

/* the text recorded for a name pointer */
static const char *string_of(uint64_t ptr)
{
	const struct kprof_crec_frame *f;
	const void *pl;
	size_t off = 0;

	while ((f = kprof_crec_next(&S.rec, &off, &pl)))
		if (f->type == KPROF_CREC_STRING && f->c == ptr)
			return pl;
	return NULL;
}

static void move(uint64_t *t)
{
	if (*t)
		*t = (uint64_t)((int64_t)*t + S.shift);
}

/* The recorded timestamps of one record, moved to this machine's clock. */
static void move_times(uint32_t kind, void *r, size_t len)
{
	switch (kind) {
	case KPROF_CUPTI_KIND_CONCURRENT_KERNEL:
		if (len >= sizeof(struct kprof_cupti_kernel)) {
			move(&((struct kprof_cupti_kernel *)r)->start);
			move(&((struct kprof_cupti_kernel *)r)->end);
			move(&((struct kprof_cupti_kernel *)r)->completed);
			move(&((struct kprof_cupti_kernel *)r)->queued);
			move(&((struct kprof_cupti_kernel *)r)->submitted);
		}
		break;
	case KPROF_CUPTI_KIND_MEMCPY:
		if (len >= sizeof(struct kprof_cupti_memcpy)) {
			move(&((struct kprof_cupti_memcpy *)r)->start);
			move(&((struct kprof_cupti_memcpy *)r)->end);
		}
		break;
	case KPROF_CUPTI_KIND_MEMSET:
		if (len >= sizeof(struct kprof_cupti_memset)) {
			move(&((struct kprof_cupti_memset *)r)->start);
			move(&((struct kprof_cupti_memset *)r)->end);
		}
		break;
	case KPROF_CUPTI_KIND_DRIVER:
	case KPROF_CUPTI_KIND_RUNTIME:
		if (len >= sizeof(struct kprof_cupti_api)) {
			move(&((struct kprof_cupti_api *)r)->start);
			move(&((struct kprof_cupti_api *)r)->end);
		}
		break;
	default:
		break;
	}
}

/* The shift: the earliest recorded start lands 1 ms from now (or, with
 * KPROF_STANDIN_BRACKET, 1 ms after the agent's start, and the playback
 * waits until the last one is past).
 */
static void find_shift(void)
{
	const struct kprof_crec_frame *f;
	const void *pl;
	size_t off = 0;
	uint64_t first = UINT64_MAX, last = 0, now;

	if (S.shifted)
		return;
	S.shifted = 1;
	while ((f = kprof_crec_next(&S.rec, &off, &pl))) {
		uint64_t t = UINT64_MAX;

		if (f->type != KPROF_CREC_RECORD)
			continue;
		if (f->a == KPROF_CUPTI_KIND_DRIVER || f->a == KPROF_CUPTI_KIND_RUNTIME)
			t = ((const struct kprof_cupti_api *)pl)->start;
		else if (f->a == KPROF_CUPTI_KIND_CONCURRENT_KERNEL)
			t = ((const struct kprof_cupti_kernel *)pl)->start;
		else if (f->a == KPROF_CUPTI_KIND_MEMCPY)
			t = ((const struct kprof_cupti_memcpy *)pl)->start;
		else if (f->a == KPROF_CUPTI_KIND_MEMSET)
			t = ((const struct kprof_cupti_memset *)pl)->start;
		if (t && t < first)
			first = t;
		if (t && t > last && t != UINT64_MAX)
			last = t;
	}
	cuptiGetTimestamp(&now);
	if (first == UINT64_MAX)
		return;
	if (getenv("KPROF_STANDIN_BRACKET")) {
		uint64_t until = S.t_reg + 1000000 + (last - first) + 10000000;

		while (now < until) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
			cuptiGetTimestamp(&now);
		}
		S.shift = (int64_t)(S.t_reg + 1000000 - first);
		return;
	}
	S.shift = (int64_t)(now + 1000000 - first);
}

/* KPROF_STANDIN_DEVICE: the op record rec (kind) as run on that ordinal. */
static void set_device(uint32_t kind, uint8_t *rec, size_t len)
{
	const char *env = getenv("KPROF_STANDIN_DEVICE");
	uint32_t dev;

	if (!env || !*env)
		return;
	dev = (uint32_t)strtoul(env, NULL, 10);
	if (kind == KPROF_CUPTI_KIND_CONCURRENT_KERNEL && len >= sizeof(struct kprof_cupti_kernel))
		((struct kprof_cupti_kernel *)(void *)rec)->device_id = dev;
	else if (kind == KPROF_CUPTI_KIND_MEMCPY && len >= sizeof(struct kprof_cupti_memcpy))
		((struct kprof_cupti_memcpy *)(void *)rec)->device_id = dev;
	else if (kind == KPROF_CUPTI_KIND_MEMSET && len >= sizeof(struct kprof_cupti_memset))
		((struct kprof_cupti_memset *)(void *)rec)->device_id = dev;
}

/* One recorded buffer from frame offset *off, through the agent. */
static void play_buffer(size_t *off, uint32_t stream)
{
	const struct kprof_crec_frame *f;
	const void *pl;
	uint8_t *buf = NULL;
	size_t size = 0, maxrec, used = 0;

	S.request(&buf, &size, &maxrec);
	S.noffs = 0;
	S.dropped = 0;
	while ((f = kprof_crec_next(&S.rec, off, &pl)) && f->type != KPROF_CREC_END) {
		size_t len = (size_t)f->len;

		if (f->type != KPROF_CREC_RECORD || !buf || used + len > size)
			continue;	/* a buffer the agent refused: records are lost */
		memcpy(buf + used, pl, len);
		move_times(f->a, buf + used, len);
		if ((f->a == KPROF_CUPTI_KIND_DRIVER || f->a == KPROF_CUPTI_KIND_RUNTIME) &&
		    len >= sizeof(struct kprof_cupti_api) && S.cb) {
			const struct kprof_cupti_api *a = (const void *)(buf + used);
			unsigned int dom = KPROF_CUPTI_DOMAIN_RUNTIME_API;

			if (f->a == KPROF_CUPTI_KIND_DRIVER)
				dom = KPROF_CUPTI_DOMAIN_DRIVER_API;

			if (a->cbid < 4096 && S.cb_on[dom - 1][a->cbid]) {
				const char *ht = getenv("KPROF_AGENT_HOST_TIMES");

				play_callback(dom, a);
				if (ht && !strcmp(ht, "callback"))
					continue;	/* no activity record of it */
			}
		}
		if (f->a == KPROF_CUPTI_KIND_CONCURRENT_KERNEL &&
		    len >= sizeof(struct kprof_cupti_kernel)) {
			struct kprof_cupti_kernel *k = (void *)(buf + used);

			k->name = string_of((uint64_t)(uintptr_t)k->name);
		}
		set_device(f->a, buf + used, len);
		if (S.noffs == S.cap) {
			S.cap = S.cap ? 2 * S.cap : 256;
			S.offs = realloc(S.offs, S.cap * sizeof(*S.offs));
		}
		S.offs[S.noffs++] = used;
		used += (len + 7) & ~(size_t)7;
	}
	if (f)
		S.dropped = f->c;
	S.complete(NULL, stream, buf, size, used);
}

/* Plays every buffer not played yet; returns how many. */
EXPORT int kprof_standin_play(void)
{
	const struct kprof_crec_frame *f;
	const void *pl;
	int n = 0;

	load();
	if (!S.request || !S.complete)
		return -1;
	find_shift();
	while ((f = kprof_crec_next(&S.rec, &S.played, &pl)))
		if (f->type == KPROF_CREC_BEGIN) {
			play_buffer(&S.played, f->a);
			n++;
		}
	return n;
}

EXPORT kprof_cupti_result_t cuptiActivityFlushAll(uint32_t flag)
{
	(void)flag;
	kprof_standin_play();
	return KPROF_CUPTI_SUCCESS;
}

/* ---- the range profiler (capture --counters) ---- */

#define MAX_METRICS	32

/* index of a metric name in KPROF_AGENT_COUNTERS, or -1 */
static int metric_index(const char *name)
{
	const char *l = getenv("KPROF_AGENT_COUNTERS"), *p = l;
	size_t n = strlen(name);
	int i = 0;

	while (p && *p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, name, n))
			return i;
		i++;
		p += len + (p[len] == ',');
	}
	return -1;
}

/* the recorded values of correlation corr (NULL: none), and their count */
static const double *recorded(uint32_t corr, uint32_t *count)
{
	const struct kprof_crec_frame *f;
	const void *pl;
	size_t off = 0;

	load();
	while ((f = kprof_crec_next(&S.rec, &off, &pl)))
		if (f->type == KPROF_CREC_METRICS && f->a == corr && f->len >= 8ULL * f->b) {
			*count = f->b;
			return pl;
		}
	return NULL;
}

/* a metric with no value in any recorded frame: CUPTI refused it there */
static int refused(int idx)
{
	const struct kprof_crec_frame *f;
	const void *pl;
	size_t off = 0;

	load();
	while ((f = kprof_crec_next(&S.rec, &off, &pl)))
		if (f->type == KPROF_CREC_METRICS && (uint32_t)idx < f->b &&
		    f->len >= 8ULL * f->b && ((const double *)pl)[idx] == ((const double *)pl)[idx])
			return 0;
	return 1;
}

static uint8_t image[64];

/* the profiler calls whose only effect here is success */
#define OK(name, type)						\
	EXPORT kprof_cupti_result_t name(type * p)		\
	{							\
		(void)p;					\
		return KPROF_CUPTI_SUCCESS;			\
	}
OK(cuptiProfilerInitialize, struct kprof_prof_init)
OK(cuptiProfilerHostDeinitialize, struct kprof_prof_host_deinit)
OK(cuptiRangeProfilerDisable, struct kprof_rp_obj)
OK(cuptiRangeProfilerStart, struct kprof_rp_obj)
OK(cuptiRangeProfilerSetConfig, struct kprof_rp_set_config)
OK(cuptiRangeProfilerCounterDataImageInitialize, struct kprof_rp_data_init)

EXPORT kprof_cupti_result_t cuptiDeviceGetChipName(struct kprof_prof_chip *p)
{
	p->chip_name = "GH100";
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiProfilerHostInitialize(struct kprof_prof_host_init *p)
{
	p->host = (struct CUpti_Profiler_Host_Object *)image;
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiProfilerHostConfigAddMetrics(struct kprof_prof_add_metrics *p)
{
	for (size_t i = 0; i < p->num_metrics; i++) {
		int k = metric_index(p->metric_names[i]);

		if (k < 0 || refused(k))
			return KPROF_CUPTI_ERROR_INVALID_PARAMETER;
	}
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiProfilerHostGetConfigImageSize(struct kprof_prof_config_size *p)
{
	p->config_image_size = sizeof(image);
	return KPROF_CUPTI_SUCCESS;
}

OK(cuptiProfilerHostGetConfigImage, struct kprof_prof_config)

EXPORT kprof_cupti_result_t cuptiProfilerHostGetNumOfPasses(struct kprof_prof_passes *p)
{
	p->num_passes = 1;
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiRangeProfilerEnable(struct kprof_rp_enable *p)
{
	const char *e = getenv("KPROF_STANDIN_RANGE_ENABLE");

	if (e && *e)
		return (kprof_cupti_result_t)strtoul(e, NULL, 10);
	p->obj = (struct CUpti_RangeProfiler_Object *)image;
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiRangeProfilerStop(struct kprof_rp_stop *p)
{
	p->all_passes_submitted = 1;
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiRangeProfilerDecodeData(struct kprof_rp_decode *p)
{
	p->ranges_dropped = 0;
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t cuptiRangeProfilerGetCounterDataSize(struct kprof_rp_data_size *p)
{
	p->counter_data_size = sizeof(image);
	return KPROF_CUPTI_SUCCESS;
}

/* one range when the launch being played had one recorded */
EXPORT kprof_cupti_result_t cuptiRangeProfilerGetCounterDataInfo(struct kprof_rp_data_info *p)
{
	uint32_t n;

	p->num_ranges = S.cb_corr && recorded(S.cb_corr, &n) ? 1 : 0;
	return KPROF_CUPTI_SUCCESS;
}

EXPORT kprof_cupti_result_t
cuptiProfilerHostEvaluateToGpuValues(struct kprof_prof_evaluate *p)
{
	uint32_t n = 0;
	const double *v = recorded(S.cb_corr, &n);

	if (!v || p->range_index)
		return KPROF_CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < p->num_metrics; i++) {
		int k = metric_index(p->metric_names[i]);

		if (k < 0 || (uint32_t)k >= n)
			return KPROF_CUPTI_ERROR_INVALID_PARAMETER;
		p->values[i] = v[k];
	}
	return KPROF_CUPTI_SUCCESS;
}
