// SPDX-License-Identifier: GPL-2.0
/*
 * The sim's fault knobs (debugfs) against kprof's handling of them:
 * corrupted markers are flagged, dropped DMA interrupts are recovered by
 * the watchdog without losing data, and a stalled DMA engine is reported
 * in the stream and survived.
 */
#include <inttypes.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define NS_5S	5000000000ULL
#define NOPS	12

FIXTURE(fault) {
	int fd, simfd;
	struct kprof_device_info info;
	struct kt_ring ring;
	struct kt_recs recs;
	struct kt_op ops[NOPS];
};

FIXTURE_SETUP(fault)
{
	memset(&self->ring, 0, sizeof(self->ring));
	memset(&self->recs, 0, sizeof(self->recs));
	ASSERT_TRUE(kt_debugfs_ready());
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd);
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
}

FIXTURE_TEARDOWN(fault)
{
	kt_sim_knob_set(0, "fault_corrupt_markers", 0);
	kt_sim_knob_set(0, "fault_drop_irq", 0);
	kt_sim_knob_set(0, "fault_dma_stall", 0);
	kt_ring_unmap(&self->ring);
	kt_recs_free(&self->recs);
	kt_stop(self->fd);
	kt_sync_all(self->simfd, NS_5S);
	close(self->simfd);
	close(self->fd);
}

static int sysfs_u64(const char *attr, uint64_t *v)
{
	char path[128];

	snprintf(path, sizeof(path), KT_SYSFS_FMT "/%s", 0, attr);
	return kt_read_u64(path, v);
}

/* Runs NOPS ops and drains until all their markers are in (or 5 s). */
static uint64_t run_and_collect(struct _test_data_fault *self)
{
	uint64_t want;

	if (kt_launch_ops(self->simfd, &self->info, self->ops, NOPS, 1) ||
	    kt_sync_all(self->simfd, NS_5S))
		return 0;
	want = kt_ops_markers(&self->info, self->ops, NOPS);
	kt_drain_until(&self->ring, &self->recs, kt_pred_marker_count, &want,
		       5000);
	return want;
}

TEST_F_TIMEOUT(fault, corrupt_markers_flagged, 60)
{
	size_t corrupt = 0;
	uint64_t want;

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	ASSERT_EQ(0, kt_sim_knob_set(0, "fault_corrupt_markers", 5));
	want = run_and_collect(self);
	ASSERT_LT(0, want);
	EXPECT_EQ(want, kt_recs_count(&self->recs, KPROF_REC_MARKER));
	kt_recs_for_each(h, &self->recs) {
		if (h->type == KPROF_REC_MARKER && (h->flags & KPROF_RECF_CORRUPT))
			corrupt++;
	}
	/* Exactly the markers the knob spoiled, no more, none hidden. */
	EXPECT_EQ(5, corrupt);
}

TEST_F_TIMEOUT(fault, dropped_irqs_recovered, 60)
{
	uint64_t missed0, missed1, want;

	ASSERT_EQ(0, sysfs_u64("dma_missed_irqs", &missed0));
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	ASSERT_EQ(0, kt_sim_knob_set(0, "fault_drop_irq", 3));
	/* One op at a time: each makes at least one completion. */
	for (int i = 0; i < NOPS; i++) {
		ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info,
					   &self->ops[i], 1, 0));
		ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
		kt_drain_until(&self->ring, &self->recs, NULL, NULL, 150);
	}
	want = kt_ops_markers(&self->info, self->ops, NOPS);
	kt_drain_until(&self->ring, &self->recs, kt_pred_marker_count, &want,
		       3000);
	/* Every marker arrived although three completions never signalled. */
	EXPECT_EQ(want, kt_recs_count(&self->recs, KPROF_REC_MARKER));
	EXPECT_EQ(0, kt_recs_count(&self->recs, KPROF_REC_LOST));
	ASSERT_EQ(0, sysfs_u64("dma_missed_irqs", &missed1));
	EXPECT_EQ(3, missed1 - missed0);
}

static bool has_reason(const struct kt_recs *rs, uint32_t reason)
{
	kt_recs_for_each(h, rs) {
		if (h->type == KPROF_REC_STATE &&
		    ((const struct kprof_rec_state *)h)->reason == reason)
			return true;
	}
	return false;
}

/*
 * A DMA engine that stops completing for over a second: the stream says
 * so (STATE with reason DMA_TIMEOUT), sysfs counts it, and once the engine
 * moves again nothing of the ops is missing.
 */
TEST_F_TIMEOUT(fault, dma_stall_reported, 60)
{
	uint64_t t0, t1, want;

	ASSERT_EQ(0, sysfs_u64("dma_timeouts", &t0));
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	kt_drain_until(&self->ring, &self->recs, NULL, NULL, 100);
	ASSERT_EQ(0, kt_sim_knob_set(0, "fault_dma_stall", 1));
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, self->ops, NOPS, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	kt_sleep_ms(1500);
	ASSERT_EQ(0, kt_sim_knob_set(0, "fault_dma_stall", 0));
	want = kt_ops_markers(&self->info, self->ops, NOPS);
	kt_drain_until(&self->ring, &self->recs, kt_pred_marker_count, &want,
		       5000);
	EXPECT_EQ(want, kt_recs_count(&self->recs, KPROF_REC_MARKER));
	EXPECT_TRUE(has_reason(&self->recs, KPROF_REASON_DMA_TIMEOUT));
	ASSERT_EQ(0, sysfs_u64("dma_timeouts", &t1));
	EXPECT_LE(1, t1 - t0);
}

/* Knobs refuse values outside their range. */
TEST_F(fault, knobs_bad_values)
{
	EXPECT_EQ(-EINVAL, kt_sim_knob_set(0, "fault_dma_stall", 2));
	EXPECT_EQ(-EINVAL, kt_sim_knob_set(0, "marker_storm", 2000000000ULL));
	EXPECT_EQ(-EINVAL, kt_sim_knob_set(0, "jitter_ns", 1000001));
}

TEST_HARNESS_MAIN
