// SPDX-License-Identifier: GPL-2.0
/* kprof_diff (baseline diff by op kind) and kprof_csvread, known answers. */
#include "kt.h"
#include "kprof_diff.h"
#include "kprof_csvread.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

/* deterministic spread in [-1, 1]: 21 distinct steps */
static double wobble(int i)
{
	return (double)((i * 37) % 21 - 10) / 10.0;
}

static const struct kprof_diff_row *find(const struct kprof_diff_row *r, size_t n,
					 const char *op, const char *metric)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].op, op) && !strcmp(r[i].metric, metric))
			return &r[i];
	return NULL;
}

/* n values per side around base; B scaled by scale; amp = relative noise;
 * B's noise pattern shifted by shift ops
 */
static const struct kprof_diff_row *one(struct kprof_diff *d, int n, double base,
					double scale, double amp, int shift)
{
	const struct kprof_diff_row *rows;
	size_t nr;

	for (int i = 0; i < n; i++) {
		kprof_diff_add(d, 0, "op", "kernel [ns]", base * (1 + amp * wobble(i)));
		kprof_diff_add(d, 1, "op", "kernel [ns]",
			       scale * base * (1 + amp * wobble(i + shift)));
	}
	if (kprof_diff_compute(d, NULL, &rows, &nr) || nr != 1)
		return NULL;
	return &rows[0];
}

static void test_stats(void)
{
	struct kprof_diff *d = kprof_diff_new();
	const struct kprof_diff_row *r;

	/* identical inputs: no change, not flagged */
	r = one(d, 30, 10000, 1.0, 0.02, 0);
	KT_CHECK(r, "one row");
	if (r) {
		KT_NEAR(r->change_pct, 0, 1e-9);
		KT_EQ_U64(r->flag, KPROF_DIFF_SAME);
		KT_EQ_U64(r->na, 30);
	}
	kprof_diff_free(d);

	/* 20% slower, 1% noise: flagged UP, change 20% */
	d = kprof_diff_new();
	r = one(d, 30, 10000, 1.2, 0.01, 5);
	KT_CHECK(r && r->flag == KPROF_DIFF_SLOWER, "20%% slowdown, low noise: flag %d",
		 r ? (int)r->flag : -1);
	if (r) {
		KT_NEAR(r->change_pct, 20, 1.5);
		KT_CHECK(r->noise_pct < 5, "noise %.2f%%", r->noise_pct);
	}
	kprof_diff_free(d);

	/* the same 20% inside +-60% noise: not flagged */
	d = kprof_diff_new();
	r = one(d, 10, 10000, 1.2, 0.6, 5);
	KT_CHECK(r && r->flag == KPROF_DIFF_SAME, "20%% inside huge noise: flag %d",
		 r ? (int)r->flag : -1);
	if (r)
		KT_CHECK(r->noise_pct > 20, "noise %.2f%% > the change", r->noise_pct);
	kprof_diff_free(d);

	/* 20% faster, low noise: DOWN */
	d = kprof_diff_new();
	r = one(d, 30, 10000, 0.8, 0.01, 5);
	KT_CHECK(r && r->flag == KPROF_DIFF_FASTER, "20%% faster: flag %d", r ? (int)r->flag : -1);
	kprof_diff_free(d);

	/* 3% slower with no noise at all: below the 5% threshold */
	d = kprof_diff_new();
	r = one(d, 30, 10000, 1.03, 0, 5);
	KT_CHECK(r && r->flag == KPROF_DIFF_SAME, "3%% change: flag %d", r ? (int)r->flag : -1);
	kprof_diff_free(d);

	/* one op per side: no noise estimate, never flagged */
	d = kprof_diff_new();
	r = one(d, 1, 10000, 2.0, 0, 5);
	KT_CHECK(r && r->flag == KPROF_DIFF_FEW, "n=1: flag %d", r ? (int)r->flag : -1);
	if (r)
		KT_NEAR(r->change_pct, 100, 1e-9);
	kprof_diff_free(d);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

#define OPS_HDR "OP CODE,GLOBAL CALL COUNT,HOST DURATION [ns],DEVICE FW DURATION [ns]," \
	"DEVICE KERNEL DURATION [ns]\n"

/* Captures on disk: missing kinds, empty fields, quoted names, counters. */
static void test_capture_dirs(void)
{
	char a[] = "/tmp/kprof-test-diff-XXXXXX", b[64], p[128];
	struct kprof_err err = { 0 };
	const struct kprof_diff_row *rows, *r;
	struct kprof_diff *d;
	size_t n;
	char buf[4096];
	FILE *mf;

	KT_CHECK(mkdtemp(a), "mkdtemp");
	snprintf(b, sizeof(b), "%s/b", a);
	KT_CHECK(mkdir(b, 0700) == 0, "mkdir");
	snprintf(p, sizeof(p), "%s/ops.csv", a);
	write_file(p, OPS_HDR
		   "matmul,1,100,1000,900\n"
		   "matmul,2,100,1010,910\n"
		   "matmul,3,100,990,890\n"
		   "\"odd, \"\"name\"\"\nline2\",4,50,500,\n"
		   "only_a,5,10,20,10\n"
		   "only_a,6,10,20,10\n");
	snprintf(p, sizeof(p), "%s/counters.csv", a);
	write_file(p, "GLOBAL CALL COUNT,OP CODE,COUNTER,UNIT,CORES,MIN,MAX,SUM\n"
		   "1,matmul,flops,flops,4,1,1,4\n2,matmul,flops,flops,4,1,1,4\n");
	snprintf(p, sizeof(p), "%s/ops.csv", b);
	write_file(p, OPS_HDR
		   "matmul,1,100,1000,900\n"
		   "matmul,2,100,1010,910\n"
		   "matmul,3,100,990,890\n"
		   "only_b,4,1,2,1\n");

	d = kprof_diff_new();
	KT_CHECK(kprof_diff_add_capture(d, 0, a, &err) == 0, "A: %s", err.msg);
	KT_CHECK(kprof_diff_add_capture(d, 1, b, &err) == 0, "B: %s", err.msg);
	KT_CHECK(kprof_diff_compute(d, NULL, &rows, &n) == 0, "compute");
	r = find(rows, n, "matmul", "kernel [ns]");
	KT_CHECK(r && r->flag == KPROF_DIFF_SAME && r->na == 3 && r->nb == 3, "matmul same");
	if (r) {
		KT_NEAR(r->med_a, 900, 0);
		KT_NEAR(r->tot_b, 2700, 0);
		KT_NEAR(r->mean_a, 900, 1e-9);
	}
	r = find(rows, n, "only_a", "fw [ns]");
	KT_CHECK(r && r->flag == KPROF_DIFF_ONLY_A && r->na == 2 && r->nb == 0, "only_a");
	r = find(rows, n, "only_b", "host [ns]");
	KT_CHECK(r && r->flag == KPROF_DIFF_ONLY_B && r->na == 0 && r->nb == 1, "only_b");
	r = find(rows, n, "matmul", "flops [flops]");
	KT_CHECK(r && r->flag == KPROF_DIFF_ONLY_A && r->na == 2, "counter only in A");
	/* quoted name with a comma, quotes and a line break; empty kernel field skipped */
	r = find(rows, n, "odd, \"name\"\nline2", "fw [ns]");
	KT_CHECK(r && r->na == 1, "quoted op name read back");
	KT_CHECK(!find(rows, n, "odd, \"name\"\nline2", "kernel [ns]"), "empty field is no value");
	/* rows are sorted by op kind */
	for (size_t i = 1; i < n; i++)
		KT_CHECK(strcmp(rows[i - 1].op, rows[i].op) <= 0, "sorted at %zu", i);

	/* the CSV round-trips the odd name through the one reader */
	mf = fmemopen(buf, sizeof(buf), "w");
	KT_CHECK(kprof_diff_write_csv(mf, rows, n) == 0, "csv");
	fclose(mf);
	snprintf(p, sizeof(p), "%s/diff.csv", a);
	write_file(p, buf);
	{
		struct kprof_csv_table t;
		int found = 0;

		KT_CHECK(kprof_csv_load(p, &t, &err) == 0, "load diff csv: %s", err.msg);
		KT_EQ_U64(t.nrows, n);
		KT_CHECK(kprof_csv_col(&t, "CHANGE [%]") == 10, "CHANGE column");
		for (size_t i = 0; i < t.nrows; i++)
			found += !strcmp(t.rows[i][0], "odd, \"name\"\nline2");
		KT_CHECK(found == 2, "odd name rows %d (fw, host)", found);
		kprof_csv_free(&t);
	}
	kprof_diff_free(d);

	/* a file that is not ops.csv: an error naming the column */
	snprintf(p, sizeof(p), "%s/ops.csv", b);
	write_file(p, "a,b\n1,2\n");
	d = kprof_diff_new();
	KT_CHECK(kprof_diff_add_capture(d, 1, b, &err) < 0 && strstr(err.msg, "OP CODE"),
		 "bad ops.csv: %s", err.msg);
	kprof_diff_free(d);
	/* a row with more fields than the header */
	write_file(p, OPS_HDR "x,1,2,3,4,5\n");
	d = kprof_diff_new();
	KT_CHECK(kprof_diff_add_capture(d, 1, b, &err) < 0 && strstr(err.msg, ":2:"),
		 "long row: %s", err.msg);
	kprof_diff_free(d);
	/* an unterminated quote */
	write_file(p, OPS_HDR "\"x,1,2,3,4\n");
	d = kprof_diff_new();
	KT_CHECK(kprof_diff_add_capture(d, 1, b, &err) < 0 && strstr(err.msg, "unterminated"),
		 "open quote: %s", err.msg);
	kprof_diff_free(d);

	snprintf(p, sizeof(p), "rm -rf '%s'", a);
	KT_CHECK(system(p) == 0, "cleanup");
}

int main(void)
{
	test_stats();
	test_capture_dirs();
	return kt_done("test_diff");
}
