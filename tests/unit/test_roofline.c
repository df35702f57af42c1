// SPDX-License-Identifier: GPL-2.0
/* Roofline labels, efficiency, gain ranking and report.md on known inputs. */
#include "kt.h"

#include <unistd.h>

#include "kprof_roofline.h"

/* 100 GFLOP/s at 1000 MHz and 10 GB/s per core: ridge 10 FLOP/B */
static const char *peaks_json = "{\"device\":\"t\",\"scope\":\"core\",\"clock_mhz\":1000,\n"
	"\"peak_gflops\":100,\"peak_gb_per_s\":10}";

static void test_eval(const struct kprof_peaks *p)
{
	struct kprof_roof_point pt;

	/* AI 200 at 200 GFLOP/s on 2 cores: on the compute roof */
	KT_EQ_U64(kprof_roofline_eval(p, 2e6, 1e4, 1e4, 2, 1000, &pt), KPROF_BOUND_COMPUTE);
	KT_NEAR(pt.intensity, 200, 1e-9);
	KT_NEAR(pt.ridge, 10, 1e-9);
	KT_NEAR(pt.achieved_flops, 2e11, 1);
	KT_NEAR(pt.efficiency, 1, 1e-12);
	KT_NEAR(pt.flops_frac, 1, 1e-12);
	/* same op at half clock: peak halves, ridge 5 */
	kprof_roofline_eval(p, 2e6, 1e4, 2e4, 2, 500, &pt);
	KT_NEAR(pt.peak_flops, 1e11, 1);
	KT_NEAR(pt.ridge, 5, 1e-9);
	KT_NEAR(pt.efficiency, 1, 1e-12);
	/* AI 0.01 at 10 of 20 GB/s: memory-bound at 50% */
	KT_EQ_U64(kprof_roofline_eval(p, 1e3, 1e5, 1e4, 2, 1000, &pt), KPROF_BOUND_MEMORY);
	KT_NEAR(pt.bytes_frac, 0.5, 1e-12);
	KT_NEAR(pt.attainable_flops, 2e8, 1e-3);
	KT_NEAR(pt.efficiency, 0.5, 1e-12);
	/* 1 GFLOP/s and 0.1 GB/s: below 20% of both roofs */
	KT_EQ_U64(kprof_roofline_eval(p, 1e4, 1e3, 1e4, 2, 1000, &pt), KPROF_BOUND_LATENCY);
	KT_NEAR(pt.efficiency, 0.005, 1e-12);
	/* just above the threshold on bandwidth: memory, not latency */
	KT_EQ_U64(kprof_roofline_eval(p, 1e3, 2.1e4, 1e4, 1, 1000, &pt), KPROF_BOUND_MEMORY);
	/* no bytes: infinite intensity, compute side */
	KT_EQ_U64(kprof_roofline_eval(p, 1e6, 0, 1e4, 1, 0, &pt), KPROF_BOUND_COMPUTE);
	KT_CHECK(isinf(pt.intensity), "AI inf");
	/* no time or nothing counted: unclassified */
	KT_EQ_U64(kprof_roofline_eval(p, 1e6, 1e3, 0, 1, 0, &pt), KPROF_BOUND_NONE);
	KT_EQ_U64(kprof_roofline_eval(p, 0, 0, 1e4, 1, 0, &pt), KPROF_BOUND_NONE);
}

static struct kprof_op_row op(uint64_t seq, const char *code, uint64_t fl, uint64_t rd,
			      uint64_t wr)
{
	struct kprof_op_row r;

	memset(&r, 0, sizeof(r));
	r.seq = seq;
	snprintf(r.op_code, sizeof(r.op_code), "%s", code);
	r.core_count = 2;
	r.clock_mhz = 1000;
	r.fw_duration_ns = 1e4;
	r.kernel_duration_ns = 9e3;
	r.counter_mask = 0x7;	/* flops at 2, bytes at 0 and 1: order from the header */
	r.counter_sum[2] = fl;
	r.counter_sum[0] = rd;
	r.counter_sum[1] = wr;
	return r;
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static char *slurp(const char *path)
{
	static char buf[16384];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* report.md of r to path (no bubbles) */
static int report_md(const struct kprof_roofline *r, const char *label, const char *note,
		     const char *path)
{
	FILE *f = fopen(path, "w");
	int ret = f ? kprof_roofline_report_md(r, NULL, label, note, f) : -1;

	if (f && fclose(f))
		ret = -1;
	return ret;
}

static void test_kinds(const struct kprof_peaks *p)
{
	/* roofline.csv's rows for op 10 (add) and op 21 (nocount) */
	static const char *const rows[] = {
		"\n10,add,2,1000,10000,1000,100000,0.01,0.1000,10.0000,200.0000,20.0000,10,0.2000,0.05,50.00,50.00,memory-bound\n",
		"\n21,nocount,2,1000,10000,,,,,,,,,,,,,unclassified\n",
	};
	struct kprof_counter_desc cd[3];
	struct kprof_roofline *r;
	const struct kprof_roof_kind *k;
	char *dir = kt_tmpdir(), csv[128], md[128];
	FILE *cf;
	struct kprof_op_row row;
	size_t n;
	double share;
	char *text;

	memset(cd, 0, sizeof(cd));
	snprintf(cd[0].name, sizeof(cd[0].name), "bytes_read");
	snprintf(cd[1].name, sizeof(cd[1].name), "bytes_written");
	snprintf(cd[2].name, sizeof(cd[2].name), "flops");
	snprintf(csv, sizeof(csv), "%s/roofline.csv", dir);
	snprintf(md, sizeof(md), "%s/report.md", dir);
	cf = fopen(csv, "w");
	r = kprof_roofline_new(p, cd, 3, cf, NULL);
	KT_CHECK(r && kprof_roofline_has_counters(r), "counters found");
	for (int i = 0; i < 3; i++) {
		row = op(i + 1, "gemm", 2000000, 7500, 2500);	/* compute, eff 1 */
		kprof_roofline_op(r, &row);
	}
	for (int i = 0; i < 2; i++) {
		row = op(10 + i, "add", 1000, 75000, 25000);	/* memory, eff 0.5 */
		kprof_roofline_op(r, &row);
	}
	row = op(20, "tiny", 10000, 1000, 0);			/* latency, eff 0.005 */
	kprof_roofline_op(r, &row);
	row = op(21, "nocount", 1, 1, 1);
	row.counter_mask = 0;
	kprof_roofline_op(r, &row);
	KT_CHECK(kprof_roofline_finish(r, NULL) == 0, "finish");
	fclose(cf);
	k = kprof_roofline_kinds(r, &n);
	KT_EQ_U64(n, 4);
	KT_STR(k[0].op_code, "add");
	KT_NEAR(k[0].gain_ns, 1e4, 1e-6);
	KT_EQ_U64(k[0].bound, KPROF_BOUND_MEMORY);
	KT_STR(k[1].op_code, "tiny");
	KT_NEAR(k[1].gain_ns, 9950, 1e-6);
	KT_EQ_U64(k[1].bound, KPROF_BOUND_LATENCY);
	KT_STR(k[2].op_code, "gemm");
	KT_NEAR(k[2].gain_ns, 0, 1e-6);
	KT_EQ_U64(k[2].bound, KPROF_BOUND_COMPUTE);
	KT_STR(k[3].op_code, "nocount");
	KT_EQ_U64(k[3].bound, KPROF_BOUND_NONE);
	KT_EQ_U64(k[3].ops_classified, 0);
	KT_EQ_U64(kprof_roofline_verdict(r, &share), KPROF_BOUND_COMPUTE);
	KT_NEAR(share, 0.5, 1e-12);
	KT_EQ_U64(count_lines(csv), 8);
	text = slurp(csv);
	KT_CHECK(strstr(text, rows[0]), "add row in:\n%s", text);
	KT_CHECK(strstr(text, rows[1]), "unclassified row");
	KT_CHECK(report_md(r, "test device", NULL, md) == 0, "report.md");
	text = slurp(md);
	KT_CHECK(strstr(text, "**Mostly compute-bound**: 50.0%"), "verdict in:\n%s", text);
	KT_CHECK(strstr(text, "1. **add** (memory-bound)"), "top 1");
	KT_CHECK(strstr(text, "2. **tiny** (latency-bound)"), "top 2");
	KT_CHECK(!strstr(text, "3. **"), "gemm has no gain: not an opportunity");
	kprof_roofline_free(r);
	KT_CHECK(report_md(NULL, "x", "no peaks file here", md) == 0,
		 "report.md without roofline");
	text = slurp(md);
	KT_CHECK(strstr(text, "**No roofline**: no peaks file here."), "note in:\n%s", text);
	unlink(csv);
	unlink(md);
	rmdir(dir);

	/* a capture without the counters: unclassified verdict */
	r = kprof_roofline_new(p, cd, 1, NULL, NULL);
	KT_CHECK(!kprof_roofline_has_counters(r), "no flops counter");
	row = op(1, "gemm", 1, 1, 1);
	kprof_roofline_op(r, &row);
	kprof_roofline_finish(r, NULL);
	KT_EQ_U64(kprof_roofline_verdict(r, NULL), KPROF_BOUND_NONE);
	kprof_roofline_free(r);
}

/*
 * More kinds than kept (MAX_KINDS, 1024): each of the first kept with all
 * its ops, whatever its place; the rest pooled as "(other)", listed too
 */
static void test_many_kinds(const struct kprof_peaks *p)
{
	struct kprof_counter_desc cd[3];
	struct kprof_roofline *r;
	const struct kprof_roof_kind *k;
	struct kprof_op_row row;
	size_t n;
	uint64_t ops = 0;
	int other = -1;

	memset(cd, 0, sizeof(cd));
	snprintf(cd[0].name, sizeof(cd[0].name), "bytes_read");
	snprintf(cd[1].name, sizeof(cd[1].name), "bytes_written");
	snprintf(cd[2].name, sizeof(cd[2].name), "flops");
	r = kprof_roofline_new(p, cd, 3, NULL, NULL);
	KT_CHECK(r, "roofline");
	if (!r)
		return;
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 1200; i++) {
			char code[48];

			snprintf(code, sizeof(code), "kernel_%d", i);
			row = op(1 + round * 1200 + i, code, 1000, 75000, 25000);
			kprof_roofline_op(r, &row);
		}
	KT_CHECK(kprof_roofline_finish(r, NULL) == 0, "finish");
	k = kprof_roofline_kinds(r, &n);
	KT_EQ_U64(n, 1025);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(k[i].op_code, "(other)"))
			other = (int)i;
		else
			ops += k[i].ops == 2;
	}
	KT_EQ_U64(ops, 1024);
	KT_CHECK(other >= 0 && k[other].ops == 2 * 176, "\"(other)\" has the other kinds' ops");
	kprof_roofline_free(r);
}

int main(void)
{
	struct kprof_peaks p;

	KT_CHECK(kprof_peaks_parse(peaks_json, &p, NULL) == 0, "peaks");
	test_eval(&p);
	test_kinds(&p);
	test_many_kinds(&p);
	return kt_done("test_roofline");
}
