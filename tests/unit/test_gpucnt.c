// SPDX-License-Identifier: GPL-2.0
/*
 * Per-kernel NVIDIA counters (kprof_gpucnt.h, kprof_gpucnt_out.h): the
 * --counters list, the join of METRICS values to kernels in either
 * order, the counter value encoding, the summary / params / problem
 * lines; and a report of a capture --counters the real agent made on an
 * H100 (tests/nvidia/data/counters/): every kernel's metric rows in
 * counters.csv under its ops.csv GLOBAL CALL COUNT, with the recorded
 * values, and the refused metric named.
 */
#include "kt.h"

#include <errno.h>
#include <limits.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include "kprof_array_size.h"
#include "kprof_csvread.h"
#include "kprof_cupti_prof.h"
#include "kprof_gpucnt.h"
#include "kprof_gpucnt_out.h"
#include "kprof_report.h"

static char names[KPROF_GPU_MAX_METRICS][KPROF_GPUCNT_NAME_LEN];

static int parse(const char *list, struct kprof_err *err)
{
	memset(err, 0, sizeof(*err));
	return kprof_gpucnt_parse(list, names, KPROF_GPU_MAX_METRICS, err);
}

static void test_parse(void)
{
	struct kprof_err err;
	char big[4096] = "";

	KT_EQ_U64(parse("sm__cycles_elapsed.max", &err), 1);
	KT_CHECK(!strcmp(names[0], "sm__cycles_elapsed.max"), "%s", names[0]);
	KT_EQ_U64(parse("sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum", &err),
		  2);
	KT_CHECK(!strcmp(names[0], "sm__throughput.avg.pct_of_peak_sustained_elapsed") &&
		 !strcmp(names[1], "dram__bytes.sum"), "%s %s", names[0], names[1]);
	KT_CHECK(parse("", &err) < 0 && strstr(err.msg, "no metric"), "%s", err.msg);
	KT_CHECK(parse("a,,b", &err) < 0 && strstr(err.msg, "empty metric"), "%s", err.msg);
	KT_CHECK(parse("a,", &err) < 0 && strstr(err.msg, "empty metric"), "%s", err.msg);
	KT_CHECK(parse("dram__bytes.sum;rm", &err) < 0 && strstr(err.msg, "not a CUPTI metric"),
		 "%s", err.msg);
	KT_CHECK(parse("a.b,a.b", &err) < 0 && strstr(err.msg, "named twice"), "%s", err.msg);
	memset(big, 'x', KPROF_GPUCNT_NAME_LEN);
	KT_CHECK(parse(big, &err) < 0 && strstr(err.msg, "longer than"), "%s", err.msg);
	big[KPROF_GPUCNT_NAME_LEN - 1] = '\0';
	KT_EQ_U64(parse(big, &err), 1);
	big[0] = '\0';
	for (int i = 0; i <= KPROF_GPU_MAX_METRICS; i++)
		snprintf(big + strlen(big), sizeof(big) - strlen(big), "%sm%d", i ? "," : "", i);
	KT_CHECK(parse(big, &err) < 0 && strstr(err.msg, "more than"), "%s", err.msg);
	*strrchr(big, ',') = '\0';
	KT_EQ_U64(parse(big, &err), KPROF_GPU_MAX_METRICS);
}

static void test_join(void)
{
	struct kprof_gpucnt_join j;
	double v[3] = { 1203653.0, NAN, 97.25 }, out[KPROF_GPU_MAX_METRICS];
	uint32_t mask = 0;

	KT_CHECK(!kprof_gpucnt_join_init(&j), "init");
	/* values first (the agent decodes at the launch's exit), kernel later */
	KT_EQ_U64(kprof_gpucnt_join_metrics(&j, 7, v, 3, &mask, out), 0);
	KT_EQ_U64(kprof_gpucnt_join_kernel(&j, 7, out), 1U << 0 | 1U << 2);
	KT_CHECK(out[0] == 1203653.0 && out[2] == 97.25, "%g %g", out[0], out[2]);
	/* the slot is free again: a second kernel of 7 gets nothing */
	KT_EQ_U64(kprof_gpucnt_join_kernel(&j, 7, out), 0);
	/* kernel first, values later: handed back to emit on their own */
	KT_EQ_U64(kprof_gpucnt_join_kernel(&j, 9, out), 0);
	KT_EQ_U64(kprof_gpucnt_join_metrics(&j, 9, v, 3, &mask, out), 1);
	KT_EQ_U64(mask, 1U << 0 | 1U << 2);
	KT_CHECK(out[2] == 97.25, "%g", out[2]);
	KT_EQ_U64(j.joined, 2);
	KT_EQ_U64(j.values, 4);
	KT_EQ_U64(j.unjoined, 0);
	/* values a later correlation overwrites in the ring, and values no
	 * kernel came for: counted
	 */
	kprof_gpucnt_join_metrics(&j, 100, v, 3, &mask, out);
	kprof_gpucnt_join_metrics(&j, 100 + KPROF_GPUCNT_RING, v, 3, &mask, out);
	KT_EQ_U64(j.unjoined, 1);
	kprof_gpucnt_join_end(&j);
	KT_EQ_U64(j.unjoined, 2);
	kprof_gpucnt_join_free(&j);
}

static void test_values(void)
{
	double v[] = { 0.0, 0.038729579668328747, 3.0, 97.25, 1e300 };

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		KT_CHECK(kprof_gpucnt_from_u64(kprof_gpucnt_to_u64(v[i])) == v[i], "%g", v[i]);
		/* the aggregation's min/max compare the bits: same order */
		if (i)
			KT_CHECK(kprof_gpucnt_to_u64(v[i]) > kprof_gpucnt_to_u64(v[i - 1]),
				 "%g", v[i]);
	}
}

static void test_lines(void)
{
	struct kprof_gpu_stats g;
	struct kprof_gpucnt_join j = { 0 };
	struct kprof_gpucnt_view v = { 0 };
	char buf[4096], line[512];
	json_object *o;
	FILE *f;

	memset(&g, 0, sizeof(g));
	v.g = &g;
	v.join = &j;
	/* no --counters: nothing said */
	buf[0] = '\0';
	f = fmemopen(buf, sizeof(buf), "w");
	kprof_gpucnt_summary(f, &v);
	fclose(f);
	KT_EQ_U64(strlen(buf), 0);
	KT_EQ_U64(kprof_gpucnt_problem(&v, line, sizeof(line)), 0);

	v.nmetrics = 2;
	v.names[0] = "sm__cycles_elapsed.max";
	v.names[1] = "kprof__no_such_metric.sum";
	g.cnt.set_up = 1;
	g.cnt.replay = KPROF_GREPLAY_KERNEL;
	g.cnt.passes = 8;
	g.cnt.records = 4;
	g.cnt.cost_ns = 2000000;
	g.cnt.ended = 1;
	g.cnt.nrefused = 1;
	g.cnt.refused[0] = (struct kprof_gpu_refused){ 1, 1 };
	j.joined = 4;
	f = fmemopen(buf, sizeof(buf), "w");
	kprof_gpucnt_summary(f, &v);
	fclose(f);
	KT_CHECK(strstr(buf, "replay: kernel: CUPTI runs each kernel 8 time(s)"), "%s", buf);
	KT_CHECK(strstr(buf, "kernels with values 4, joined to ops 4"), "%s", buf);
	KT_CHECK(strstr(buf, "2.000 ms, 500.0 us per kernel"), "%s", buf);
	KT_CHECK(strstr(buf, "metric kprof__no_such_metric.sum refused (CUPTI error 1)"),
		 "%s", buf);
	KT_EQ_U64(kprof_gpucnt_problem(&v, line, sizeof(line)), 1);
	KT_CHECK(strstr(line, "kprof__no_such_metric.sum refused") &&
		 strstr(line, "ncu --query-metrics"), "%s", line);
	o = kprof_gpucnt_json(&v);
	KT_CHECK(!strcmp(json_object_get_string(json_object_object_get(o, "replay")), "kernel"),
		 "%s", json_object_to_json_string(o));
	KT_EQ_U64(json_object_get_int64(json_object_object_get(o, "passes_per_kernel")), 8);
	KT_EQ_U64(json_object_array_length(json_object_object_get(o, "refused")), 1);
	json_object_put(o);

	/* profiling restricted to admins: the privilege hint */
	g.cnt.nrefused = 0;
	g.cnt.set_up = 0;
	g.nerrors = 1;
	g.errors[0].code = KPROF_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	snprintf(g.errors[0].text, sizeof(g.errors[0].text), "counters: cuptiRangeProfilerEnable");
	KT_EQ_U64(kprof_gpucnt_problem(&v, line, sizeof(line)), 1);
	KT_CHECK(strstr(line, "cuptiRangeProfilerEnable failed") &&
		 strstr(line, "ERR_NVGPUCTRPERM") && strstr(line, "as root"), "%s", line);
	f = fmemopen(buf, sizeof(buf), "w");
	kprof_gpucnt_summary(f, &v);
	fclose(f);
	KT_CHECK(strstr(buf, "replay: none") && strstr(buf, "NVreg_RestrictProfilingToAdminUsers"),
		 "%s", buf);
}

/* ---- a report of the H100 recording ---- */

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *cell(const struct kprof_csv_table *t, size_t r, const char *col)
{
	int c = kprof_csv_col(t, col);

	return c < 0 ? "" : t->rows[r][c];
}

static void test_h100_capture(void)
{
	char tmp[] = "/tmp/kprof-gpucnt.XXXXXX", cmd[PATH_MAX * 2], path[PATH_MAX];
	static const char *const m[] = { "sm__cycles_elapsed.max",
		"sm__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes.sum" };
	struct kprof_report_result res;
	struct kprof_err err = { 0 };
	struct kprof_csv_table ops = { 0 }, cnt = { 0 };
	int kernels = 0, spins = 0;
	char sum[8192];
	FILE *f;
	size_t n;

	KT_CHECK(mkdtemp(tmp), "mkdtemp");
	snprintf(cmd, sizeof(cmd), "cp -r %s/tests/nvidia/data/counters/raw %s/", KPROF_SRC_DIR,
		 tmp);
	KT_EQ_U64(run(cmd), 0);
	memset(&res, 0, sizeof(res));
	KT_EQ_U64(kprof_report_build(tmp, NULL, NULL, &res, &err), 0);
	KT_CHECK(strstr(res.gpu_counters_problem, "kprof__no_such_metric.sum refused"), "'%s'",
		 res.gpu_counters_problem);
	snprintf(path, sizeof(path), "%s/ops.csv", tmp);
	KT_CHECK(!kprof_csv_load(path, &ops, &err), "%s", err.msg);
	snprintf(path, sizeof(path), "%s/counters.csv", tmp);
	KT_CHECK(!kprof_csv_load(path, &cnt, &err), "%s", err.msg);
	/* every kernel op (not a [memcpy] / [memset]) has each metric's row */
	for (size_t r = 0; r < ops.nrows; r++) {
		const char *seq = cell(&ops, r, "GLOBAL CALL COUNT");
		const char *code = cell(&ops, r, "OP CODE");
		double cycles = -1;
		int found = 0;

		if (code[0] == '[')
			continue;
		kernels++;
		for (size_t k = 0; k < cnt.nrows; k++) {
			const char *c = cell(&cnt, k, "COUNTER");

			if (strcmp(cell(&cnt, k, "GLOBAL CALL COUNT"), seq))
				continue;
			KT_CHECK(strcmp(c, "kprof__no_such_metric.sum"),
				 "refused metric has a row");
			for (int i = 0; i < 3; i++) {
				if (strcmp(c, m[i]))
					continue;
				found |= 1 << i;
				KT_CHECK(!strcmp(cell(&cnt, k, "MIN"), cell(&cnt, k, "SUM")) &&
					 !strcmp(cell(&cnt, k, "CORES"), "1"), "op %s %s", seq, c);
				if (!i)
					cycles = strtod(cell(&cnt, k, "SUM"), NULL);
			}
		}
		KT_EQ_U64(found, 7);
		/* recorded: spin.cu's kernels spun 1.2M cycles at 1200 MHz */
		if (!strncmp(code, "kprof_spin", 10)) {
			spins++;
			KT_CHECK(cycles >= 1200000 && cycles < 1200000 * 1.005, "%s: %g", seq,
				 cycles);
		} else {
			KT_CHECK(cycles > 0 && cycles < 20000, "%s: %g", seq, cycles);
		}
	}
	KT_EQ_U64(kernels, 8);
	KT_EQ_U64(spins, 2);
	kprof_csv_free(&ops);
	kprof_csv_free(&cnt);
	snprintf(path, sizeof(path), "%s/summary.txt", tmp);
	f = fopen(path, "r");
	KT_CHECK(f, "summary.txt");
	n = f ? fread(sum, 1, sizeof(sum) - 1, f) : 0;
	sum[n] = '\0';
	if (f)
		fclose(f);
	KT_CHECK(strstr(sum, "replay: kernel: CUPTI runs each kernel 8 time(s)"), "%s", sum);
	KT_CHECK(strstr(sum, "kernels with values 8, joined to ops 8, values with no kernel 0"),
		 "%s", sum);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	run(cmd);
}

int main(void)
{
	test_parse();
	test_join();
	test_values();
	test_lines();
	test_h100_capture();
	return kt_done("test_gpucnt");
}
