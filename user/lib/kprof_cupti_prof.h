/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The part of CUPTI's range profiler (cupti_range_profiler.h,
 * cupti_profiler_host.h, cupti_profiler_target.h, CUDA 13) that the
 * agent's counters (user/agent/kprof_cupti_counters.c) use, declared with
 * kprof_ names as kprof_cupti.h does for the activity API. Every params
 * struct is whole (CUPTI checks structSize); its size constant is
 * offsetof(last field) + its size, as CUPTI's *_STRUCT_SIZE macros.
 * tests/nvidia/cupti_decl_check.c checks each value, offset and size
 * against the real headers on a host with the CUDA toolkit.
 */
#ifndef KPROF_CUPTI_PROF_H
#define KPROF_CUPTI_PROF_H

#include <stddef.h>
#include <stdint.h>

#include "kprof_cupti.h"

/* CUptiResult values the counters name */
#define KPROF_CUPTI_ERROR_INVALID_METRIC_NAME		17
#define KPROF_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES	35

/* CUpti_ProfilerType */
#define KPROF_CUPTI_PROFILER_TYPE_RANGE			0
/* CUpti_ProfilerRange */
#define KPROF_CUPTI_AUTO_RANGE				1
/* CUpti_ProfilerReplayMode */
#define KPROF_CUPTI_KERNEL_REPLAY			2
#define KPROF_CUPTI_USER_REPLAY				3

struct CUpti_RangeProfiler_Object;
struct CUpti_Profiler_Host_Object;

#define KPROF_PSIZE(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* CUpti_Profiler_Initialize_Params */
struct kprof_prof_init {
	size_t struct_size;
	void *priv;
};

#define KPROF_PROF_INIT_SIZE KPROF_PSIZE(struct kprof_prof_init, priv)

/* CUpti_Device_GetChipName_Params */
struct kprof_prof_chip {
	size_t struct_size;
	void *priv;
	size_t device_index;
	const char *chip_name;
};

#define KPROF_PROF_CHIP_SIZE KPROF_PSIZE(struct kprof_prof_chip, chip_name)

/* CUpti_Profiler_Host_Initialize_Params */
struct kprof_prof_host_init {
	size_t struct_size;
	void *priv;
	unsigned int profiler_type;	/* CUpti_ProfilerType */
	const char *chip_name;
	const uint8_t *counter_availability;
	struct CUpti_Profiler_Host_Object *host;
};

#define KPROF_PROF_HOST_INIT_SIZE KPROF_PSIZE(struct kprof_prof_host_init, host)

/* CUpti_Profiler_Host_Deinitialize_Params */
struct kprof_prof_host_deinit {
	size_t struct_size;
	void *priv;
	struct CUpti_Profiler_Host_Object *host;
};

#define KPROF_PROF_HOST_DEINIT_SIZE KPROF_PSIZE(struct kprof_prof_host_deinit, host)

/* CUpti_Profiler_Host_ConfigAddMetrics_Params */
struct kprof_prof_add_metrics {
	size_t struct_size;
	void *priv;
	struct CUpti_Profiler_Host_Object *host;
	const char **metric_names;
	size_t num_metrics;
};

#define KPROF_PROF_ADD_METRICS_SIZE KPROF_PSIZE(struct kprof_prof_add_metrics, num_metrics)

/* CUpti_Profiler_Host_GetConfigImageSize_Params */
struct kprof_prof_config_size {
	size_t struct_size;
	void *priv;
	struct CUpti_Profiler_Host_Object *host;
	size_t config_image_size;
};

#define KPROF_PROF_CONFIG_SIZE_SIZE KPROF_PSIZE(struct kprof_prof_config_size, config_image_size)

/* CUpti_Profiler_Host_GetConfigImage_Params */
struct kprof_prof_config {
	size_t struct_size;
	void *priv;
	struct CUpti_Profiler_Host_Object *host;
	size_t config_image_size;
	uint8_t *config_image;
};

#define KPROF_PROF_CONFIG_SIZE KPROF_PSIZE(struct kprof_prof_config, config_image)

/* CUpti_Profiler_Host_GetNumOfPasses_Params */
struct kprof_prof_passes {
	size_t struct_size;
	void *priv;
	size_t config_image_size;
	uint8_t *config_image;
	size_t num_passes;
};

#define KPROF_PROF_PASSES_SIZE KPROF_PSIZE(struct kprof_prof_passes, num_passes)

/* CUpti_Profiler_Host_EvaluateToGpuValues_Params */
struct kprof_prof_evaluate {
	size_t struct_size;
	void *priv;
	struct CUpti_Profiler_Host_Object *host;
	const uint8_t *counter_data;
	size_t counter_data_size;
	size_t range_index;
	const char **metric_names;
	size_t num_metrics;
	double *values;
};

#define KPROF_PROF_EVALUATE_SIZE KPROF_PSIZE(struct kprof_prof_evaluate, values)

/* CUpti_RangeProfiler_Enable_Params */
struct kprof_rp_enable {
	size_t struct_size;
	void *priv;
	struct CUctx_st *ctx;
	struct CUpti_RangeProfiler_Object *obj;
};

#define KPROF_RP_ENABLE_SIZE KPROF_PSIZE(struct kprof_rp_enable, obj)

/* CUpti_RangeProfiler_{Disable,Start}_Params (the same three fields) */
struct kprof_rp_obj {
	size_t struct_size;
	void *priv;
	struct CUpti_RangeProfiler_Object *obj;
};

#define KPROF_RP_OBJ_SIZE KPROF_PSIZE(struct kprof_rp_obj, obj)

/* CUpti_RangeProfiler_Stop_Params */
struct kprof_rp_stop {
	size_t struct_size;
	void *priv;
	struct CUpti_RangeProfiler_Object *obj;
	size_t pass_index;
	size_t target_nesting_level;
	uint8_t all_passes_submitted;
};

#define KPROF_RP_STOP_SIZE KPROF_PSIZE(struct kprof_rp_stop, all_passes_submitted)

/* CUpti_RangeProfiler_DecodeData_Params */
struct kprof_rp_decode {
	size_t struct_size;
	void *priv;
	struct CUpti_RangeProfiler_Object *obj;
	size_t ranges_dropped;
};

#define KPROF_RP_DECODE_SIZE KPROF_PSIZE(struct kprof_rp_decode, ranges_dropped)

/* CUpti_RangeProfiler_SetConfig_Params */
struct kprof_rp_set_config {
	size_t struct_size;
	void *priv;
	struct CUpti_RangeProfiler_Object *obj;
	size_t config_size;
	const uint8_t *config;
	size_t counter_data_size;
	uint8_t *counter_data;
	unsigned int range;		/* CUpti_ProfilerRange */
	unsigned int replay_mode;	/* CUpti_ProfilerReplayMode */
	size_t max_ranges_per_pass;
	uint16_t num_nesting_levels;
	uint16_t min_nesting_level;
	size_t pass_index;
	uint16_t target_nesting_level;
};

#define KPROF_RP_SET_CONFIG_SIZE KPROF_PSIZE(struct kprof_rp_set_config, target_nesting_level)

/* CUpti_RangeProfiler_GetCounterDataSize_Params */
struct kprof_rp_data_size {
	size_t struct_size;
	void *priv;
	struct CUpti_RangeProfiler_Object *obj;
	const char **metric_names;
	size_t num_metrics;
	size_t max_ranges;
	uint32_t max_range_tree_nodes;
	size_t counter_data_size;
};

#define KPROF_RP_DATA_SIZE_SIZE KPROF_PSIZE(struct kprof_rp_data_size, counter_data_size)

/* CUpti_RangeProfiler_CounterDataImage_Initialize_Params */
struct kprof_rp_data_init {
	size_t struct_size;
	void *priv;
	struct CUpti_RangeProfiler_Object *obj;
	size_t counter_data_size;
	uint8_t *counter_data;
};

#define KPROF_RP_DATA_INIT_SIZE KPROF_PSIZE(struct kprof_rp_data_init, counter_data)

/* CUpti_RangeProfiler_GetCounterDataInfo_Params */
struct kprof_rp_data_info {
	size_t struct_size;
	void *priv;
	const uint8_t *counter_data;
	size_t counter_data_size;
	size_t num_ranges;
};

#define KPROF_RP_DATA_INFO_SIZE KPROF_PSIZE(struct kprof_rp_data_info, num_ranges)

/* The functions (names: cupti<Name>), each taking its params struct. */
typedef kprof_cupti_result_t (*kprof_cuptiProfilerInitialize_fn)(struct kprof_prof_init *);
typedef kprof_cupti_result_t (*kprof_cuptiDeviceGetChipName_fn)(struct kprof_prof_chip *);
typedef kprof_cupti_result_t (*kprof_cuptiProfilerHostInitialize_fn)(struct kprof_prof_host_init *);
typedef kprof_cupti_result_t
(*kprof_cuptiProfilerHostDeinitialize_fn)(struct kprof_prof_host_deinit *);
typedef kprof_cupti_result_t
(*kprof_cuptiProfilerHostConfigAddMetrics_fn)(struct kprof_prof_add_metrics *);
typedef kprof_cupti_result_t
(*kprof_cuptiProfilerHostGetConfigImageSize_fn)(struct kprof_prof_config_size *);
typedef kprof_cupti_result_t
(*kprof_cuptiProfilerHostGetConfigImage_fn)(struct kprof_prof_config *);
typedef kprof_cupti_result_t
(*kprof_cuptiProfilerHostGetNumOfPasses_fn)(struct kprof_prof_passes *);
typedef kprof_cupti_result_t
(*kprof_cuptiProfilerHostEvaluateToGpuValues_fn)(struct kprof_prof_evaluate *);
typedef kprof_cupti_result_t (*kprof_cuptiRangeProfilerEnable_fn)(struct kprof_rp_enable *);
typedef kprof_cupti_result_t (*kprof_cuptiRangeProfilerDisable_fn)(struct kprof_rp_obj *);
typedef kprof_cupti_result_t (*kprof_cuptiRangeProfilerStart_fn)(struct kprof_rp_obj *);
typedef kprof_cupti_result_t (*kprof_cuptiRangeProfilerStop_fn)(struct kprof_rp_stop *);
typedef kprof_cupti_result_t (*kprof_cuptiRangeProfilerDecodeData_fn)(struct kprof_rp_decode *);
typedef kprof_cupti_result_t (*kprof_cuptiRangeProfilerSetConfig_fn)(struct kprof_rp_set_config *);
typedef kprof_cupti_result_t
(*kprof_cuptiRangeProfilerGetCounterDataSize_fn)(struct kprof_rp_data_size *);
typedef kprof_cupti_result_t
(*kprof_cuptiRangeProfilerCounterDataImageInitialize_fn)(struct kprof_rp_data_init *);
typedef kprof_cupti_result_t
(*kprof_cuptiRangeProfilerGetCounterDataInfo_fn)(struct kprof_rp_data_info *);

#endif /* KPROF_CUPTI_PROF_H */
