/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a report says about an NVIDIA capture's counters (capture
 * --counters): the summary.txt lines, params.json's "gpu"."counters",
 * and the one-line problem kprofctl capture prints.
 */
#ifndef KPROF_GPUCNT_OUT_H
#define KPROF_GPUCNT_OUT_H

#include <stdio.h>
#include <json-c/json.h>

#include "kprof_gpu.h"
#include "kprof_gpucnt.h"

struct kprof_gpucnt_view {
	uint32_t nmetrics;		/* 0: no --counters */
	const char *names[KPROF_GPU_MAX_METRICS];	/* NULL: unknown */
	const struct kprof_gpu_stats *g;
	const struct kprof_gpucnt_join *join;	/* the device view's */
};

/* What to do about CUPTI's code for a counters call (or a refused metric). */
const char *kprof_gpucnt_hint(int32_t code, int refused_metric);
void kprof_gpucnt_summary(FILE *f, const struct kprof_gpucnt_view *v);
json_object *kprof_gpucnt_json(const struct kprof_gpucnt_view *v);
/* What cost counters, as one line for the capture's stderr: a failed
 * profiler call, else a refused metric, else unprofiled kernels; 0 when
 * nothing did.
 */
int kprof_gpucnt_problem(const struct kprof_gpucnt_view *v, char *buf, size_t len);

#endif /* KPROF_GPUCNT_OUT_H */
