// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The agent's per-kernel counters (KPROF_AGENT_COUNTERS): CUPTI's range
 * profiler on the context of the first kernel launched, auto range (a
 * range per kernel) and kernel replay (CUPTI re-runs each kernel once
 * per pass its metrics need, saving and restoring its memory: the cost
 * the outputs state). After each kernel launch call returns, its range
 * is decoded and evaluated and one METRICS record written with the
 * launch's correlation id, by which kprofctl joins it to the kernel.
 *
 * Everything that fails is said in the spool (AGENT ERROR, or
 * METRIC_REFUSED naming the metric) and counted (COUNTERS_END); the
 * workload goes on. Only one context is profiled: kernels of other
 * contexts count as not profiled.
 *
 * The launch callbacks never take the agent's lock: CUPTI may hold its
 * own locks around them while its buffer-completion thread, holding the
 * agent's lock, waits in CUPTI for those (the hang kprof_cupti_agent.c's
 * buf_lock avoids). Their records wait in a queue of their own (a leaf
 * lock, at most PEND_MAX bytes: a METRICS record that finds it full is
 * counted as a kernel not profiled) that the agent writes out when a
 * buffer completes and at exit (kprof_counters_drain).
 *
 * Environment: KPROF_AGENT_COUNTERS (metric list, kprof_gpucnt_parse()).
 */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <kprof/gpu_rec.h>

#include "kprof_agent.h"
#include "kprof_cupti_counters.h"
#include "kprof_cupti_prof.h"
#include "kprof_cuptirec.h"
#include "kprof_gpucnt.h"

#define MAX_CBID	1024
#define PEND_MAX	(1U << 20)	/* bytes of records waiting for the spool */

struct prof_fns {
	kprof_cuptiProfilerInitialize_fn ProfilerInitialize;
	kprof_cuptiDeviceGetChipName_fn DeviceGetChipName;
	kprof_cuptiProfilerHostInitialize_fn ProfilerHostInitialize;
	kprof_cuptiProfilerHostDeinitialize_fn ProfilerHostDeinitialize;
	kprof_cuptiProfilerHostConfigAddMetrics_fn ProfilerHostConfigAddMetrics;
	kprof_cuptiProfilerHostGetConfigImageSize_fn ProfilerHostGetConfigImageSize;
	kprof_cuptiProfilerHostGetConfigImage_fn ProfilerHostGetConfigImage;
	kprof_cuptiProfilerHostGetNumOfPasses_fn ProfilerHostGetNumOfPasses;
	kprof_cuptiProfilerHostEvaluateToGpuValues_fn ProfilerHostEvaluateToGpuValues;
	kprof_cuptiRangeProfilerEnable_fn RangeProfilerEnable;
	kprof_cuptiRangeProfilerDisable_fn RangeProfilerDisable;
	kprof_cuptiRangeProfilerStart_fn RangeProfilerStart;
	kprof_cuptiRangeProfilerStop_fn RangeProfilerStop;
	kprof_cuptiRangeProfilerDecodeData_fn RangeProfilerDecodeData;
	kprof_cuptiRangeProfilerSetConfig_fn RangeProfilerSetConfig;
	kprof_cuptiRangeProfilerGetCounterDataSize_fn RangeProfilerGetCounterDataSize;
	kprof_cuptiRangeProfilerCounterDataImageInitialize_fn CounterDataInit;
	kprof_cuptiRangeProfilerGetCounterDataInfo_fn RangeProfilerGetCounterDataInfo;
};

typedef int (*cu_ctx_get_device_fn)(int *dev);

/* C.lock: held from a kernel launch's entry to its exit callback, so
 * that the range decoded at the exit is that launch's kernel
 */
static struct counters {
	pthread_mutex_t lock;
	int on;				/* KPROF_AGENT_COUNTERS set, callbacks enabled */
	int state;			/* 0 not set up, 1 profiling, -1 failed */
	struct prof_fns f;
	void *lib;
	uint8_t launch[MAX_CBID];	/* driver cbids of kernel launches */
	char names[KPROF_GPU_MAX_METRICS][KPROF_GPUCNT_NAME_LEN];
	const char *all[KPROF_GPU_MAX_METRICS];	/* names[] */
	int nmetrics;
	const char *used[KPROF_GPU_MAX_METRICS];	/* the ones CUPTI took */
	int uidx[KPROF_GPU_MAX_METRICS];	/* used[k] is all[uidx[k]] */
	int nused;
	struct CUctx_st *ctx;
	struct CUpti_RangeProfiler_Object *obj;
	struct CUpti_Profiler_Host_Object *host;
	uint8_t *config, *data;
	size_t config_size, data_size;
	uint64_t profiled, not_profiled, bad_ranges;
} C = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread int held;	/* launch calls in flight on this thread */

static struct {
	pthread_mutex_t lock;		/* a leaf */
	uint64_t *buf;			/* records, each a multiple of 8 bytes */
	size_t len, cap;		/* bytes */
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A record for the spool, from a launch callback: 0, or -1 (queue full). */
static int push(const void *rec, size_t len)
{
	int ret = 0;

	pthread_mutex_lock(&P.lock);
	if (P.len + len > P.cap && P.cap < PEND_MAX) {
		size_t cap = P.cap ? 2 * P.cap : 16384;
		void *b = realloc(P.buf, cap);

		if (b) {
			P.buf = b;
			P.cap = cap;
		}
	}
	if (P.len + len > P.cap)
		ret = -1;
	else
		memcpy((uint8_t *)P.buf + P.len, rec, len);
	if (!ret)
		P.len += len;
	pthread_mutex_unlock(&P.lock);
	return ret;
}

static void push_event(uint32_t event, int32_t code, uint64_t value, uint64_t value2,
		       const char *text)
{
	struct kprof_grec_agent r;

	kprof_agent_event_rec(&r, event, code, value, value2, text);
	push(&r, sizeof(r));
}

void kprof_counters_drain(void)
{
	size_t off = 0;

	pthread_mutex_lock(&P.lock);
	while (off < P.len) {
		const struct kprof_grec_metrics *m = (const void *)((uint8_t *)P.buf + off);

		kprof_agent_put(m, m->size);
		if (m->type == KPROF_GREC_METRICS)
			kprof_agent_rec_frame(KPROF_CREC_METRICS, m->correlation, m->count,
					      m->cost_ns, m + 1, sizeof(double) * m->count);
		off += m->size;
	}
	P.len = 0;
	pthread_mutex_unlock(&P.lock);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void error(const char *what, kprof_cupti_result_t r)
{
	push_event(KPROF_GAGENT_ERROR, (int32_t)r, 0, 0, what);
}

#define PSYM_AS(field, name) (C.f.field = (__typeof__(C.f.field))dlsym(C.lib, "cupti" #name))
#define PSYM(name) PSYM_AS(name, name)

static int load(void)
{
	PSYM(ProfilerInitialize);
	PSYM(DeviceGetChipName);
	PSYM(ProfilerHostInitialize);
	PSYM(ProfilerHostDeinitialize);
	PSYM(ProfilerHostConfigAddMetrics);
	PSYM(ProfilerHostGetConfigImageSize);
	PSYM(ProfilerHostGetConfigImage);
	PSYM(ProfilerHostGetNumOfPasses);
	PSYM(ProfilerHostEvaluateToGpuValues);
	PSYM(RangeProfilerEnable);
	PSYM(RangeProfilerDisable);
	PSYM(RangeProfilerStart);
	PSYM(RangeProfilerStop);
	PSYM(RangeProfilerDecodeData);
	PSYM(RangeProfilerSetConfig);
	PSYM(RangeProfilerGetCounterDataSize);
	PSYM_AS(CounterDataInit, RangeProfilerCounterDataImageInitialize);
	PSYM(RangeProfilerGetCounterDataInfo);
	for (size_t i = 0; i < sizeof(C.f) / sizeof(void *); i++)
		if (!((void **)&C.f)[i])
			return -1;
	return 0;
}

/* a kernel launch: cuLaunch* but cuLaunchHostFunc, and graph launches */
static int is_kernel_launch(const char *name)
{
	return (!strncmp(name, "cuLaunch", 8) && strncmp(name, "cuLaunchHostFunc", 16)) ||
	       !strncmp(name, "cuGraphLaunch", 13);
}

void kprof_counters_init(void *cupti_lib, struct CUpti_Subscriber_st *sub,
			 kprof_cuptiEnableCallback_fn enable_cb,
			 kprof_cuptiGetCallbackName_fn cb_name)
{
	const char *list = getenv("KPROF_AGENT_COUNTERS");
	struct kprof_err err = { 0 };
	int n, enabled = 0;

	if (!list || !*list)
		return;
	n = kprof_gpucnt_parse(list, C.names, KPROF_GPU_MAX_METRICS, &err);
	if (n < 0) {
		kprof_agent_event(KPROF_GAGENT_ERROR, -22, 0, 0,
				  "counters: bad KPROF_AGENT_COUNTERS list");
		return;
	}
	C.nmetrics = n;
	for (int i = 0; i < n; i++) {
		struct {
			struct kprof_grec_name h;
			char text[KPROF_GPUCNT_NAME_LEN];
		} r;
		size_t len = strlen(C.names[i]);

		C.all[i] = C.names[i];
		memset(&r, 0, sizeof(r));
		r.h.type = KPROF_GREC_NAME;
		r.h.size = (uint16_t)((sizeof(r.h) + len + 1 + 7) & ~(size_t)7);
		r.h.id = (uint32_t)i;
		r.h.kind = KPROF_GNAME_METRIC;
		r.h.len = (uint16_t)len;
		memcpy(r.text, C.names[i], len);
		kprof_agent_put(&r, r.h.size);
	}
	C.lib = cupti_lib;
	if (load()) {
		kprof_agent_event(KPROF_GAGENT_ERROR, -2, 0, 0,
				  "counters: libcupti lacks the range profiler (CUDA 12.6+)");
		C.state = -1;
		return;
	}
	if (!sub || !enable_cb || !cb_name) {
		kprof_agent_event(KPROF_GAGENT_ERROR, -2, 0, 0,
				  "counters: no CUPTI subscriber for launch callbacks");
		C.state = -1;
		return;
	}
	for (uint32_t cbid = 1; cbid < MAX_CBID; cbid++) {
		const char *name = NULL;
		kprof_cupti_result_t r;

		if (cb_name(KPROF_CUPTI_DOMAIN_DRIVER_API, cbid, &name) != KPROF_CUPTI_SUCCESS ||
		    !name || !is_kernel_launch(name))
			continue;
		r = enable_cb(1, sub, KPROF_CUPTI_DOMAIN_DRIVER_API, cbid);
		if (r != KPROF_CUPTI_SUCCESS) {
			kprof_agent_event(KPROF_GAGENT_ERROR, (int32_t)r, cbid, 0,
					  "counters: cuptiEnableCallback(launch)");
			continue;
		}
		C.launch[cbid] = 1;
		enabled++;
	}
	C.on = enabled > 0;
}

static kprof_cupti_result_t new_host(void)
{
	struct kprof_prof_chip chip = { .struct_size = KPROF_PROF_CHIP_SIZE };
	struct kprof_prof_host_init hi = { .struct_size = KPROF_PROF_HOST_INIT_SIZE };
	cu_ctx_get_device_fn get_dev = NULL;
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	kprof_cupti_result_t r;
	int dev = 0;

	if (cuda)
		get_dev = (cu_ctx_get_device_fn)dlsym(cuda, "cuCtxGetDevice");
	if (get_dev && get_dev(&dev))
		dev = 0;	/* the launch's context is current: it has a device */
	chip.device_index = (size_t)dev;
	r = C.f.DeviceGetChipName(&chip);
	if (r != KPROF_CUPTI_SUCCESS) {
		error("counters: cuptiDeviceGetChipName", r);
		return r;
	}
	hi.profiler_type = KPROF_CUPTI_PROFILER_TYPE_RANGE;
	hi.chip_name = chip.chip_name;
	r = C.f.ProfilerHostInitialize(&hi);
	if (r != KPROF_CUPTI_SUCCESS) {
		error("counters: cuptiProfilerHostInitialize", r);
		return r;
	}
	C.host = hi.host;
	return r;
}

static void free_host(void)
{
	struct kprof_prof_host_deinit d = { .struct_size = KPROF_PROF_HOST_DEINIT_SIZE };

	if (!C.host)
		return;
	d.host = C.host;
	C.f.ProfilerHostDeinitialize(&d);
	C.host = NULL;
}

static kprof_cupti_result_t add_metrics(const char **names, int n)
{
	struct kprof_prof_add_metrics a = { .struct_size = KPROF_PROF_ADD_METRICS_SIZE };

	a.host = C.host;
	a.metric_names = names;
	a.num_metrics = (size_t)n;
	return C.f.ProfilerHostConfigAddMetrics(&a);
}

/*
 * The metrics CUPTI takes: all at once, else one by one in fresh host
 * objects, each refused one named in the spool (METRIC_REFUSED).
 */
static int choose_metrics(void)
{
	kprof_cupti_result_t r;

	if (new_host())
		return -1;
	r = add_metrics(C.all, C.nmetrics);
	if (r == KPROF_CUPTI_SUCCESS) {
		for (int i = 0; i < C.nmetrics; i++) {
			C.used[i] = C.all[i];
			C.uidx[i] = i;
		}
		C.nused = C.nmetrics;
		return 0;
	}
	free_host();
	C.nused = 0;
	for (int i = 0; i < C.nmetrics; i++) {
		if (new_host())
			return -1;
		r = add_metrics(&C.all[i], 1);
		free_host();
		if (r == KPROF_CUPTI_SUCCESS) {
			C.used[C.nused] = C.all[i];
			C.uidx[C.nused++] = i;
			continue;
		}
		push_event(KPROF_GAGENT_METRIC_REFUSED, (int32_t)r, (uint64_t)i, 0, C.all[i]);
	}
	if (!C.nused)
		return -1;
	if (new_host())
		return -1;
	r = add_metrics(C.used, C.nused);
	if (r != KPROF_CUPTI_SUCCESS) {
		error("counters: cuptiProfilerHostConfigAddMetrics", r);
		return -1;
	}
	return 0;
}

/* counter data image reset, config set, profiling started: ready for a kernel */
static kprof_cupti_result_t arm(const char **what)
{
	struct kprof_rp_data_init di = { .struct_size = KPROF_RP_DATA_INIT_SIZE };
	struct kprof_rp_set_config sc = { .struct_size = KPROF_RP_SET_CONFIG_SIZE };
	struct kprof_rp_obj st = { .struct_size = KPROF_RP_OBJ_SIZE };
	kprof_cupti_result_t r;

	di.obj = C.obj;
	di.counter_data_size = C.data_size;
	di.counter_data = C.data;
	*what = "counters: cuptiRangeProfilerCounterDataImageInitialize";
	r = C.f.CounterDataInit(&di);
	if (r != KPROF_CUPTI_SUCCESS)
		return r;
	sc.obj = C.obj;
	sc.config_size = C.config_size;
	sc.config = C.config;
	sc.counter_data_size = C.data_size;
	sc.counter_data = C.data;
	sc.range = KPROF_CUPTI_AUTO_RANGE;
	sc.replay_mode = KPROF_CUPTI_KERNEL_REPLAY;
	sc.max_ranges_per_pass = 1;
	sc.num_nesting_levels = 1;
	sc.min_nesting_level = 1;
	sc.pass_index = 0;
	sc.target_nesting_level = 1;
	*what = "counters: cuptiRangeProfilerSetConfig";
	r = C.f.RangeProfilerSetConfig(&sc);
	if (r != KPROF_CUPTI_SUCCESS)
		return r;
	st.obj = C.obj;
	*what = "counters: cuptiRangeProfilerStart";
	return C.f.RangeProfilerStart(&st);
}

static int setup(struct CUctx_st *ctx)
{
	struct kprof_prof_init pi = { .struct_size = KPROF_PROF_INIT_SIZE };
	struct kprof_prof_config_size cs = { .struct_size = KPROF_PROF_CONFIG_SIZE_SIZE };
	struct kprof_prof_config cf = { .struct_size = KPROF_PROF_CONFIG_SIZE };
	struct kprof_prof_passes ps = { .struct_size = KPROF_PROF_PASSES_SIZE };
	struct kprof_rp_enable en = { .struct_size = KPROF_RP_ENABLE_SIZE };
	struct kprof_rp_data_size ds = { .struct_size = KPROF_RP_DATA_SIZE_SIZE };
	const char *what = "counters: cuptiProfilerInitialize";
	kprof_cupti_result_t r;

	r = C.f.ProfilerInitialize(&pi);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	if (choose_metrics())
		return -1;
	cs.host = C.host;
	what = "counters: cuptiProfilerHostGetConfigImageSize";
	r = C.f.ProfilerHostGetConfigImageSize(&cs);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	C.config_size = cs.config_image_size;
	C.config = calloc(1, C.config_size);
	if (!C.config) {
		error("counters: no memory for the config image", 0);
		return -1;
	}
	cf.host = C.host;
	cf.config_image_size = C.config_size;
	cf.config_image = C.config;
	what = "counters: cuptiProfilerHostGetConfigImage";
	r = C.f.ProfilerHostGetConfigImage(&cf);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	ps.config_image_size = C.config_size;
	ps.config_image = C.config;
	what = "counters: cuptiProfilerHostGetNumOfPasses";
	r = C.f.ProfilerHostGetNumOfPasses(&ps);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	en.ctx = ctx;
	what = "counters: cuptiRangeProfilerEnable";
	r = C.f.RangeProfilerEnable(&en);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	C.obj = en.obj;
	C.ctx = ctx;
	ds.obj = C.obj;
	ds.metric_names = C.used;
	ds.num_metrics = (size_t)C.nused;
	ds.max_ranges = 1;
	ds.max_range_tree_nodes = 1;
	what = "counters: cuptiRangeProfilerGetCounterDataSize";
	r = C.f.RangeProfilerGetCounterDataSize(&ds);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	C.data_size = ds.counter_data_size;
	C.data = calloc(1, C.data_size);
	if (!C.data) {
		error("counters: no memory for the counter data image", 0);
		return -1;
	}
	r = arm(&what);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	push_event(KPROF_GAGENT_COUNTERS, KPROF_GREPLAY_KERNEL, ps.num_passes,
		   (uint64_t)C.nmetrics, NULL);
	return 0;
fail:
	error(what, r);
	return -1;
}

/* The kernel just launched: its range's values into a METRICS record. */
static void take_range(uint32_t corr)
{
	struct kprof_rp_stop sp = { .struct_size = KPROF_RP_STOP_SIZE };
	struct kprof_rp_decode dd = { .struct_size = KPROF_RP_DECODE_SIZE };
	struct kprof_rp_data_info di = { .struct_size = KPROF_RP_DATA_INFO_SIZE };
	struct kprof_prof_evaluate ev = { .struct_size = KPROF_PROF_EVALUATE_SIZE };
	struct {
		struct kprof_grec_metrics h;
		double v[KPROF_GPU_MAX_METRICS];
	} rec;
	double used_vals[KPROF_GPU_MAX_METRICS];
	uint64_t t0 = mono_ns();
	const char *what = "counters: cuptiRangeProfilerStop";
	kprof_cupti_result_t r;

	sp.obj = C.obj;
	r = C.f.RangeProfilerStop(&sp);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	dd.obj = C.obj;
	what = "counters: cuptiRangeProfilerDecodeData";
	r = C.f.RangeProfilerDecodeData(&dd);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	C.bad_ranges += dd.ranges_dropped;
	di.counter_data = C.data;
	di.counter_data_size = C.data_size;
	what = "counters: cuptiRangeProfilerGetCounterDataInfo";
	r = C.f.RangeProfilerGetCounterDataInfo(&di);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	if (di.num_ranges != 1) {
		/* a graph launch (several kernels, one correlation) or none */
		C.not_profiled++;
		C.bad_ranges += di.num_ranges;
	} else {
		ev.host = C.host;
		ev.counter_data = C.data;
		ev.counter_data_size = C.data_size;
		ev.range_index = 0;
		ev.metric_names = C.used;
		ev.num_metrics = (size_t)C.nused;
		ev.values = used_vals;
		what = "counters: cuptiProfilerHostEvaluateToGpuValues";
		r = C.f.ProfilerHostEvaluateToGpuValues(&ev);
		if (r != KPROF_CUPTI_SUCCESS)
			goto fail;
		memset(&rec, 0, sizeof(rec));
		for (int i = 0; i < C.nmetrics; i++)
			rec.v[i] = NAN;
		for (int k = 0; k < C.nused; k++)
			rec.v[C.uidx[k]] = used_vals[k];
	}
	r = arm(&what);
	if (r != KPROF_CUPTI_SUCCESS)
		goto fail;
	if (di.num_ranges == 1) {
		rec.h.type = KPROF_GREC_METRICS;
		rec.h.size = (uint16_t)(sizeof(rec.h) + sizeof(double) * (size_t)C.nmetrics);
		rec.h.correlation = corr;
		rec.h.count = (uint32_t)C.nmetrics;
		rec.h.cost_ns = mono_ns() - t0;
		if (push(&rec, rec.h.size))
			C.not_profiled++;	/* the queue is full: its values are lost */
		else
			C.profiled++;
	}
	return;
fail:
	/* the profiler is in an unknown state: stop using it, say why */
	C.state = -1;
	C.not_profiled++;
	error(what, r);
}

void kprof_counters_cb(unsigned int domain, uint32_t cbid, const void *cbdata)
{
	const struct kprof_cupti_callback_data *d = cbdata;

	if (!C.on || domain != KPROF_CUPTI_DOMAIN_DRIVER_API || cbid >= MAX_CBID ||
	    !C.launch[cbid] || !d)
		return;
	if (d->callback_site == KPROF_CUPTI_API_ENTER) {
		if (held++)
			return;	/* a launch inside a launch: the outer one's range */
		pthread_mutex_lock(&C.lock);
		if (!C.state)
			C.state = setup(d->context) ? -1 : 1;
		return;
	}
	if (!held || --held)
		return;
	if (C.state == 1 && d->context == C.ctx &&
	    !(d->function_return_value && *(const int *)d->function_return_value))
		take_range(d->correlation_id);
	else if (!(d->function_return_value && *(const int *)d->function_return_value))
		C.not_profiled++;
	pthread_mutex_unlock(&C.lock);
}

void kprof_counters_exit(void)
{
	struct kprof_rp_stop sp = { .struct_size = KPROF_RP_STOP_SIZE };
	struct kprof_rp_obj ds = { .struct_size = KPROF_RP_OBJ_SIZE };

	if (!C.nmetrics)
		return;
	pthread_mutex_lock(&C.lock);
	if (C.state == 1) {
		sp.obj = C.obj;
		C.f.RangeProfilerStop(&sp);
		ds.obj = C.obj;
		C.f.RangeProfilerDisable(&ds);
		C.state = -1;
	}
	free_host();
	push_event(KPROF_GAGENT_COUNTERS_END, (int32_t)C.bad_ranges, C.profiled, C.not_profiled,
		   NULL);
	pthread_mutex_unlock(&C.lock);
}
