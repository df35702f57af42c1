// SPDX-License-Identifier: GPL-2.0
/*
 * Peaks file parser; and data/peaks/kprof_sim.json against the sim's cost
 * model constants in kmod/sim (the file is derived from them).
 */
#include "kt.h"

#include <errno.h>

#include "kprof_peaks.h"

static struct kprof_err err;

static int parse(const char *text, struct kprof_peaks *p)
{
	memset(&err, 0, sizeof(err));
	return kprof_peaks_parse(text, p, &err);
}

static void test_parse(void)
{
	struct kprof_peaks p;

	KT_CHECK(parse("{\"device\":\"x\",\"peak_gflops\":100,\"peak_gb_per_s\":10.5}", &p) == 0,
		 "%s", err.msg);
	KT_STR(p.device, "x");
	KT_NEAR(p.flops_per_s, 100e9, 1e-3);
	KT_NEAR(p.bytes_per_s, 10.5e9, 1e-3);
	KT_CHECK(!p.per_core, "device scope by default");
	KT_NEAR(p.latency_frac, 0.2, 1e-12);
	KT_STR(p.flops_counter, "flops");
	KT_STR(p.bytes_counters[0], "bytes_read");
	KT_STR(p.bytes_counters[1], "bytes_written");
	KT_NEAR(kprof_peaks_flops(&p, 8, 500), 100e9, 1e-3);	/* no clock_mhz: fixed */

	KT_CHECK(parse("{\"scope\":\"core\",\"clock_mhz\":1000,\"peak_gflops\":2,\n"
		       "\"peak_gb_per_s\":1,\"bytes_counters\":[\"rd\"],\n"
		       "\"flops_counter\":\"fl\",\"latency_threshold\":0.1}",
		       &p) == 0, "%s", err.msg);
	KT_CHECK(p.per_core, "core scope");
	KT_STR(p.bytes_counters[0], "rd");
	KT_STR(p.bytes_counters[1], "");
	KT_STR(p.flops_counter, "fl");
	KT_NEAR(p.latency_frac, 0.1, 1e-12);
	KT_NEAR(kprof_peaks_flops(&p, 4, 500), 4e9, 1e-3);	/* 4 cores at half clock */
	KT_NEAR(kprof_peaks_flops(&p, 4, 0), 8e9, 1e-3);	/* clock unknown */
	KT_NEAR(kprof_peaks_bytes(&p, 4), 4e9, 1e-3);

	KT_CHECK(parse("{\"peak_gflops\":1}", &p) == -EINVAL, "missing GB/s");
	KT_CHECK(strstr(err.msg, "peak_gb_per_s"), "%s", err.msg);
	KT_CHECK(parse("{\"peak_gflops\":0,\"peak_gb_per_s\":1}", &p) == -EINVAL, "zero peak");
	KT_CHECK(parse("{\"peak_gflops\":1,\"peak_gb_per_s\":1,\"peak_gflop\":3}", &p) == -EINVAL,
		 "unknown key");
	KT_CHECK(strstr(err.msg, "peak_gflop\""), "%s", err.msg);
	KT_CHECK(parse("{\"peak_gflops\":\"1\",\"peak_gb_per_s\":1}", &p) == -EINVAL, "string");
	KT_CHECK(parse("{\"peak_gflops\":1,\"peak_gb_per_s\":1,\"scope\":\"chip\"}", &p) == -EINVAL,
		 "bad scope");
	KT_CHECK(parse("{\"peak_gflops\":1,\"peak_gb_per_s\":-1}", &p) == -EINVAL, "negative");
	KT_CHECK(parse("{\"peak_gflops\":1,\"peak_gb_per_s\":1,\"bytes_counters\":[]}",
		       &p) == -EINVAL, "empty counters");
	KT_CHECK(parse("{\"peak_gflops\":1,\"peak_gb_per_s\":1,\"latency_threshold\":1}",
		       &p) == -EINVAL, "threshold 1");
	/* finite in GFLOP/s, infinite in FLOP/s: the roofline would divide by it */
	KT_CHECK(parse("{\"peak_gflops\":1e300,\"peak_gb_per_s\":1}", &p) == -EINVAL,
		 "too large");
	KT_CHECK(strstr(err.msg, "too large"), "%s", err.msg);
	KT_CHECK(parse("[1,2]", &p) == -EINVAL, "not an object");
	KT_CHECK(parse("{\"peak_gflops\":1,", &p) == -EINVAL, "truncated");
}

/* the value of "#define NAME value" in a source file, or -1 */
static double define_in(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	char line[256], key[96];
	double v = -1;

	snprintf(key, sizeof(key), "#define %s", name);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) &&
		    (line[strlen(key)] == ' ' || line[strlen(key)] == '\t'))
			v = strtod(line + strlen(key), NULL);
	if (f)
		fclose(f);
	return v;
}

static void test_sim_file(void)
{
	char root[512], path[640], src[640];
	struct kprof_peaks p;
	double fpc, bpus, mhz;
	char *s;

	/* the repository root from this file's path (it is in tests/unit/) */
	snprintf(root, sizeof(root), "%s", __FILE__);
	s = strstr(root, "/tests/unit/");
	KT_CHECK(s, "built from the tree: %s", __FILE__);
	if (!s)
		return;
	*s = '\0';
	snprintf(path, sizeof(path), "%s/data/peaks/kprof_sim.json", root);
	memset(&err, 0, sizeof(err));
	KT_CHECK(kprof_peaks_load(path, &p, &err) == 0, "%s", err.msg);
	snprintf(src, sizeof(src), "%s/kmod/sim/kprof_sim_exec.c", root);
	fpc = define_in(src, "KPROF_SIM_FLOPS_PER_CYCLE");
	bpus = define_in(src, "KPROF_SIM_BYTES_PER_US");
	snprintf(src, sizeof(src), "%s/kmod/sim/kprof_sim_clock.c", root);
	mhz = define_in(src, "KPROF_SIM_MHZ_BASE");
	KT_CHECK(fpc > 0 && bpus > 0 && mhz > 0, "sim constants found (%g %g %g)", fpc, bpus, mhz);
	KT_CHECK(p.per_core, "the sim's model is per core");
	KT_NEAR(p.clock_mhz, mhz, 1e-9);
	KT_NEAR(p.flops_per_s, fpc * mhz * 1e6, 1);
	KT_NEAR(p.bytes_per_s, bpus * 1e6, 1);

	memset(&err, 0, sizeof(err));
	KT_CHECK(kprof_peaks_load("/nonexistent/peaks.json", &p, &err) == -ENOENT, "missing");
	KT_CHECK(strstr(err.msg, "/nonexistent/peaks.json"), "%s", err.msg);
}

int main(void)
{
	test_parse();
	test_sim_file();
	return kt_done("test_peaks");
}
