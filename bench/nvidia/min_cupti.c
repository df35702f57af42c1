// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of CUPTI activity tracing, for bench/nvidia/agent_cost.py: a
 * minimal CUDA_INJECTION64_PATH library that enables CUPTI's kernel
 * records (MIN_CUPTI_KINDS=kernel, the default), kernel, memcpy and
 * memset records (kernel,copy) or the serialized kernel records
 * (serial: CUPTI_ACTIVITY_KIND_KERNEL, kernels run one at a time),
 * takes the buffers CUPTI fills and only counts the records in them: no
 * conversion, no files. What a workload loses under it is what CUPTI's
 * own tracing costs; what it loses under kprof's agent beyond that is
 * kprof's. Built on the GPU host with the real cupti.h:
 *
 *   gcc -O2 -shared -fPIC -I$CUDA/include -o min_cupti.so min_cupti.c \
 *       -L$CUDA/lib64 -lcupti -lcuda
 *
 * Two of CUPTI's knobs on its tracing cost, for agent_cost.py's min-hw and
 * min-ptb modes: MIN_CUPTI_HW=1 asks for CUPTI's hardware trace
 * (cuptiActivityEnableHWTrace: timestamps taken by the GPU, not on the
 * launching thread), MIN_CUPTI_PTB=1 for per-thread activity buffers
 * (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER); each prints what CUPTI
 * answered. MIN_CUPTI_LATENCY=1 turns on CUPTI's latency timestamps
 * (cuptiActivityEnableLatencyTimestamps: queued and submitted times on
 * the kernel records, what kprof's --host-times queued uses), to tell
 * CUPTI's behaviour with them from the agent's; with it, what kprof's
 * agent does beyond counting, one at a time: MIN_CUPTI_GETTS=1 calls
 * cuptiGetTimestamp five times in each buffer completion (the agent's
 * SYNC sample), MIN_CUPTI_DEVICES=1 asks the driver for its devices in
 * the first completion, MIN_CUPTI_FLUSH_MS=N sets cuptiActivityFlushPeriod,
 * MIN_CUPTI_API=1 enables the driver API's activity records.
 * MIN_CUPTI_ATTR="ID=VALUE[,ID=VALUE...]" sets CUPTI activity attributes
 * by their number in cupti_activity.h's CUpti_ActivityAttribute (the
 * caller looks the numbers up there), each value as a size_t, or as a
 * uint8_t where CUPTI refuses that size; prints what CUPTI answered.
 *
 * Prints "min_cupti: N records, D dropped" at exit (stderr).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>
#include <cupti.h>

#define BUF_SIZE (4u << 20)

static unsigned long long n_records;
static size_t n_dropped;
/* completed buffers are reused, as kprof's agent does (no page faults) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *free_bufs;

static void CUPTIAPI request(uint8_t **buf, size_t *size, size_t *max)
{
	pthread_mutex_lock(&lock);
	*buf = free_bufs;
	if (free_bufs)
		free_bufs = *(void **)free_bufs;
	pthread_mutex_unlock(&lock);
	if (!*buf)
		*buf = aligned_alloc(8, BUF_SIZE);
	*size = *buf ? BUF_SIZE : 0;
	*max = 0;
}

static void CUPTIAPI complete(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
			      size_t valid)
{
	CUpti_Activity *r = NULL;
	size_t d = 0;

	(void)size;
	if (getenv("MIN_CUPTI_GETTS") && !strcmp(getenv("MIN_CUPTI_GETTS"), "1"))
		for (int i = 0; i < 5; i++) {
			uint64_t t;

			cuptiGetTimestamp(&t);
		}
	if (getenv("MIN_CUPTI_DEVICES") && !strcmp(getenv("MIN_CUPTI_DEVICES"), "1")) {
		static int asked;
		int n = 0;
		CUdevice d;
		CUuuid u;

		if (!asked++ && cuDeviceGetCount(&n) == CUDA_SUCCESS)
			for (int i = 0; i < n; i++)
				if (cuDeviceGet(&d, i) == CUDA_SUCCESS)
					cuDeviceGetUuid(&u, d);
	}
	while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS)
		n_records++;
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &d) == CUPTI_SUCCESS)
		n_dropped += d;
	pthread_mutex_lock(&lock);
	*(void **)(void *)buf = free_bufs;
	free_bufs = buf;
	pthread_mutex_unlock(&lock);
}

static void at_exit(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	fprintf(stderr, "min_cupti: %llu records, %zu dropped\n", n_records, n_dropped);
}

/* MIN_CUPTI_ATTR: each attribute as a size_t, else as one byte */
static void set_attrs(const char *spec)
{
	char *copy = strdup(spec), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned long id;
		unsigned long long v;
		size_t v8, len = sizeof(v8);
		uint8_t v1;
		CUptiResult r;

		if (sscanf(t, "%lu=%llu", &id, &v) != 2) {
			fprintf(stderr, "min_cupti: bad MIN_CUPTI_ATTR item '%s'\n", t);
			continue;
		}
		v8 = (size_t)v;
		r = cuptiActivitySetAttribute((CUpti_ActivityAttribute)id, &len, &v8);
		if (r != CUPTI_SUCCESS) {
			v1 = (uint8_t)v;
			len = sizeof(v1);
			r = cuptiActivitySetAttribute((CUpti_ActivityAttribute)id, &len, &v1);
		}
		fprintf(stderr, "min_cupti: cuptiActivitySetAttribute(%lu, %llu): %d\n",
			id, v, (int)r);
	}
	free(copy);
}

int InitializeInjection(void)
{
	const char *k = getenv("MIN_CUPTI_KINDS");

	const char *hw = getenv("MIN_CUPTI_HW"), *ptb = getenv("MIN_CUPTI_PTB");

	cuptiActivityRegisterCallbacks(request, complete);
	if (hw && !strcmp(hw, "1"))
		fprintf(stderr, "min_cupti: cuptiActivityEnableHWTrace: %d\n",
			(int)cuptiActivityEnableHWTrace(1));
	if (ptb && !strcmp(ptb, "1")) {
		uint8_t one = 1;
		size_t len = sizeof(one);

		CUpti_ActivityAttribute a = CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER;

		fprintf(stderr, "min_cupti: per-thread activity buffers: %d\n",
			(int)cuptiActivitySetAttribute(a, &len, &one));
	}
	if (getenv("MIN_CUPTI_LATENCY") && !strcmp(getenv("MIN_CUPTI_LATENCY"), "1"))
		fprintf(stderr, "min_cupti: cuptiActivityEnableLatencyTimestamps: %d\n",
			(int)cuptiActivityEnableLatencyTimestamps(1));
	if (getenv("MIN_CUPTI_FLUSH_MS")) {
		uint32_t ms = (uint32_t)atoi(getenv("MIN_CUPTI_FLUSH_MS"));

		fprintf(stderr, "min_cupti: cuptiActivityFlushPeriod: %d\n",
			(int)cuptiActivityFlushPeriod(ms));
	}
	if (getenv("MIN_CUPTI_ATTR"))
		set_attrs(getenv("MIN_CUPTI_ATTR"));
	if (getenv("MIN_CUPTI_API") && !strcmp(getenv("MIN_CUPTI_API"), "1"))
		fprintf(stderr, "min_cupti: cuptiActivityEnable(DRIVER): %d\n",
			(int)cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));
	if (k && !strcmp(k, "serial"))
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL);
	else
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if (k && strstr(k, "copy")) {
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
	}
	atexit(at_exit);
	return 1;
}
