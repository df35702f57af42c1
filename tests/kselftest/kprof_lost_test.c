// SPDX-License-Identifier: GPL-2.0
/*
 * Nothing is dropped silently: a reader that stops reading while ops run
 * makes the L1 rings overflow, and the LOST records must account for
 * exactly the markers the sim says it dropped (debugfs ground truth), in
 * total and per core and RISC.
 */
#include <inttypes.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define NS_10S		10000000000ULL
#define MAX_RINGS	(256 * KPROF_MAX_RISCS)

/* The sim's lifetime drop counts: total and per (core, risc). */
struct drops {
	uint64_t total;
	uint64_t ring[MAX_RINGS];
};

static int read_drops(int sim, unsigned int riscs, struct drops *d)
{
	char path[256], *buf, *line, *save = NULL;
	ssize_t n;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	buf = malloc(1 << 20);
	if (!buf)
		return -ENOMEM;
	kt_sim_path(path, sizeof(path), sim, "dropped");
	n = kt_read_file(path, buf, 1 << 20);
	if (n < 0) {
		free(buf);
		return (int)n;
	}
	/* First line: the total; then "core risc count" per RISC with drops. */
	line = strtok_r(buf, "\n", &save);
	if (!line || sscanf(line, "%" SCNu64, &d->total) != 1)
		ret = -EPROTO;
	while (!ret && (line = strtok_r(NULL, "\n", &save))) {
		unsigned int core, risc;
		uint64_t cnt;

		if (sscanf(line, "%u %u %" SCNu64, &core, &risc, &cnt) != 3 ||
		    risc >= riscs || core * riscs + risc >= MAX_RINGS)
			ret = -EPROTO;
		else
			d->ring[core * riscs + risc] = cnt;
	}
	free(buf);
	return ret;
}

FIXTURE(lost) {
	int fd, simfd;
	struct kprof_device_info info;
	struct kt_ring ring;
	struct kt_recs recs;
	struct kt_op *ops;
	unsigned int nops;
	struct drops before, after;
	uint64_t lost_ring[MAX_RINGS];
	uint64_t lost_sum, lost_queue, markers;
};

FIXTURE_SETUP(lost)
{
	memset(&self->ring, 0, sizeof(self->ring));
	memset(&self->recs, 0, sizeof(self->recs));
	ASSERT_TRUE(kt_debugfs_ready()) TH_LOG("no kprof_sim debugfs");
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd);
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
	ASSERT_GE(MAX_RINGS, self->info.num_cores * self->info.riscs_per_core);
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_10S));
	self->ops = NULL;
}

FIXTURE_TEARDOWN(lost)
{
	kt_ring_unmap(&self->ring);
	kt_recs_free(&self->recs);
	free(self->ops);
	kt_stop(self->fd);
	kt_sync_all(self->simfd, NS_10S);
	close(self->simfd);
	close(self->fd);
}

/* Sums LOST records per RISC ring, and markers of our ops. */
static void tally(struct _test_data_lost *self)
{
	self->lost_sum = 0;
	self->lost_queue = 0;
	self->markers = 0;
	memset(self->lost_ring, 0, sizeof(self->lost_ring));
	kt_recs_for_each(h, &self->recs) {
		const struct kprof_rec_lost *l = (const void *)h;

		if (h->type == KPROF_REC_MARKER) {
			self->markers++;
		} else if (h->type == KPROF_REC_LOST) {
			/* core 0xffff: OP/COUNTERS records, not markers. */
			if (l->core >= self->info.num_cores) {
				self->lost_queue += l->count;
				continue;
			}
			self->lost_sum += l->count;
			if (l->risc < self->info.riscs_per_core)
				self->lost_ring[l->core * self->info.riscs_per_core +
						l->risc] += l->count;
		}
	}
}

static bool pred_all_accounted(const struct kt_recs *rs, void *arg)
{
	struct _test_data_lost *self = arg;

	(void)rs;
	tally(self);
	return self->markers + self->lost_sum >=
	       kt_ops_markers(&self->info, self->ops, self->nops);
}

/*
 * Overflow: a 64 KiB ring nobody reads while full-device ops with 8 zones
 * write twice what the ring and all L1 rings together hold.
 */
static void overflow(struct __test_metadata *_metadata,
		     struct _test_data_lost *self)
{
	struct kt_op probe = { .num_cores = self->info.num_cores, .zones = 8 };
	uint64_t hold = (uint64_t)self->info.l1_ring_entries *
			self->info.num_cores * self->info.riscs_per_core +
			KPROF_RING_SIZE_MIN / sizeof(struct kprof_rec_marker);

	self->nops = (unsigned int)(2 * hold / kt_op_markers(&self->info, &probe)) + 4;
	ASSERT_GE(4096, self->nops);
	self->ops = calloc(self->nops, sizeof(*self->ops));
	ASSERT_NE(NULL, self->ops);
	ASSERT_EQ(0, read_drops(0, self->info.riscs_per_core, &self->before));
	ASSERT_EQ(0, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	for (unsigned int i = 0; i < self->nops; i++) {
		struct kt_op *op = &self->ops[i];
		int64_t seq;

		op->first_core = 0;
		op->num_cores = self->info.num_cores;
		op->zones = 8;
		snprintf(op->name, sizeof(op->name), "flood_%u", i);
		seq = kt_launch(self->simfd, op->name, 0, 0, KT_SMALL_FLOPS,
				KT_SMALL_BYTES, op->zones);
		ASSERT_LT(0, seq);
		op->seq = (uint64_t)seq;
	}
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_10S));
	/* The reader wakes up: everything is either delivered or LOST. */
	kt_drain_until(&self->ring, &self->recs, pred_all_accounted, self,
		       20000);
	ASSERT_FALSE(self->recs.malformed) TH_LOG("%s", self->recs.why);
	ASSERT_EQ(0, read_drops(0, self->info.riscs_per_core, &self->after));
	tally(self);
}

TEST_F_TIMEOUT(lost, lost_total_matches_truth, 180)
{
	uint64_t dropped;

	overflow(_metadata, self);
	dropped = self->after.total - self->before.total;
	/* The test only means something if markers were really lost. */
	ASSERT_LT(0, dropped);
	EXPECT_EQ(dropped, self->lost_sum);
	EXPECT_EQ(kt_ops_markers(&self->info, self->ops, self->nops),
		  self->markers + self->lost_sum)
		TH_LOG("markers %llu lost %llu",
		       (unsigned long long)self->markers,
		       (unsigned long long)self->lost_sum);
	/* The control page and INFO agree with the records. */
	EXPECT_EQ(self->lost_sum, self->ring.ctrl->lost_markers);
}

TEST_F_TIMEOUT(lost, lost_per_risc_matches_truth, 180)
{
	unsigned int nr = self->info.num_cores * self->info.riscs_per_core;
	unsigned int rings_lost = 0;

	overflow(_metadata, self);
	for (unsigned int i = 0; i < nr; i++) {
		uint64_t d = self->after.ring[i] - self->before.ring[i];

		EXPECT_EQ(d, self->lost_ring[i])
			TH_LOG("core %u risc %u", i / self->info.riscs_per_core,
			       i % self->info.riscs_per_core);
		rings_lost += d != 0;
	}
	EXPECT_LT(0, rings_lost);
}

/* LOST names the ops whose markers were lost, in order. */
TEST_F_TIMEOUT(lost, lost_records_name_ops, 180)
{
	uint64_t first;

	overflow(_metadata, self);
	first = self->ops[0].seq;
	kt_recs_for_each(h, &self->recs) {
		const struct kprof_rec_lost *l = (const void *)h;

		if (h->type != KPROF_REC_LOST || l->core >= self->info.num_cores)
			continue;
		EXPECT_EQ(sizeof(*l), l->hdr.size);
		EXPECT_LT(0, l->count);
		EXPECT_EQ(0, l->reserved0);
		EXPECT_LE(first, l->first_op_seq);
		EXPECT_LE(l->first_op_seq, l->last_op_seq);
		EXPECT_GE(first + self->nops - 1, l->last_op_seq);
		EXPECT_LT(0, l->timestamp);
	}
}

/* The device lifetime counter (INFO and sysfs) moves by the same amount. */
TEST_F_TIMEOUT(lost, info_and_sysfs_dropped, 180)
{
	struct kprof_device_info i0, i1;
	char buf[64];

	ASSERT_EQ(0, kt_info(self->fd, &i0));
	overflow(_metadata, self);
	ASSERT_EQ(0, kt_info(self->fd, &i1));
	EXPECT_EQ(self->lost_sum, i1.markers_dropped - i0.markers_dropped);
	ASSERT_LT(0, kt_read_filef(buf, sizeof(buf),
				   KT_SYSFS_FMT "/markers_dropped", 0));
	EXPECT_EQ(i1.markers_dropped, strtoull(buf, NULL, 10));
}

/* After the loss the capture goes on whole once the reader keeps up. */
TEST_F_TIMEOUT(lost, recovers_after_loss, 180)
{
	struct kt_recs rs2 = { 0 };
	struct kt_op more[4];
	uint64_t want, got = 0;
	struct kt_op_seen seen[4];

	overflow(_metadata, self);
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, more, 4, 1));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_10S));
	want = kt_ops_markers(&self->info, more, 4);
	kt_drain_until(&self->ring, &rs2, kt_pred_marker_count, &want, 5000);
	kt_analyse(&rs2, &self->info, more, 4, seen);
	for (int i = 0; i < 4; i++)
		got += seen[i].markers;
	EXPECT_EQ(want, got);
	EXPECT_EQ(0, kt_recs_count(&rs2, KPROF_REC_LOST));
	kt_recs_free(&rs2);
}

/* The sim's own books balance with the ground truth file. */
TEST_F_TIMEOUT(lost, stats_consistent, 180)
{
	uint64_t written, drained, dropped, discarded;

	overflow(_metadata, self);
	ASSERT_EQ(0, kt_sim_stat(0, "markers_written", &written));
	ASSERT_EQ(0, kt_sim_stat(0, "markers_drained", &drained));
	ASSERT_EQ(0, kt_sim_stat(0, "markers_dropped", &dropped));
	ASSERT_EQ(0, kt_sim_stat(0, "markers_discarded_at_stop", &discarded));
	EXPECT_EQ(dropped, self->after.total);
	/* Everything written to L1 has left it: drained, or cut at a stop. */
	EXPECT_EQ(written, drained + discarded);
}

TEST_HARNESS_MAIN
