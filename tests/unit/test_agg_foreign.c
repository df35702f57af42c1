// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine on input shaped by someone else (a foreign
 * spool or tt-metal log): ops in descending seq order and a storm of
 * LOST records over every op in flight must cost O(n log n), not a walk
 * of the in-flight ops per input. Each runs in a child under a CPU-time
 * limit (RLIMIT_CPU) far above what it needs and far below what the
 * quadratic walks took: a limit, not a timing. Also what a LOST record
 * counts toward (docs/formats.md, MARKERS LOST).
 */
#include "kt.h"
#include "kprof_agg.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define CPU_LIMIT_S	30

static struct kprof_tsfit fit;
static uint64_t nrows, lost_sum, last_seq, bad_order;
static uint64_t lost_of[16];

static int emit(void *ctx, const struct kprof_op_row *r)
{
	(void)ctx;
	if (nrows && r->seq <= last_seq)
		bad_order++;
	last_seq = r->seq;
	nrows++;
	lost_sum += r->markers_lost;
	if (r->seq < 16)
		lost_of[r->seq] = r->markers_lost;
	return 0;
}

/* Every op retires at the end only, as for a tt-metal log. */
static struct kprof_agg *mk(void)
{
	struct kprof_agg_config cfg;
	struct kprof_err err = { 0 };

	memset(&cfg, 0, sizeof(cfg));
	cfg.fit = &fit;
	cfg.emit = emit;
	cfg.num_riscs = 1;
	cfg.slack_ns = KPROF_AGG_NEVER;
	nrows = 0;
	lost_sum = 0;
	last_seq = 0;
	bad_order = 0;
	memset(lost_of, 0, sizeof(lost_of));
	return kprof_agg_new(&cfg, &err);
}

static int op_rec(struct kprof_agg *a, uint64_t seq)
{
	struct kprof_rec_op op = { .hdr = { KPROF_REC_OP, sizeof(op), 0 }, .op_seq = seq,
				   .timestamp = 1000 };
	struct kprof_err err = { 0 };

	return kprof_agg_device_rec(a, &op.hdr, &err);
}

static int lost_rec(struct kprof_agg *a, uint64_t first, uint64_t last, uint32_t count)
{
	struct kprof_rec_lost l = { .hdr = { KPROF_REC_LOST, sizeof(l), 0 }, .count = count,
				    .first_op_seq = first, .last_op_seq = last,
				    .timestamp = 1000 };
	struct kprof_err err = { 0 };

	return kprof_agg_device_rec(a, &l.hdr, &err);
}

/* fn in a child under the CPU limit: 0 when it finished and returned 0 */
static int limited(int (*fn)(void))
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct rlimit rl = { CPU_LIMIT_S, CPU_LIMIT_S + 5 };

		setrlimit(RLIMIT_CPU, &rl);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		fprintf(stderr, "child killed by signal %d (%s)\n", WTERMSIG(st),
			WTERMSIG(st) == SIGXCPU ? "over the CPU limit" : "crash");
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* 100000 ops, highest seq first: each was placed by a walk from the end */
static int descending(void)
{
	struct kprof_agg *a = mk();
	struct kprof_err err = { 0 };

	for (uint64_t s = 100000; s > 0; s--)
		if (op_rec(a, s))
			return 1;
	if (kprof_agg_finish(a, &err))
		return 2;
	kprof_agg_free(a);
	return nrows == 100000 && !bad_order ? 0 : 3;
}

/* 20000 ops in flight, 200000 LOST records over all of them: each walked
 * every op
 */
static int lost_storm(void)
{
	struct kprof_agg *a = mk();
	struct kprof_err err = { 0 };

	for (uint64_t s = 1; s <= 20000; s++)
		if (op_rec(a, s))
			return 1;
	for (int i = 0; i < 200000; i++)
		if (lost_rec(a, 0, UINT64_MAX, 1))
			return 2;
	if (kprof_agg_finish(a, &err))
		return 3;
	kprof_agg_free(a);
	return nrows == 20000 && lost_sum == 20000ULL * 200000 ? 0 : 4;
}

static void test_limits(void)
{
	KT_CHECK(limited(descending) == 0, "100000 ops in descending order within %d s of CPU",
		 CPU_LIMIT_S);
	KT_CHECK(limited(lost_storm) == 0,
		 "200000 LOST records over 20000 ops in flight within %d s of CPU", CPU_LIMIT_S);
}

/* A LOST record counts toward every op of its range not written yet,
 * also one the engine sees only after it; not toward one written.
 */
static void test_lost_ranges(void)
{
	struct kprof_agg *a = mk();
	struct kprof_err err = { 0 };

	KT_CHECK(!op_rec(a, 1) && !op_rec(a, 2), "ops 1, 2");
	KT_CHECK(!lost_rec(a, 6, 4, 3), "lost 4-6 (given backwards)");
	KT_CHECK(!lost_rec(a, 2, 2, 1), "lost 2");
	KT_CHECK(!op_rec(a, 4) && !op_rec(a, 5) && !op_rec(a, 7), "ops 4, 5, 7");
	KT_CHECK(!lost_rec(a, 7, UINT64_MAX, 10), "lost 7-");
	KT_CHECK(!op_rec(a, 9), "op 9");
	KT_CHECK(!kprof_agg_finish(a, &err), "finish: %s", err.msg);
	KT_EQ_U64(nrows, 6);
	KT_EQ_U64(lost_of[1], 0);
	KT_EQ_U64(lost_of[2], 1);
	KT_EQ_U64(lost_of[4], 3);	/* seen only after the record */
	KT_EQ_U64(lost_of[5], 3);
	KT_EQ_U64(lost_of[7], 10);
	KT_EQ_U64(lost_of[9], 10);
	KT_EQ_U64(kprof_agg_stats(a)->lost_markers, 14);
	KT_EQ_U64(kprof_agg_stats(a)->late_lost_markers, 0);
	kprof_agg_free(a);
}

int main(void)
{
	kprof_tsfit_linear(&fit, 1.0, 0);
	test_lost_ranges();
	test_limits();
	return kt_done("test_agg_foreign");
}
