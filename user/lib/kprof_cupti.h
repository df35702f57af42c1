/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The part of NVIDIA's CUPTI API (cupti.h, CUDA 13) that the kprof agent
 * uses, declared here with kprof_ names so that the agent builds without
 * the CUDA toolkit and loads libcupti with dlopen() at run time (as
 * wprof does). Only the leading fields of the activity records that the
 * agent reads are declared: CUPTI appends new fields to new record
 * versions and keeps the old ones where they were.
 *
 * tests/nvidia/cupti_decl_check.c includes the real cupti.h next to this
 * file and checks every value, offset and function type below with
 * _Static_assert; it is built on a host with the CUDA toolkit.
 */
#ifndef KPROF_CUPTI_H
#define KPROF_CUPTI_H

#include <stddef.h>
#include <stdint.h>

/* CUptiResult (an enum of unsigned values: unsigned int for GCC) */
typedef unsigned int kprof_cupti_result_t;
#define KPROF_CUPTI_SUCCESS			0
#define KPROF_CUPTI_ERROR_INVALID_PARAMETER	1
#define KPROF_CUPTI_ERROR_MAX_LIMIT_REACHED	12
#define KPROF_CUPTI_ERROR_NOT_SUPPORTED		27
#define KPROF_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS	39

/* CUpti_ActivityKind */
#define KPROF_CUPTI_KIND_MEMCPY			1
#define KPROF_CUPTI_KIND_MEMSET			2
#define KPROF_CUPTI_KIND_DRIVER			4
#define KPROF_CUPTI_KIND_RUNTIME		5
#define KPROF_CUPTI_KIND_CONCURRENT_KERNEL	10

/* CUpti_CallbackDomain */
#define KPROF_CUPTI_DOMAIN_DRIVER_API		1
#define KPROF_CUPTI_DOMAIN_RUNTIME_API		2

/* CUpti_ApiCallbackSite: CUpti_CallbackData.callbackSite */
#define KPROF_CUPTI_API_ENTER			0
#define KPROF_CUPTI_API_EXIT			1

/* CUpti_ActivityFlag: cuptiActivityFlushAll(KPROF_CUPTI_FLUSH_FORCED) */
#define KPROF_CUPTI_FLUSH_FORCED		1

/* CUpti_Activity */
struct kprof_cupti_activity {
	uint32_t kind;
};

/* The leading fields of CUpti_ActivityKernel9/10/11 (the same in each). */
struct kprof_cupti_kernel {
	uint32_t kind;
	uint8_t cache_config;
	uint8_t shared_memory_config;
	uint16_t registers_per_thread;
	uint32_t partitioned_global_cache_requested;
	uint32_t partitioned_global_cache_executed;
	uint64_t start;
	uint64_t end;
	uint64_t completed;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	int32_t grid_x, grid_y, grid_z;
	int32_t block_x, block_y, block_z;
	int32_t static_shared_memory;
	int32_t dynamic_shared_memory;
	uint32_t local_memory_per_thread;
	uint32_t local_memory_total;
	uint32_t correlation_id;
	int64_t grid_id;
	const char *name;
	void *reserved0;
	/* latency timestamps (cuptiActivityEnableLatencyTimestamps), else
	 * KPROF_CUPTI_TIMESTAMP_UNKNOWN
	 */
	uint64_t queued;
	uint64_t submitted;
};

/* CUPTI_TIMESTAMP_UNKNOWN */
#define KPROF_CUPTI_TIMESTAMP_UNKNOWN		0ULL

/* The leading fields of CUpti_ActivityMemcpy5/6. */
struct kprof_cupti_memcpy {
	uint32_t kind;
	uint8_t copy_kind;
	uint8_t src_kind;
	uint8_t dst_kind;
	uint8_t flags;
	uint64_t bytes;
	uint64_t start;
	uint64_t end;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t correlation_id;
	uint32_t runtime_correlation_id;
};

/* The leading fields of CUpti_ActivityMemset4. */
struct kprof_cupti_memset {
	uint32_t kind;
	uint32_t value;
	uint64_t bytes;
	uint64_t start;
	uint64_t end;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t correlation_id;
	uint16_t flags;
	uint16_t memory_kind;
};

/* CUpti_ActivityAPI (whole record) */
struct kprof_cupti_api {
	uint32_t kind;
	uint32_t cbid;
	uint64_t start;
	uint64_t end;
	uint32_t process_id;
	uint32_t thread_id;
	uint32_t correlation_id;
	uint32_t return_value;
};

/* Opaque CUDA/CUPTI handles, under their cuda.h / cupti.h tags. */
struct CUctx_st;
struct CUpti_Subscriber_st;

/*
 * CUpti_CallbackData (whole struct): what a driver or runtime API
 * callback (cuptiEnableCallback) gets as cbdata, valid during the call.
 * The agent reads callback_site, function_return_value (at exit: the
 * CUresult), correlation_data (a slot from the enter to the exit
 * callback of one call) and correlation_id (= the records' correlation).
 */
struct kprof_cupti_callback_data {
	uint32_t callback_site;			/* KPROF_CUPTI_API_ENTER / _EXIT */
	const char *function_name;
	const void *function_params;
	void *function_return_value;
	const char *symbol_name;
	struct CUctx_st *context;
	uint32_t context_uid;
	uint64_t *correlation_data;
	uint32_t correlation_id;
};

typedef void (*kprof_cupti_buffer_request_fn)(uint8_t **buffer, size_t *size,
					      size_t *max_num_records);
typedef void (*kprof_cupti_buffer_complete_fn)(struct CUctx_st *ctx, uint32_t stream_id,
					       uint8_t *buffer, size_t size,
					       size_t valid_size);
typedef uint64_t (*kprof_cupti_timestamp_fn)(void);
typedef void (*kprof_cupti_callback_fn)(void *userdata, unsigned int domain,
					uint32_t cbid, const void *cbdata);

/* The functions, as the agent dlsym()s them (names: cupti<Name>). */
typedef kprof_cupti_result_t (*kprof_cuptiGetVersion_fn)(uint32_t *version);
typedef kprof_cupti_result_t (*kprof_cuptiGetResultString_fn)(kprof_cupti_result_t result,
							  const char **str);
typedef kprof_cupti_result_t (*kprof_cuptiSubscribe_fn)(struct CUpti_Subscriber_st **subscriber,
						    kprof_cupti_callback_fn callback,
						    void *userdata);
typedef kprof_cupti_result_t (*kprof_cuptiActivityEnable_fn)(unsigned int kind);
typedef kprof_cupti_result_t (*kprof_cuptiActivityEnableDriverApi_fn)(uint32_t cbid,
								  uint8_t enable);
typedef kprof_cupti_result_t (*kprof_cuptiActivityEnableRuntimeApi_fn)(uint32_t cbid,
								   uint8_t enable);
typedef kprof_cupti_result_t (*kprof_cuptiGetCallbackName_fn)(unsigned int domain, uint32_t cbid,
							  const char **name);
typedef kprof_cupti_result_t
(*kprof_cuptiActivityRegisterCallbacks_fn)(kprof_cupti_buffer_request_fn request,
					   kprof_cupti_buffer_complete_fn complete);
typedef kprof_cupti_result_t
(*kprof_cuptiActivityRegisterTimestampCallback_fn)(kprof_cupti_timestamp_fn fn);
typedef kprof_cupti_result_t
(*kprof_cuptiActivityGetNextRecord_fn)(uint8_t *buffer, size_t valid_size,
				       struct kprof_cupti_activity **record);
typedef kprof_cupti_result_t
(*kprof_cuptiActivityGetNumDroppedRecords_fn)(struct CUctx_st *ctx, uint32_t stream_id,
					      size_t *dropped);
typedef kprof_cupti_result_t (*kprof_cuptiActivityFlushAll_fn)(uint32_t flag);
typedef kprof_cupti_result_t (*kprof_cuptiActivityFlushPeriod_fn)(uint32_t ms);
typedef kprof_cupti_result_t (*kprof_cuptiGetTimestamp_fn)(uint64_t *timestamp);
typedef kprof_cupti_result_t (*kprof_cuptiActivityEnableLatencyTimestamps_fn)(uint8_t enable);
typedef kprof_cupti_result_t (*kprof_cuptiEnableCallback_fn)(uint32_t enable,
							 struct CUpti_Subscriber_st *subscriber,
							 unsigned int domain, uint32_t cbid);

/* CUPTI wants activity buffers aligned to this. */
#define KPROF_CUPTI_BUFFER_ALIGN		8

#endif /* KPROF_CUPTI_H */
