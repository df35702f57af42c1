// SPDX-License-Identifier: GPL-2.0
/*
 * Counters in summary.txt, params.json and the capture's messages
 * (kprof_gpucnt_out.h).
 */
#include "kprof_gpucnt_out.h"
#include "kprof_cupti_prof.h"

#include <inttypes.h>
#include <string.h>

#define CNT_PREFIX	"counters:"

/* what to do, by cause: refused by the driver, an unknown metric */
static const char *const hint[] = {
	"the driver lets only admin users read GPU counters (ERR_NVGPUCTRPERM): capture as root, or load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0",
	"CUPTI does not know this metric on this GPU: check its name (ncu --query-metrics lists them)",
};

const char *kprof_gpucnt_hint(int32_t code, int refused_metric)
{
	if (code == KPROF_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
		return hint[0];
	if (refused_metric)
		return hint[1];
	if (code == KPROF_CUPTI_ERROR_NOT_SUPPORTED)
		return "this GPU or driver does not support CUPTI's range profiler";
	return "see CUPTI's error code";
}

static const char *name_of(const struct kprof_gpucnt_view *v, uint32_t i)
{
	return i < v->nmetrics && v->names[i] ? v->names[i] : "?";
}

static int cnt_error(const struct kprof_gpu_stats *g, uint32_t i)
{
	return !strncmp(g->errors[i].text, CNT_PREFIX, strlen(CNT_PREFIX));
}

void kprof_gpucnt_summary(FILE *f, const struct kprof_gpucnt_view *v)
{
	const struct kprof_gpu_stats *g = v->g;
	uint64_t prof = g->cnt.records;

	if (!v->nmetrics)
		return;
	fprintf(f,
		"  counters (--counters, CUPTI range profiler, a range per kernel): %u metrics\n",
		v->nmetrics);
	if (g->cnt.set_up)
		fprintf(f,
			"    replay: %s: CUPTI runs each kernel %" PRIu64
			" time(s) (passes its metrics need), saving and restoring its memory; kernels run one at a time\n",
			kprof_gpucnt_replay_name(g->cnt.replay), g->cnt.passes);
	else
		fprintf(f,
			"    replay: none: the profiler was never set up  <-- no counter values\n");
	fprintf(f, "    kernels with values %" PRIu64 ", joined to ops %" PRIu64
		", values with no kernel %" PRIu64 "\n", prof,
		v->join ? v->join->joined : 0, v->join ? v->join->unjoined : 0);
	fprintf(f, "    kernel launches not profiled %" PRIu64
		", ranges dropped or unmatched %" PRIu64 "%s\n",
		g->cnt.not_profiled, g->cnt.bad_ranges,
		g->cnt.not_profiled || g->cnt.bad_ranges ?
		"  <-- some kernels have no counters" : "");
	if (!g->cnt.ended)
		fprintf(f,
			"    the agent's account at exit is missing (the process did not exit normally)\n");
	fprintf(f, "    agent time in the profiler (stop, decode, evaluate, restart): %.3f ms",
		(double)g->cnt.cost_ns / 1e6);
	if (prof)
		fprintf(f, ", %.1f us per kernel", (double)g->cnt.cost_ns / 1e3 / (double)prof);
	fprintf(f, "; the replay itself is in the launch calls' HOST DURATION (ops.csv)\n");
	for (uint32_t i = 0; i < g->cnt.nrefused; i++)
		fprintf(f, "    metric %s refused (CUPTI error %d): %s  <-- no values\n",
			name_of(v, g->cnt.refused[i].index), g->cnt.refused[i].code,
			kprof_gpucnt_hint(g->cnt.refused[i].code, 1));
	for (uint32_t i = 0; i < g->nerrors && i < KPROF_GPU_MAX_ERRORS; i++)
		if (cnt_error(g, i))
			fprintf(f, "    %s failed (CUPTI error %d): %s\n", g->errors[i].text,
				g->errors[i].code, kprof_gpucnt_hint(g->errors[i].code, 0));
	if (g->cnt.bad_records)
		fprintf(f, "    METRICS records that do not hold their values: %" PRIu64 "\n",
			g->cnt.bad_records);
}

#define ADD(o, k, v) json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))

json_object *kprof_gpucnt_json(const struct kprof_gpucnt_view *v)
{
	const struct kprof_gpu_stats *g = v->g;
	json_object *o = json_object_new_object(), *a = json_object_new_array(), *r;

	for (uint32_t i = 0; i < v->nmetrics; i++)
		json_object_array_add(a, json_object_new_string(name_of(v, i)));
	json_object_object_add(o, "metrics", a);
	json_object_object_add(o, "replay",
			       json_object_new_string(g->cnt.set_up ?
						      kprof_gpucnt_replay_name(g->cnt.replay) :
						      "none"));
	ADD(o, "passes_per_kernel", g->cnt.set_up ? g->cnt.passes : 0);
	ADD(o, "kernels_with_values", g->cnt.records);
	ADD(o, "joined", v->join ? v->join->joined : 0);
	ADD(o, "values_without_kernel", v->join ? v->join->unjoined : 0);
	ADD(o, "launches_not_profiled", g->cnt.not_profiled);
	ADD(o, "ranges_dropped_or_unmatched", g->cnt.bad_ranges);
	ADD(o, "agent_profiler_ns", g->cnt.cost_ns);
	json_object_object_add(o, "agent_account", json_object_new_boolean(g->cnt.ended));
	r = json_object_new_array();
	for (uint32_t i = 0; i < g->cnt.nrefused; i++) {
		json_object *x = json_object_new_object();
		const char *h = kprof_gpucnt_hint(g->cnt.refused[i].code, 1);

		json_object_object_add(x, "metric",
				       json_object_new_string(name_of(v, g->cnt.refused[i].index)));
		ADD(x, "cupti_error", g->cnt.refused[i].code);
		json_object_object_add(x, "hint",
				       json_object_new_string(h));
		json_object_array_add(r, x);
	}
	json_object_object_add(o, "refused", r);
	return o;
}

int kprof_gpucnt_problem(const struct kprof_gpucnt_view *v, char *buf, size_t len)
{
	const struct kprof_gpu_stats *g = v->g;

	if (!v->nmetrics)
		return 0;
	/* a failed call first: it cost every value after it */
	for (uint32_t i = 0; i < g->nerrors && i < KPROF_GPU_MAX_ERRORS; i++)
		if (cnt_error(g, i)) {
			snprintf(buf, len, "--counters: %s failed (CUPTI error %d): %s",
				 g->errors[i].text + strlen(CNT_PREFIX) + 1, g->errors[i].code,
				 kprof_gpucnt_hint(g->errors[i].code, 0));
			return 1;
		}
	if (g->cnt.nrefused) {
		snprintf(buf, len, "--counters: metric %s refused (CUPTI error %d): %s",
			 name_of(v, g->cnt.refused[0].index), g->cnt.refused[0].code,
			 kprof_gpucnt_hint(g->cnt.refused[0].code, 1));
		return 1;
	}
	if (g->cnt.not_profiled || g->cnt.bad_ranges) {
		snprintf(buf, len,
			 "--counters: %" PRIu64 " kernel launches not profiled, %" PRIu64
			 " ranges dropped or unmatched: see summary.txt",
			 g->cnt.not_profiled, g->cnt.bad_ranges);
		return 1;
	}
	return 0;
}
