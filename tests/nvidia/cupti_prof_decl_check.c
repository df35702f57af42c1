// SPDX-License-Identifier: GPL-2.0
/*
 * Checks user/lib/kprof_cupti_prof.h (the range profiler subset the
 * agent's counters declare for themselves) against NVIDIA's headers:
 * every value, field offset, struct size and function type. It only has
 * to compile, as C++: cupti_profiler_host.h includes <string>
 * (tests/nvidia/check.sh):
 *
 *   g++ -x c++ -std=c++17 -fsyntax-only -I$CUDA/include -Iuser/lib \
 *       tests/nvidia/cupti_prof_decl_check.c
 */
#include <stddef.h>
#include <type_traits>
#include <cupti.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include "kprof_cupti_prof.h"

#define _Static_assert static_assert
#define SAME(a, b) _Static_assert((a) == (b), #a " != " #b)
#define OFF(T, f, K, g) _Static_assert(offsetof(T, f) == offsetof(K, g) && \
				       sizeof(((T *)0)->f) == sizeof(((K *)0)->g), \
				       #T "." #f " vs " #K "." #g)

SAME(CUPTI_ERROR_INVALID_METRIC_NAME, KPROF_CUPTI_ERROR_INVALID_METRIC_NAME);
SAME(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, KPROF_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
SAME(CUPTI_PROFILER_TYPE_RANGE_PROFILER, KPROF_CUPTI_PROFILER_TYPE_RANGE);
SAME(CUPTI_AutoRange, KPROF_CUPTI_AUTO_RANGE);
SAME(CUPTI_KernelReplay, KPROF_CUPTI_KERNEL_REPLAY);
SAME(CUPTI_UserReplay, KPROF_CUPTI_USER_REPLAY);
_Static_assert(sizeof(CUpti_ProfilerType) == sizeof(unsigned int), "CUpti_ProfilerType");
_Static_assert(sizeof(CUpti_ProfilerRange) == sizeof(unsigned int), "CUpti_ProfilerRange");
_Static_assert(sizeof(CUpti_ProfilerReplayMode) == sizeof(unsigned int),
	"CUpti_ProfilerReplayMode");

OFF(struct kprof_prof_init, priv, CUpti_Profiler_Initialize_Params, pPriv);
SAME(KPROF_PROF_INIT_SIZE, CUpti_Profiler_Initialize_Params_STRUCT_SIZE);

OFF(struct kprof_prof_chip, device_index, CUpti_Device_GetChipName_Params, deviceIndex);
OFF(struct kprof_prof_chip, chip_name, CUpti_Device_GetChipName_Params, pChipName);
SAME(KPROF_PROF_CHIP_SIZE, CUpti_Device_GetChipName_Params_STRUCT_SIZE);

OFF(struct kprof_prof_host_init, profiler_type,
	CUpti_Profiler_Host_Initialize_Params, profilerType);
OFF(struct kprof_prof_host_init, chip_name, CUpti_Profiler_Host_Initialize_Params, pChipName);
OFF(struct kprof_prof_host_init, counter_availability, CUpti_Profiler_Host_Initialize_Params,
    pCounterAvailabilityImage);
OFF(struct kprof_prof_host_init, host, CUpti_Profiler_Host_Initialize_Params, pHostObject);
SAME(KPROF_PROF_HOST_INIT_SIZE, CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);

OFF(struct kprof_prof_host_deinit, host, CUpti_Profiler_Host_Deinitialize_Params, pHostObject);
SAME(KPROF_PROF_HOST_DEINIT_SIZE, CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);

OFF(struct kprof_prof_add_metrics, host, CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject);
OFF(struct kprof_prof_add_metrics, metric_names, CUpti_Profiler_Host_ConfigAddMetrics_Params,
    ppMetricNames);
OFF(struct kprof_prof_add_metrics, num_metrics, CUpti_Profiler_Host_ConfigAddMetrics_Params,
    numMetrics);
SAME(KPROF_PROF_ADD_METRICS_SIZE, CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);

OFF(struct kprof_prof_config_size, host,
	CUpti_Profiler_Host_GetConfigImageSize_Params, pHostObject);
OFF(struct kprof_prof_config_size, config_image_size, CUpti_Profiler_Host_GetConfigImageSize_Params,
    configImageSize);
SAME(KPROF_PROF_CONFIG_SIZE_SIZE, CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);

OFF(struct kprof_prof_config, host, CUpti_Profiler_Host_GetConfigImage_Params, pHostObject);
OFF(struct kprof_prof_config, config_image_size, CUpti_Profiler_Host_GetConfigImage_Params,
    configImageSize);
OFF(struct kprof_prof_config, config_image,
	CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);
SAME(KPROF_PROF_CONFIG_SIZE, CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);

OFF(struct kprof_prof_passes, config_image_size, CUpti_Profiler_Host_GetNumOfPasses_Params,
    configImageSize);
OFF(struct kprof_prof_passes, config_image,
	CUpti_Profiler_Host_GetNumOfPasses_Params, pConfigImage);
OFF(struct kprof_prof_passes, num_passes, CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses);
SAME(KPROF_PROF_PASSES_SIZE, CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);

OFF(struct kprof_prof_evaluate, host, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject);
OFF(struct kprof_prof_evaluate, counter_data, CUpti_Profiler_Host_EvaluateToGpuValues_Params,
    pCounterDataImage);
OFF(struct kprof_prof_evaluate, counter_data_size, CUpti_Profiler_Host_EvaluateToGpuValues_Params,
    counterDataImageSize);
OFF(struct kprof_prof_evaluate, range_index, CUpti_Profiler_Host_EvaluateToGpuValues_Params,
    rangeIndex);
OFF(struct kprof_prof_evaluate, metric_names, CUpti_Profiler_Host_EvaluateToGpuValues_Params,
    ppMetricNames);
OFF(struct kprof_prof_evaluate, num_metrics, CUpti_Profiler_Host_EvaluateToGpuValues_Params,
    numMetrics);
OFF(struct kprof_prof_evaluate, values, CUpti_Profiler_Host_EvaluateToGpuValues_Params,
    pMetricValues);
SAME(KPROF_PROF_EVALUATE_SIZE, CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);

OFF(struct kprof_rp_enable, ctx, CUpti_RangeProfiler_Enable_Params, ctx);
OFF(struct kprof_rp_enable, obj, CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject);
SAME(KPROF_RP_ENABLE_SIZE, CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);

OFF(struct kprof_rp_obj, obj, CUpti_RangeProfiler_Disable_Params, pRangeProfilerObject);
OFF(struct kprof_rp_obj, obj, CUpti_RangeProfiler_Start_Params, pRangeProfilerObject);
SAME(KPROF_RP_OBJ_SIZE, CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
SAME(KPROF_RP_OBJ_SIZE, CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);

OFF(struct kprof_rp_stop, obj, CUpti_RangeProfiler_Stop_Params, pRangeProfilerObject);
OFF(struct kprof_rp_stop, pass_index, CUpti_RangeProfiler_Stop_Params, passIndex);
OFF(struct kprof_rp_stop, target_nesting_level,
	CUpti_RangeProfiler_Stop_Params, targetNestingLevel);
OFF(struct kprof_rp_stop, all_passes_submitted,
	CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted);
SAME(KPROF_RP_STOP_SIZE, CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);

OFF(struct kprof_rp_decode, obj, CUpti_RangeProfiler_DecodeData_Params, pRangeProfilerObject);
OFF(struct kprof_rp_decode, ranges_dropped,
	CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped);
SAME(KPROF_RP_DECODE_SIZE, CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);

OFF(struct kprof_rp_set_config, obj, CUpti_RangeProfiler_SetConfig_Params, pRangeProfilerObject);
OFF(struct kprof_rp_set_config, config_size, CUpti_RangeProfiler_SetConfig_Params, configSize);
OFF(struct kprof_rp_set_config, config, CUpti_RangeProfiler_SetConfig_Params, pConfig);
OFF(struct kprof_rp_set_config, counter_data_size, CUpti_RangeProfiler_SetConfig_Params,
    counterDataImageSize);
OFF(struct kprof_rp_set_config, counter_data,
	CUpti_RangeProfiler_SetConfig_Params, pCounterDataImage);
OFF(struct kprof_rp_set_config, range, CUpti_RangeProfiler_SetConfig_Params, range);
OFF(struct kprof_rp_set_config, replay_mode, CUpti_RangeProfiler_SetConfig_Params, replayMode);
OFF(struct kprof_rp_set_config, max_ranges_per_pass, CUpti_RangeProfiler_SetConfig_Params,
    maxRangesPerPass);
OFF(struct kprof_rp_set_config, num_nesting_levels, CUpti_RangeProfiler_SetConfig_Params,
    numNestingLevels);
OFF(struct kprof_rp_set_config, min_nesting_level, CUpti_RangeProfiler_SetConfig_Params,
    minNestingLevel);
OFF(struct kprof_rp_set_config, pass_index, CUpti_RangeProfiler_SetConfig_Params, passIndex);
OFF(struct kprof_rp_set_config, target_nesting_level, CUpti_RangeProfiler_SetConfig_Params,
    targetNestingLevel);
SAME(KPROF_RP_SET_CONFIG_SIZE, CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);

OFF(struct kprof_rp_data_size, obj, CUpti_RangeProfiler_GetCounterDataSize_Params,
    pRangeProfilerObject);
OFF(struct kprof_rp_data_size, metric_names, CUpti_RangeProfiler_GetCounterDataSize_Params,
    pMetricNames);
OFF(struct kprof_rp_data_size, num_metrics, CUpti_RangeProfiler_GetCounterDataSize_Params,
    numMetrics);
OFF(struct kprof_rp_data_size, max_ranges, CUpti_RangeProfiler_GetCounterDataSize_Params,
    maxNumOfRanges);
OFF(struct kprof_rp_data_size, max_range_tree_nodes, CUpti_RangeProfiler_GetCounterDataSize_Params,
    maxNumRangeTreeNodes);
OFF(struct kprof_rp_data_size, counter_data_size, CUpti_RangeProfiler_GetCounterDataSize_Params,
    counterDataSize);
SAME(KPROF_RP_DATA_SIZE_SIZE, CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);

OFF(struct kprof_rp_data_init, obj, CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
    pRangeProfilerObject);
OFF(struct kprof_rp_data_init, counter_data_size,
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params, counterDataSize);
OFF(struct kprof_rp_data_init, counter_data, CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
    pCounterData);
SAME(KPROF_RP_DATA_INIT_SIZE, CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);

OFF(struct kprof_rp_data_info, counter_data, CUpti_RangeProfiler_GetCounterDataInfo_Params,
    pCounterDataImage);
OFF(struct kprof_rp_data_info, counter_data_size, CUpti_RangeProfiler_GetCounterDataInfo_Params,
    counterDataImageSize);
OFF(struct kprof_rp_data_info, num_ranges, CUpti_RangeProfiler_GetCounterDataInfo_Params,
    numTotalRanges);
SAME(KPROF_RP_DATA_INFO_SIZE, CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);

/* function types: one params pointer in (the structs checked above), a
 * CUptiResult out
 */
#define FN(name, kt) _Static_assert(std::is_same<decltype(name(nullptr)), CUptiResult>::value && \
				    (std::is_same<std::underlying_type<CUptiResult>::type, \
					 decltype(kt(nullptr)(nullptr))>::value), \
				    #name)
FN(cuptiProfilerInitialize, kprof_cuptiProfilerInitialize_fn);
FN(cuptiDeviceGetChipName, kprof_cuptiDeviceGetChipName_fn);
FN(cuptiProfilerHostInitialize, kprof_cuptiProfilerHostInitialize_fn);
FN(cuptiProfilerHostDeinitialize, kprof_cuptiProfilerHostDeinitialize_fn);
FN(cuptiProfilerHostConfigAddMetrics, kprof_cuptiProfilerHostConfigAddMetrics_fn);
FN(cuptiProfilerHostGetConfigImageSize, kprof_cuptiProfilerHostGetConfigImageSize_fn);
FN(cuptiProfilerHostGetConfigImage, kprof_cuptiProfilerHostGetConfigImage_fn);
FN(cuptiProfilerHostGetNumOfPasses, kprof_cuptiProfilerHostGetNumOfPasses_fn);
FN(cuptiProfilerHostEvaluateToGpuValues, kprof_cuptiProfilerHostEvaluateToGpuValues_fn);
FN(cuptiRangeProfilerEnable, kprof_cuptiRangeProfilerEnable_fn);
FN(cuptiRangeProfilerDisable, kprof_cuptiRangeProfilerDisable_fn);
FN(cuptiRangeProfilerStart, kprof_cuptiRangeProfilerStart_fn);
FN(cuptiRangeProfilerStop, kprof_cuptiRangeProfilerStop_fn);
FN(cuptiRangeProfilerDecodeData, kprof_cuptiRangeProfilerDecodeData_fn);
FN(cuptiRangeProfilerSetConfig, kprof_cuptiRangeProfilerSetConfig_fn);
FN(cuptiRangeProfilerGetCounterDataSize, kprof_cuptiRangeProfilerGetCounterDataSize_fn);
FN(cuptiRangeProfilerCounterDataImageInitialize,
	kprof_cuptiRangeProfilerCounterDataImageInitialize_fn);
FN(cuptiRangeProfilerGetCounterDataInfo, kprof_cuptiRangeProfilerGetCounterDataInfo_fn);
