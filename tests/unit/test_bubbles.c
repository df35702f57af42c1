// SPDX-License-Identifier: GPL-2.0
/* Bubble analysis on synthetic op rows with hand-computed answers. */
#include "kt.h"

#include <unistd.h>

#include "kprof_bubbles.h"

static struct kprof_core_time ct[4];

static struct kprof_op_row row(uint64_t seq, uint64_t launch, double fw, double kernel)
{
	struct kprof_op_row r;

	memset(&r, 0, sizeof(r));
	r.seq = seq;
	snprintf(r.op_code, sizeof(r.op_code), "op%llu", (unsigned long long)seq);
	r.host_start_ns = launch;
	r.host_end_ns = launch == KPROF_AGG_NONE ? KPROF_AGG_NONE : launch + 10;
	r.fw_duration_ns = fw;
	r.kernel_duration_ns = kernel;
	r.launch_to_start_ns = NAN;
	r.sync_wait_ns = NAN;
	r.sync_end_ns = KPROF_AGG_NONE;
	r.fw_start_ns = NAN;
	r.fw_end_ns = NAN;
	r.cores = ct;
	return r;
}

static void span(struct kprof_op_row *r, uint32_t core, double s, double e)
{
	ct[r->ncores++] = (struct kprof_core_time){ core, 0, s, e };
	r->fw_start_ns = isnan(r->fw_start_ns) ? s : fmin(r->fw_start_ns, s);
	r->fw_end_ns = isnan(r->fw_end_ns) ? e : fmax(r->fw_end_ns, e);
}

static int has_advice(struct kprof_bubbles *b, const char *needle)
{
	const char *a[8];
	unsigned int n = kprof_bubbles_advice(b, a, 8);

	for (unsigned int i = 0; i < n; i++)
		if (strstr(a[i], needle))
			return 1;
	return 0;
}

/*
 * 3 cores listed, 2 used. Window 0..1000 (first launch at 0).
 * core 0: [100,300] op1, [600,700] op2 (launched 500), [800,900] op3 (650)
 * core 1: [100,300] op1, [700,1000] op3
 */
static void test_mixed(void)
{
	struct kprof_bubbles *b = kprof_bubbles_new(3, NULL);
	const struct kprof_bub_totals *t;
	const struct kprof_bub_core *c;
	struct kprof_op_row r;

	r = row(1, 0, 200, 50);
	span(&r, 0, 100, 300);
	span(&r, 1, 100, 300);
	r.launch_to_start_ns = 100;
	r.sync_wait_ns = 40;
	r.sync_end_ns = 350;
	KT_CHECK(kprof_bubbles_op(b, &r) == 0, "op1");
	r = row(2, 500, 100, 100);
	span(&r, 0, 600, 700);
	r.launch_to_start_ns = 100;
	r.sync_wait_ns = 390;
	r.sync_end_ns = 1100;
	KT_CHECK(kprof_bubbles_op(b, &r) == 0, "op2");
	r = row(3, 650, 300, 100);
	span(&r, 0, 800, 900);
	span(&r, 1, 700, 1000);
	r.launch_to_start_ns = 50;	/* queued behind op2: not dispatch cost */
	r.sync_wait_ns = 390;
	r.sync_end_ns = 1100;		/* same sync as op2: counted once */
	KT_CHECK(kprof_bubbles_op(b, &r) == 0, "op3");

	t = kprof_bubbles_finish(b);
	KT_NEAR(t->window_ns, 1000, 1e-9);
	KT_EQ_U64(t->cores_used, 2);
	KT_EQ_U64(kprof_bubbles_ncores(b), 3);
	c = kprof_bubbles_core(b, 0);
	KT_EQ_U64(c->core, 0);
	KT_EQ_U64(c->ops, 3);
	KT_NEAR(c->work_ns, 400, 1e-9);
	KT_NEAR(c->wait_launch_ns, 200, 1e-9);
	KT_NEAR(c->wait_pred_ns, 300, 1e-9);
	KT_NEAR(c->wait_unknown_ns, 0, 1e-9);
	KT_NEAR(c->idle_other_ns, 100, 1e-9);
	c = kprof_bubbles_core(b, 1);
	KT_NEAR(c->work_ns, 500, 1e-9);
	KT_NEAR(c->wait_launch_ns, 350, 1e-9);
	KT_NEAR(c->wait_pred_ns, 150, 1e-9);
	KT_NEAR(c->idle_other_ns, 0, 1e-9);
	c = kprof_bubbles_core(b, 2);
	KT_EQ_U64(c->core, 2);
	KT_EQ_U64(c->ops, 0);
	KT_NEAR(c->idle_other_ns, 1000, 1e-9);
	KT_CHECK(!kprof_bubbles_core(b, 3), "only 3 cores");
	KT_NEAR(t->bubble_rate, 0.5, 1e-12);
	KT_NEAR(t->utilization, 0.45, 1e-12);
	KT_NEAR(t->control_share, 350.0 / 600.0, 1e-12);
	KT_EQ_U64(t->dispatch_n, 2);
	KT_NEAR(t->dispatch_mean_ns, 100, 1e-9);
	KT_NEAR(t->op_fw_mean_ns, 200, 1e-9);
	KT_EQ_U64(t->syncs, 2);
	KT_NEAR(t->sync_wait_ns, 430, 1e-9);
	KT_NEAR(t->host_span_ns, 1100, 1e-9);
	KT_NEAR(t->ops_per_sync, 1.5, 1e-12);
	KT_STR(t->rating, "poor");
	KT_CHECK(has_advice(b, "host launch gaps"), "launch gaps dominate (550 vs 450)");
	KT_CHECK(has_advice(b, "ops too small"), "control 58%% > 50%%");
	KT_CHECK(has_advice(b, "launch-to-start latency"), "dispatch 100 > 25%% of 200");
	KT_CHECK(!has_advice(b, "too many syncs"), "sync share 39%% < 50%%");
	kprof_bubbles_free(b);
}

/* No launch times; back-to-back ops; an overlapping (unordered) span. */
static void test_unknown_and_overlap(void)
{
	struct kprof_bubbles *b = kprof_bubbles_new(0, NULL);

	KT_CHECK(b, "new");
	const struct kprof_bub_totals *t;
	const struct kprof_bub_core *c;
	struct kprof_op_row r;

	r = row(1, KPROF_AGG_NONE, 100, 95);
	span(&r, 5, 0, 100);
	kprof_bubbles_op(b, &r);
	r = row(2, KPROF_AGG_NONE, 100, 95);
	span(&r, 5, 100, 200);	/* back to back: no gap */
	kprof_bubbles_op(b, &r);
	r = row(3, KPROF_AGG_NONE, 100, 95);
	span(&r, 5, 250, 350);	/* gap 50, no launch time */
	kprof_bubbles_op(b, &r);
	r = row(4, KPROF_AGG_NONE, 100, 95);
	span(&r, 5, 240, 400);	/* starts before op3: union grows by 50 */
	span(&r, 4000000000U, 240, 400);	/* corrupt core id: left out */
	kprof_bubbles_op(b, &r);
	t = kprof_bubbles_finish(b);
	KT_EQ_U64(kprof_bubbles_ncores(b), 1);
	c = kprof_bubbles_core(b, 0);
	KT_EQ_U64(c->core, 5);
	KT_NEAR(c->work_ns, 350, 1e-9);
	KT_NEAR(c->wait_unknown_ns, 50, 1e-9);
	KT_NEAR(c->wait_launch_ns + c->wait_pred_ns, 0, 1e-9);
	KT_EQ_U64(c->unordered, 1);
	KT_EQ_U64(t->spans_skipped, 1);
	KT_NEAR(t->window_ns, 400, 1e-9);
	KT_NEAR(t->bubble_rate, 0.125, 1e-12);
	KT_STR(t->rating, "fair");
	KT_CHECK(has_advice(b, "cause unknown"), "unknown waits");
	KT_CHECK(!has_advice(b, "ops too small"), "control 5%%");
	KT_EQ_U64(t->dispatch_n, 0);
	kprof_bubbles_free(b);
}

/* A busy device: good rating, no advice; and the CSV. */
static void test_good_csv(void)
{
	struct kprof_bubbles *b = kprof_bubbles_new(1, NULL);
	struct kprof_op_row r;
	char *dir = kt_tmpdir(), path[128], line[512];
	const char *advice[8];
	FILE *f;
	int lines = 0;

	for (unsigned int i = 0; i < 100; i++) {
		r = row(i + 1, (uint64_t)i * 1000, 1000, 990);
		span(&r, 0, i * 1000.0 + 10, i * 1000.0 + 1010);
		r.launch_to_start_ns = i ? NAN : 10;
		kprof_bubbles_op(b, &r);
	}
	kprof_bubbles_finish(b);
	KT_STR(kprof_bubbles_finish(b)->rating, "good");
	KT_NEAR(kprof_bubbles_finish(b)->bubble_rate, 10.0 / 100010.0, 1e-12);
	KT_CHECK(kprof_bubbles_advice(b, advice, 8) == 0, "no advice");
	snprintf(path, sizeof(path), "%s/bubbles.csv", dir);
	f = fopen(path, "w");
	KT_CHECK(f && kprof_bubbles_write_csv(b, f) == 0 && fclose(f) == 0, "csv");
	f = fopen(path, "r");
	KT_CHECK(f, "open csv");
	while (f && fgets(line, sizeof(line), f)) {
		if (lines == 1)
			KT_STR(line, "0,100,100000,0,10,0,0,100010,0.000100,0.999900,0\n");
		lines++;
	}
	if (f)
		fclose(f);
	KT_EQ_U64(lines, 2);
	unlink(path);
	rmdir(dir);
	kprof_bubbles_free(b);
}

int main(void)
{
	test_mixed();
	test_unknown_and_overlap();
	test_good_csv();
	return kt_done("test_bubbles");
}
