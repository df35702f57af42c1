// SPDX-License-Identifier: GPL-2.0
/*
 * Checks user/lib/kprof_cupti.h (the CUPTI subset the agent declares for
 * itself) against NVIDIA's cupti.h: every value, field offset and
 * function type the agent uses. It only has to compile:
 *
 *   gcc -std=gnu11 -fsyntax-only -I$CUDA/include -Iuser/lib -Iinclude \
 *       -Iinclude/uapi tests/nvidia/cupti_decl_check.c
 *
 * KERNEL_T / MEMCPY_T / MEMSET_T name the record versions of the CUPTI
 * at hand (defaults: CUDA 13.0's: Kernel10, Memcpy6, Memset4); the agent
 * reads only fields that keep their offsets across versions, so checking
 * one is checking them all.
 */
#include <stddef.h>
#include <cupti.h>

#include "kprof_cupti.h"
#include <kprof/gpu_rec.h>

#ifndef KERNEL_T
#define KERNEL_T CUpti_ActivityKernel10
#endif
#ifndef MEMCPY_T
#define MEMCPY_T CUpti_ActivityMemcpy6
#endif
#ifndef MEMSET_T
#define MEMSET_T CUpti_ActivityMemset4
#endif

#define SAME(a, b) _Static_assert((a) == (b), #a " != " #b)
#define OFF(T, f, K, g) _Static_assert(offsetof(T, f) == offsetof(K, g) && \
				       sizeof(((T *)0)->f) == sizeof(((K *)0)->g), \
				       #T "." #f " vs " #K "." #g)
#define TYPE(fn, t) _Static_assert(__builtin_types_compatible_p(__typeof__(&fn), t), \
				   #fn " does not match " #t)

SAME(CUPTI_SUCCESS, KPROF_CUPTI_SUCCESS);
SAME(CUPTI_ERROR_INVALID_PARAMETER, KPROF_CUPTI_ERROR_INVALID_PARAMETER);
SAME(CUPTI_ERROR_MAX_LIMIT_REACHED, KPROF_CUPTI_ERROR_MAX_LIMIT_REACHED);
SAME(CUPTI_ERROR_NOT_SUPPORTED, KPROF_CUPTI_ERROR_NOT_SUPPORTED);
SAME(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, KPROF_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS);
SAME(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, KPROF_GERR_MULTIPLE_SUBSCRIBERS);
SAME(CUPTI_ACTIVITY_KIND_MEMCPY, KPROF_CUPTI_KIND_MEMCPY);
SAME(CUPTI_ACTIVITY_KIND_MEMSET, KPROF_CUPTI_KIND_MEMSET);
SAME(CUPTI_ACTIVITY_KIND_DRIVER, KPROF_CUPTI_KIND_DRIVER);
SAME(CUPTI_ACTIVITY_KIND_RUNTIME, KPROF_CUPTI_KIND_RUNTIME);
SAME(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, KPROF_CUPTI_KIND_CONCURRENT_KERNEL);
SAME(CUPTI_CB_DOMAIN_DRIVER_API, KPROF_CUPTI_DOMAIN_DRIVER_API);
SAME(CUPTI_CB_DOMAIN_RUNTIME_API, KPROF_CUPTI_DOMAIN_RUNTIME_API);
SAME(CUPTI_CB_DOMAIN_DRIVER_API, KPROF_GDOMAIN_DRIVER);
SAME(CUPTI_CB_DOMAIN_RUNTIME_API, KPROF_GDOMAIN_RUNTIME);
SAME(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, KPROF_CUPTI_FLUSH_FORCED);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, KPROF_GMEMCPY_HTOD);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, KPROF_GMEMCPY_DTOH);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, KPROF_GMEMCPY_DTOD);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, KPROF_GMEMCPY_HTOH);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, KPROF_GMEMCPY_PTOP);
_Static_assert(__builtin_types_compatible_p(CUptiResult, kprof_cupti_result_t),
	       "CUptiResult is not an unsigned int");
_Static_assert(sizeof(CUpti_CallbackId) == sizeof(uint32_t), "CUpti_CallbackId");

OFF(struct kprof_cupti_activity, kind, CUpti_Activity, kind);

OFF(struct kprof_cupti_kernel, kind, KERNEL_T, kind);
OFF(struct kprof_cupti_kernel, cache_config, KERNEL_T, cacheConfig);
OFF(struct kprof_cupti_kernel, shared_memory_config, KERNEL_T, sharedMemoryConfig);
OFF(struct kprof_cupti_kernel, registers_per_thread, KERNEL_T, registersPerThread);
OFF(struct kprof_cupti_kernel, partitioned_global_cache_requested, KERNEL_T,
    partitionedGlobalCacheRequested);
OFF(struct kprof_cupti_kernel, partitioned_global_cache_executed, KERNEL_T,
    partitionedGlobalCacheExecuted);
OFF(struct kprof_cupti_kernel, start, KERNEL_T, start);
OFF(struct kprof_cupti_kernel, end, KERNEL_T, end);
OFF(struct kprof_cupti_kernel, completed, KERNEL_T, completed);
OFF(struct kprof_cupti_kernel, device_id, KERNEL_T, deviceId);
OFF(struct kprof_cupti_kernel, context_id, KERNEL_T, contextId);
OFF(struct kprof_cupti_kernel, stream_id, KERNEL_T, streamId);
OFF(struct kprof_cupti_kernel, grid_x, KERNEL_T, gridX);
OFF(struct kprof_cupti_kernel, grid_y, KERNEL_T, gridY);
OFF(struct kprof_cupti_kernel, grid_z, KERNEL_T, gridZ);
OFF(struct kprof_cupti_kernel, block_x, KERNEL_T, blockX);
OFF(struct kprof_cupti_kernel, block_y, KERNEL_T, blockY);
OFF(struct kprof_cupti_kernel, block_z, KERNEL_T, blockZ);
OFF(struct kprof_cupti_kernel, static_shared_memory, KERNEL_T, staticSharedMemory);
OFF(struct kprof_cupti_kernel, dynamic_shared_memory, KERNEL_T, dynamicSharedMemory);
OFF(struct kprof_cupti_kernel, local_memory_per_thread, KERNEL_T, localMemoryPerThread);
OFF(struct kprof_cupti_kernel, local_memory_total, KERNEL_T, localMemoryTotal);
OFF(struct kprof_cupti_kernel, correlation_id, KERNEL_T, correlationId);
OFF(struct kprof_cupti_kernel, grid_id, KERNEL_T, gridId);
OFF(struct kprof_cupti_kernel, name, KERNEL_T, name);
OFF(struct kprof_cupti_kernel, reserved0, KERNEL_T, reserved0);
OFF(struct kprof_cupti_kernel, queued, KERNEL_T, queued);
OFF(struct kprof_cupti_kernel, submitted, KERNEL_T, submitted);
SAME(CUPTI_TIMESTAMP_UNKNOWN, KPROF_CUPTI_TIMESTAMP_UNKNOWN);

OFF(struct kprof_cupti_memcpy, kind, MEMCPY_T, kind);
OFF(struct kprof_cupti_memcpy, copy_kind, MEMCPY_T, copyKind);
OFF(struct kprof_cupti_memcpy, src_kind, MEMCPY_T, srcKind);
OFF(struct kprof_cupti_memcpy, dst_kind, MEMCPY_T, dstKind);
OFF(struct kprof_cupti_memcpy, flags, MEMCPY_T, flags);
OFF(struct kprof_cupti_memcpy, bytes, MEMCPY_T, bytes);
OFF(struct kprof_cupti_memcpy, start, MEMCPY_T, start);
OFF(struct kprof_cupti_memcpy, end, MEMCPY_T, end);
OFF(struct kprof_cupti_memcpy, device_id, MEMCPY_T, deviceId);
OFF(struct kprof_cupti_memcpy, context_id, MEMCPY_T, contextId);
OFF(struct kprof_cupti_memcpy, stream_id, MEMCPY_T, streamId);
OFF(struct kprof_cupti_memcpy, correlation_id, MEMCPY_T, correlationId);
OFF(struct kprof_cupti_memcpy, runtime_correlation_id, MEMCPY_T, runtimeCorrelationId);

OFF(struct kprof_cupti_memset, kind, MEMSET_T, kind);
OFF(struct kprof_cupti_memset, value, MEMSET_T, value);
OFF(struct kprof_cupti_memset, bytes, MEMSET_T, bytes);
OFF(struct kprof_cupti_memset, start, MEMSET_T, start);
OFF(struct kprof_cupti_memset, end, MEMSET_T, end);
OFF(struct kprof_cupti_memset, device_id, MEMSET_T, deviceId);
OFF(struct kprof_cupti_memset, context_id, MEMSET_T, contextId);
OFF(struct kprof_cupti_memset, stream_id, MEMSET_T, streamId);
OFF(struct kprof_cupti_memset, correlation_id, MEMSET_T, correlationId);
OFF(struct kprof_cupti_memset, flags, MEMSET_T, flags);
OFF(struct kprof_cupti_memset, memory_kind, MEMSET_T, memoryKind);

_Static_assert(sizeof(struct kprof_cupti_api) == sizeof(CUpti_ActivityAPI),
	       "CUpti_ActivityAPI size");
OFF(struct kprof_cupti_api, kind, CUpti_ActivityAPI, kind);
OFF(struct kprof_cupti_api, cbid, CUpti_ActivityAPI, cbid);
OFF(struct kprof_cupti_api, start, CUpti_ActivityAPI, start);
OFF(struct kprof_cupti_api, end, CUpti_ActivityAPI, end);
OFF(struct kprof_cupti_api, process_id, CUpti_ActivityAPI, processId);
OFF(struct kprof_cupti_api, thread_id, CUpti_ActivityAPI, threadId);
OFF(struct kprof_cupti_api, correlation_id, CUpti_ActivityAPI, correlationId);
OFF(struct kprof_cupti_api, return_value, CUpti_ActivityAPI, returnValue);

SAME(CUPTI_API_ENTER, KPROF_CUPTI_API_ENTER);
SAME(CUPTI_API_EXIT, KPROF_CUPTI_API_EXIT);
_Static_assert(sizeof(struct kprof_cupti_callback_data) == sizeof(CUpti_CallbackData),
	       "CUpti_CallbackData size");
_Static_assert(sizeof(CUpti_ApiCallbackSite) == sizeof(uint32_t), "CUpti_ApiCallbackSite");
OFF(struct kprof_cupti_callback_data, callback_site, CUpti_CallbackData, callbackSite);
OFF(struct kprof_cupti_callback_data, function_name, CUpti_CallbackData, functionName);
OFF(struct kprof_cupti_callback_data, function_params, CUpti_CallbackData, functionParams);
OFF(struct kprof_cupti_callback_data, function_return_value, CUpti_CallbackData,
    functionReturnValue);
OFF(struct kprof_cupti_callback_data, symbol_name, CUpti_CallbackData, symbolName);
OFF(struct kprof_cupti_callback_data, context, CUpti_CallbackData, context);
OFF(struct kprof_cupti_callback_data, context_uid, CUpti_CallbackData, contextUid);
OFF(struct kprof_cupti_callback_data, correlation_data, CUpti_CallbackData, correlationData);
OFF(struct kprof_cupti_callback_data, correlation_id, CUpti_CallbackData, correlationId);
_Static_assert(sizeof(CUresult) == sizeof(uint32_t), "CUresult (the exit's return value)");

_Static_assert(__builtin_types_compatible_p(CUpti_BuffersCallbackRequestFunc,
					    kprof_cupti_buffer_request_fn), "request callback");
_Static_assert(__builtin_types_compatible_p(CUpti_BuffersCallbackCompleteFunc,
					    kprof_cupti_buffer_complete_fn), "complete callback");
_Static_assert(__builtin_types_compatible_p(CUpti_TimestampCallbackFunc,
					    kprof_cupti_timestamp_fn), "timestamp callback");
_Static_assert(__builtin_types_compatible_p(CUpti_CallbackFunc, kprof_cupti_callback_fn),
	       "subscriber callback");

TYPE(cuptiGetVersion, kprof_cuptiGetVersion_fn);
TYPE(cuptiGetResultString, kprof_cuptiGetResultString_fn);
TYPE(cuptiSubscribe, kprof_cuptiSubscribe_fn);
TYPE(cuptiActivityEnable, kprof_cuptiActivityEnable_fn);
TYPE(cuptiActivityEnableDriverApi, kprof_cuptiActivityEnableDriverApi_fn);
TYPE(cuptiActivityEnableRuntimeApi, kprof_cuptiActivityEnableRuntimeApi_fn);
TYPE(cuptiGetCallbackName, kprof_cuptiGetCallbackName_fn);
TYPE(cuptiActivityRegisterCallbacks, kprof_cuptiActivityRegisterCallbacks_fn);
TYPE(cuptiActivityRegisterTimestampCallback, kprof_cuptiActivityRegisterTimestampCallback_fn);
/* the record type differs by name only (struct kprof_cupti_activity is
 * CUpti_Activity, checked above)
 */
_Static_assert(__builtin_types_compatible_p(__typeof__(&cuptiActivityGetNextRecord),
					    kprof_cupti_result_t (*)(uint8_t *, size_t,
								   CUpti_Activity **)),
	       "cuptiActivityGetNextRecord");
TYPE(cuptiActivityGetNumDroppedRecords, kprof_cuptiActivityGetNumDroppedRecords_fn);
TYPE(cuptiActivityFlushAll, kprof_cuptiActivityFlushAll_fn);
TYPE(cuptiActivityEnableLatencyTimestamps, kprof_cuptiActivityEnableLatencyTimestamps_fn);
TYPE(cuptiActivityFlushPeriod, kprof_cuptiActivityFlushPeriod_fn);
TYPE(cuptiGetTimestamp, kprof_cuptiGetTimestamp_fn);
TYPE(cuptiEnableCallback, kprof_cuptiEnableCallback_fn);

int main(void)
{
	return 0;
}
