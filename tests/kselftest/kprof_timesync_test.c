// SPDX-License-Identifier: GPL-2.0
/*
 * Host/device time sync: SYNC records arrive at the requested period
 * (also while the device is idle), are monotonic, and map host time to
 * device cycles well enough to place the sim's ground-truth op starts.
 */
#include <inttypes.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define NS_5S	5000000000ULL

FIXTURE(ts) {
	int fd, simfd;
	struct kprof_device_info info;
	struct kt_ring ring;
	struct kt_recs recs;
};

FIXTURE_SETUP(ts)
{
	memset(&self->ring, 0, sizeof(self->ring));
	memset(&self->recs, 0, sizeof(self->recs));
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd);
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
}

FIXTURE_TEARDOWN(ts)
{
	kt_ring_unmap(&self->ring);
	kt_recs_free(&self->recs);
	kt_stop(self->fd);
	kt_sync_all(self->simfd, NS_5S);
	close(self->simfd);
	close(self->fd);
}

static int start_period(int fd, uint32_t ms)
{
	struct kprof_capture_params p;

	kt_params_init(&p);
	p.sync_period_ms = ms;
	return kt_ioctl(fd, KPROF_IOC_CAPTURE_START, &p);
}

TEST_F(ts, sync_period_out_of_range)
{
	EXPECT_EQ(-EINVAL, start_period(self->fd, 10001));
	EXPECT_EQ(-EINVAL, start_period(self->fd, UINT32_MAX));
	ASSERT_EQ(0, start_period(self->fd, 10000));
}

/*
 * An idle device still gets its SYNC samples: a reader must be able to
 * map time across a quiet stretch, and learn of it while it lasts.
 */
TEST_F_TIMEOUT(ts, sync_records_while_idle, 60)
{
	size_t n;

	ASSERT_EQ(0, start_period(self->fd, 50));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	kt_drain_until(&self->ring, &self->recs, NULL, NULL, 1000);
	n = kt_recs_count(&self->recs, KPROF_REC_SYNC);
	/* 20 periods in a second; half of them even on a slow TCG guest. */
	EXPECT_LE(10, n) TH_LOG("%zu SYNC records in 1 s at 50 ms", n);
}

/* SYNC records during a busy capture: present, ordered, tight. */
TEST_F_TIMEOUT(ts, sync_records_monotonic, 60)
{
	const struct kprof_rec_sync *prev = NULL;
	uint64_t end = kt_now_ns() + 1000000000ULL;
	size_t n = 0;

	ASSERT_EQ(0, start_period(self->fd, 20));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	while (kt_now_ns() < end) {
		ASSERT_LT(0, kt_launch(self->simfd, "ts", 0, 1, KT_SMALL_FLOPS,
				       KT_SMALL_BYTES, 0));
		kt_drain_until(&self->ring, &self->recs, NULL, NULL, 10);
	}
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&self->ring, &self->recs, 3000));
	kt_recs_for_each(h, &self->recs) {
		const struct kprof_rec_sync *s = (const void *)h;

		if (h->type != KPROF_REC_SYNC)
			continue;
		n++;
		EXPECT_EQ(sizeof(*s), s->hdr.size);
		EXPECT_LE(s->host_before_ns, s->host_after_ns);
		if (prev) {
			EXPECT_LT(prev->host_after_ns, s->host_before_ns);
			EXPECT_LT(prev->device_cycles, s->device_cycles);
		}
		prev = s;
	}
	/* 50 periods in the second; at least a quarter under TCG. */
	EXPECT_LE(12, n) TH_LOG("%zu SYNC records", n);
}

struct truth_start {
	uint64_t seq, start_ns, fw_start;
};

/* seq, start_ns and fw_start of op seq from debugfs truth. */
static int truth_start(uint64_t seq, struct truth_start *t)
{
	char path[256], line[512], name[64];
	unsigned int fc, nc, mhz;
	uint64_t s, launch, start, end, fws;
	FILE *f;
	int ret = -ENOENT;

	kt_sim_path(path, sizeof(path), 0, "truth");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNu64 " %63s %u %u %u %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64, &s, name, &fc, &nc, &mhz,
			   &launch, &start, &end, &fws) != 9 || s != seq)
			continue;
		t->seq = s;
		t->start_ns = start;
		t->fw_start = fws;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/*
 * Interpolating between the SYNC samples around an op's true host start
 * gives its true device start within the samples' own uncertainty.
 */
TEST_F_TIMEOUT(ts, sync_maps_truth, 60)
{
	const struct kprof_rec_sync *s[512];
	size_t ns = 0, checked = 0;
	int64_t seqs[20];

	ASSERT_TRUE(kt_debugfs_ready());
	ASSERT_EQ(0, start_period(self->fd, 20));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	for (int i = 0; i < 20; i++) {
		seqs[i] = kt_launch(self->simfd, "map", 0, 1, KT_SMALL_FLOPS,
				    KT_SMALL_BYTES, 0);
		ASSERT_LT(0, seqs[i]);
		kt_drain_until(&self->ring, &self->recs, NULL, NULL, 40);
	}
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	kt_drain_until(&self->ring, &self->recs, NULL, NULL, 100);
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&self->ring, &self->recs, 3000));
	kt_recs_for_each(h, &self->recs) {
		if (h->type == KPROF_REC_SYNC && ns < 512)
			s[ns++] = (const void *)h;
	}
	ASSERT_LE(2, ns);
	for (int i = 0; i < 20; i++) {
		struct truth_start t;
		double mid0, mid1, c, err, tol;
		size_t k;

		ASSERT_EQ(0, truth_start((uint64_t)seqs[i], &t));
		for (k = 1; k < ns && s[k]->host_before_ns < t.start_ns; k++)
			;
		if (k == ns || s[k - 1]->host_after_ns > t.start_ns)
			continue;	/* not bracketed by two samples */
		mid0 = (s[k - 1]->host_before_ns + s[k - 1]->host_after_ns) / 2.0;
		mid1 = (s[k]->host_before_ns + s[k]->host_after_ns) / 2.0;
		c = s[k - 1]->device_cycles +
		    (t.start_ns - mid0) * (double)(s[k]->device_cycles -
						   s[k - 1]->device_cycles) /
		    (mid1 - mid0);
		err = c > t.fw_start ? c - t.fw_start : t.fw_start - c;
		/* Half of each sample's window, plus the sim's read jitter. */
		tol = (s[k - 1]->host_after_ns - s[k - 1]->host_before_ns) / 2.0 +
		      (s[k]->host_after_ns - s[k]->host_before_ns) / 2.0 + 2000;
		EXPECT_GE(tol, err) TH_LOG("op %" PRIu64 ": error %.0f cycles",
					   t.seq, err);
		checked++;
	}
	EXPECT_LE(10, checked);
}

/* The on-demand sample and the stream's samples share one timeline. */
TEST_F_TIMEOUT(ts, sync_sample_between_records, 60)
{
	struct kprof_sync_sample mid;
	const struct kprof_rec_sync *before = NULL, *after = NULL;

	ASSERT_EQ(0, start_period(self->fd, 20));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	kt_sleep_ms(100);
	memset(&mid, 0, sizeof(mid));
	mid.size = sizeof(mid);
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_SYNC_SAMPLE, &mid));
	/* Markers flush the core records: one op after, then stop. */
	kt_sleep_ms(100);
	ASSERT_LT(0, kt_launch(self->simfd, "flush", 0, 1, KT_SMALL_FLOPS,
			       KT_SMALL_BYTES, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&self->ring, &self->recs, 3000));
	kt_recs_for_each(h, &self->recs) {
		const struct kprof_rec_sync *s = (const void *)h;

		if (h->type != KPROF_REC_SYNC)
			continue;
		if (s->host_after_ns < mid.host_before_ns)
			before = s;
		else if (!after && s->host_before_ns > mid.host_after_ns)
			after = s;
	}
	ASSERT_NE(NULL, before);
	ASSERT_NE(NULL, after);
	EXPECT_LT(before->device_cycles, mid.device_cycles);
	EXPECT_LT(mid.device_cycles, after->device_cycles);
}

/*
 * The reference timer runs at ref_clock_hz * (1 + drift_ppm / 1e6): the
 * set rate lies inside the measured range, and the range is tight enough
 * (under 1000 ppm each side) to exclude the nominal rate.
 */
TEST_F_TIMEOUT(ts, drift_knob_sets_rate, 60)
{
	char path[256], old[32];
	double nominal = (double)self->info.ref_clock_hz;
	double plus_lo, plus_hi, minus_lo, minus_hi;
	/* slack: the sim's integer scaling truncates, a cycle per read */
	double plus = nominal * 1.001, minus = nominal * 0.999, slack = 10;

	ASSERT_TRUE(kt_debugfs_ready());
	kt_sim_path(path, sizeof(path), 0, "drift_ppm");
	ASSERT_LT(0, kt_read_file(path, old, sizeof(old)));
	ASSERT_EQ(0, kt_write_file(path, "1000"));
	ASSERT_EQ(0, kt_ref_rate_range(self->fd, 1000, &plus_lo, &plus_hi));
	ASSERT_EQ(0, kt_write_file(path, "-1000"));
	ASSERT_EQ(0, kt_ref_rate_range(self->fd, 1000, &minus_lo, &minus_hi));
	old[strcspn(old, "\n")] = '\0';
	kt_write_file(path, old);
	TH_LOG("+1000 ppm: [%.0f, %.0f] Hz; -1000 ppm: [%.0f, %.0f] Hz",
	       plus_lo, plus_hi, minus_lo, minus_hi);
	EXPECT_LE(plus_lo, plus + slack);
	EXPECT_GE(plus_hi, plus - slack);
	EXPECT_LE(minus_lo, minus + slack);
	EXPECT_GE(minus_hi, minus - slack);
	EXPECT_LT(nominal, plus_lo);
	EXPECT_GT(nominal, minus_hi);
}

TEST_HARNESS_MAIN
