// SPDX-License-Identifier: GPL-2.0
/*
 * The capture stream: start, markers that match the launched ops exactly,
 * OP and COUNTERS records, pause/resume, start paused, stop-drain-EOF,
 * read() framing and poll() wake-ups.
 */
#include <pthread.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define NS_5S		5000000000ULL
#define NOPS		24

FIXTURE(cap) {
	int fd, simfd;
	struct kprof_device_info info;
	struct kt_ring ring;
	struct kt_recs recs;
	struct kt_op ops[NOPS];
	struct kt_op_seen seen[NOPS];
};

FIXTURE_SETUP(cap)
{
	memset(&self->ring, 0, sizeof(self->ring));
	memset(&self->recs, 0, sizeof(self->recs));
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd) TH_LOG("open sim: %s", strerror(errno));
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
	/* Nothing of an earlier test still running on the device. */
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
}

FIXTURE_TEARDOWN(cap)
{
	kt_clock_set(self->fd, KPROF_CLOCK_OP_RESET, 0);
	kt_ring_unmap(&self->ring);
	kt_recs_free(&self->recs);
	kt_stop(self->fd);
	kt_sync_all(self->simfd, NS_5S);
	close(self->simfd);
	close(self->fd);
}

/* Start, map, run NOPS ops, wait for every marker, stop, drain to end. */
static int run_ops(struct _test_data_cap *self, uint32_t zones_max)
{
	uint64_t want;
	int ret;

	ret = kt_start(self->fd, 0, 0, 0);
	if (ret)
		return ret;
	ret = kt_ring_map(&self->ring, self->fd);
	if (ret)
		return ret;
	ret = kt_launch_ops(self->simfd, &self->info, self->ops, NOPS,
			    zones_max);
	if (ret)
		return ret;
	ret = kt_sync_all(self->simfd, NS_5S);
	if (ret)
		return ret;
	want = kt_ops_markers(&self->info, self->ops, NOPS);
	kt_drain_until(&self->ring, &self->recs, kt_pred_marker_count, &want,
		       3000);
	ret = kt_stop(self->fd);
	if (ret)
		return ret;
	if (!kt_drain_to_end(&self->ring, &self->recs, 3000))
		return -ETIMEDOUT;
	return self->recs.malformed ? -EPROTO : 0;
}

TEST_F(cap, start_state_record_first)
{
	const struct kprof_rec_state *st = NULL;

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	EXPECT_EQ(KPROF_STATE_RUNNING, self->ring.ctrl->state);
	EXPECT_EQ(KPROF_RING_SIZE_DEFAULT, self->ring.data_size);
	kt_drain_until(&self->ring, &self->recs, NULL, NULL, 300);
	ASSERT_FALSE(self->recs.malformed) TH_LOG("%s", self->recs.why);
	kt_recs_for_each(h, &self->recs) {
		if (h->type == KPROF_REC_STATE) {
			st = (const void *)h;
			break;
		}
		/* Nothing device-side comes before the start record. */
		EXPECT_NE(KPROF_REC_MARKER, h->type);
	}
	ASSERT_NE(NULL, st);
	EXPECT_EQ(sizeof(*st), st->hdr.size);
	EXPECT_EQ(KPROF_STATE_RUNNING, st->state);
	EXPECT_EQ(KPROF_REASON_START, st->reason);
	EXPECT_LT(0, st->host_ns);
	EXPECT_GE(kt_now_ns(), st->host_ns);
}

TEST_F(cap, ring_size_honoured)
{
	ASSERT_EQ(0, kt_start(self->fd, 0, 1U << 20, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	EXPECT_EQ(1U << 20, self->ring.data_size);
	EXPECT_EQ(0, self->ring.ctrl->lost_markers);
	EXPECT_EQ(0, self->ring.ctrl->lost_records);
	EXPECT_EQ(0, self->ring.ctrl->reserved0);
	EXPECT_TRUE(kt_all_zero((const void *)self->ring.ctrl->reserved,
				sizeof(self->ring.ctrl->reserved)));
}

/* Every RISC of every core used writes exactly its four markers, in order. */
TEST_F_TIMEOUT(cap, markers_match_ops_exactly, 120)
{
	uint64_t foreign;

	ASSERT_EQ(0, run_ops(self, 0));
	foreign = kt_analyse(&self->recs, &self->info, self->ops, NOPS,
			     self->seen);
	EXPECT_EQ(0, foreign);
	for (int i = 0; i < NOPS; i++) {
		const struct kt_op_seen *s = &self->seen[i];
		uint64_t per = (uint64_t)self->ops[i].num_cores *
			       self->info.riscs_per_core;

		EXPECT_EQ(kt_op_markers(&self->info, &self->ops[i]), s->markers)
			TH_LOG("op %d seq %llu", i,
			       (unsigned long long)self->ops[i].seq);
		EXPECT_EQ(0, s->bad);
		EXPECT_EQ(per, s->kinds[KPROF_MARK_FW_START]);
		EXPECT_EQ(per, s->kinds[KPROF_MARK_KERNEL_START]);
		EXPECT_EQ(per, s->kinds[KPROF_MARK_KERNEL_END]);
		EXPECT_EQ(per, s->kinds[KPROF_MARK_FW_END]);
		EXPECT_LE(s->min_fw_start, s->min_kernel_start);
		EXPECT_LT(s->min_kernel_start, s->max_kernel_end);
		EXPECT_LE(s->max_kernel_end, s->max_fw_end);
		/* Ops run in launch order on the command queue. */
		if (i)
			EXPECT_LE(self->seen[i - 1].max_fw_end, s->min_fw_start);
	}
	EXPECT_EQ(0, self->ring.ctrl->lost_markers);
}

TEST_F_TIMEOUT(cap, zone_markers_paired, 120)
{
	ASSERT_EQ(0, run_ops(self, 3));
	EXPECT_EQ(0, kt_analyse(&self->recs, &self->info, self->ops, NOPS,
				self->seen));
	for (int i = 0; i < NOPS; i++) {
		const struct kt_op_seen *s = &self->seen[i];
		uint64_t zones = (uint64_t)self->ops[i].num_cores *
				 self->info.riscs_per_core * self->ops[i].zones;

		EXPECT_EQ(kt_op_markers(&self->info, &self->ops[i]), s->markers);
		EXPECT_EQ(0, s->bad);
		EXPECT_EQ(zones, s->kinds[KPROF_MARK_ZONE_START]);
		EXPECT_EQ(zones, s->kinds[KPROF_MARK_ZONE_END]);
	}
}

TEST_F_TIMEOUT(cap, op_records_name_ops, 120)
{
	ASSERT_EQ(0, run_ops(self, 0));
	kt_analyse(&self->recs, &self->info, self->ops, NOPS, self->seen);
	for (int i = 0; i < NOPS; i++) {
		const struct kprof_rec_op *op = self->seen[i].op;

		ASSERT_EQ(1, self->seen[i].op_recs) TH_LOG("op %d", i);
		EXPECT_EQ(sizeof(*op), op->hdr.size);
		EXPECT_STREQ(self->ops[i].name, op->name);
		EXPECT_TRUE(kt_str_clean(op->name, sizeof(op->name)));
		EXPECT_EQ(self->ops[i].first_core, op->first_core);
		EXPECT_EQ(self->ops[i].num_cores, op->num_cores);
		EXPECT_LE(self->info.clock_min_mhz, op->clock_mhz);
		EXPECT_GE(self->info.clock_max_mhz, op->clock_mhz);
		EXPECT_EQ(0, op->reserved);
		/* Dispatch comes before the op's first marker. */
		EXPECT_LE(op->timestamp, self->seen[i].min_fw_start);
	}
}

/* One COUNTERS record per core per op, carrying the selected counters. */
TEST_F_TIMEOUT(cap, counters_records_follow_mask, 120)
{
	uint64_t mask = 0x5;	/* counters 0 and 2 */
	uint64_t want;

	ASSERT_LE(3, self->info.num_counters);
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, mask));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, self->ops, NOPS, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	want = kt_ops_markers(&self->info, self->ops, NOPS);
	kt_drain_until(&self->ring, &self->recs, kt_pred_marker_count, &want, 3000);
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&self->ring, &self->recs, 3000));
	kt_analyse(&self->recs, &self->info, self->ops, NOPS, self->seen);
	for (int i = 0; i < NOPS; i++) {
		EXPECT_EQ(self->ops[i].num_cores, self->seen[i].counter_recs)
			TH_LOG("op %d", i);
	}
	kt_recs_for_each(h, &self->recs) {
		const struct kprof_rec_counters *c = (const void *)h;

		if (h->type != KPROF_REC_COUNTERS)
			continue;
		EXPECT_EQ(mask, c->counter_mask);
		EXPECT_EQ(sizeof(*c) + 2 * sizeof(__u64), c->hdr.size);
		EXPECT_GT(self->info.num_cores, c->core);
		EXPECT_EQ(0, c->reserved);
	}
}

/* busy_cycles (counter 0) is non-zero for every core an op used. */
TEST_F_TIMEOUT(cap, counters_values_nonzero, 120)
{
	int n = 0;

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0x1));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, self->ops, 4, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	kt_sleep_ms(200);
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&self->ring, &self->recs, 3000));
	kt_recs_for_each(h, &self->recs) {
		const struct kprof_rec_counters *c = (const void *)h;

		if (h->type != KPROF_REC_COUNTERS)
			continue;
		EXPECT_LT(0, c->values[0]);
		n++;
	}
	EXPECT_LT(0, n);
}

/* Index of the named counter, or -1. */
static int counter_index(int fd, const char *name)
{
	struct kprof_counter_info c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	if (kt_ioctl(fd, KPROF_IOC_COUNTERS, &c))
		return -1;
	for (unsigned int k = 0; k < c.num_counters; k++)
		if (!strcmp(c.desc[k].name, name))
			return (int)k;
	return -1;
}

/*
 * Counter values are the work launched: flops per core is the LAUNCH's
 * per-core flops, bytes read + written the per-core bytes; the live
 * block moves by exactly the sum of the records.
 */
TEST_F_TIMEOUT(cap, counters_exact_values, 120)
{
	int kf = counter_index(self->fd, "flops");
	int kr = counter_index(self->fd, "bytes_read");
	int kw = counter_index(self->fd, "bytes_written");
	const uint64_t flops = 3000000, bytes = 999999;
	size_t len = self->info.counter_block_size;
	const struct kprof_counter_block *b;
	uint64_t f0, f1, recs = 0;
	unsigned int nc;
	void *map;

	ASSERT_LE(0, kf);
	ASSERT_LE(0, kr);
	ASSERT_LE(0, kw);
	/* Mask: bit order is counter order, so values[] follow kf < kr < kw. */
	ASSERT_LT(kf, kr);
	ASSERT_LT(kr, kw);
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, KPROF_MMAP_COUNTERS);
	ASSERT_NE(MAP_FAILED, map);
	b = map;
	nc = b->num_counters;
	f0 = b->values[5 * nc + kf];
	ASSERT_EQ(0, kt_start(self->fd, 0, 0,
			      (1ULL << kf) | (1ULL << kr) | (1ULL << kw)));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	for (int i = 0; i < 6; i++)
		ASSERT_LT(0, kt_launch(self->simfd, "cnt", 4, 3, flops, bytes, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	kt_sleep_ms(200);
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&self->ring, &self->recs, 3000));
	f1 = b->values[5 * nc + kf];
	kt_recs_for_each(h, &self->recs) {
		const struct kprof_rec_counters *c = (const void *)h;

		if (h->type != KPROF_REC_COUNTERS)
			continue;
		recs++;
		EXPECT_LE(4, c->core);
		EXPECT_GE(6, c->core);
		EXPECT_EQ(flops, c->values[0]);
		EXPECT_EQ(bytes, c->values[1] + c->values[2]);
	}
	EXPECT_EQ(6 * 3, recs);
	/* Core 5 ran all six ops. */
	EXPECT_EQ(6 * flops, f1 - f0);
	munmap(map, len);
}

TEST_F(cap, stop_drain_eof)
{
	char buf[4096];
	const struct kprof_rec_state *last = NULL;
	ssize_t n;

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, self->ops, 4, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&self->ring, &self->recs, 3000));
	EXPECT_EQ(KPROF_STATE_STOPPED, self->ring.ctrl->state);
	kt_recs_for_each(h, &self->recs)
		if (h->type == KPROF_REC_STATE)
			last = (const void *)h;
	ASSERT_NE(NULL, last);
	/* Only a closing SYNC sample may follow the stop record. */
	for (const struct kprof_rec_hdr *h = (const void *)((const uint8_t *)last +
							     last->hdr.size);
	     (const uint8_t *)h < self->recs.buf + self->recs.len;
	     h = (const void *)((const uint8_t *)h + h->size)) {
		EXPECT_EQ(KPROF_REC_SYNC, h->type);
	}
	EXPECT_EQ(KPROF_STATE_STOPPED, last->state);
	EXPECT_EQ(KPROF_REASON_STOP, last->reason);
	/* Drained and stopped: read() says EOF, twice. */
	n = read(self->fd, buf, sizeof(buf));
	EXPECT_EQ(0, n);
	n = read(self->fd, buf, sizeof(buf));
	EXPECT_EQ(0, n);
	/* A stopped capture cannot be paused or stopped again. */
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_PAUSE, NULL));
	EXPECT_EQ(-EINVAL, kt_stop(self->fd));
}

/* read() hands out whole records and consumes exactly what it returns. */
TEST_F(cap, read_returns_whole_records)
{
	uint8_t buf[8192];
	uint64_t got = 0, want, recs = 0;
	ssize_t n;

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, self->ops, 8, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	want = kt_ops_markers(&self->info, self->ops, 8);
	ASSERT_EQ(0, kt_stop(self->fd));
	/* Odd-sized reads: never a split record. */
	while ((n = read(self->fd, buf, 1000)) > 0) {
		ssize_t off = 0;

		while (off < n) {
			const struct kprof_rec_hdr *h = (const void *)(buf + off);

			ASSERT_LE(8, h->size);
			ASSERT_EQ(0, h->size % 8);
			ASSERT_GE(n - off, h->size);
			got += h->type == KPROF_REC_MARKER;
			recs += h->type != KPROF_REC_PAD;
			off += h->size;
		}
		ASSERT_EQ(n, off);
	}
	ASSERT_EQ(0, n);
	EXPECT_EQ(want, got);
	/* read() moved the shared tail to the head. */
	EXPECT_EQ(kt_ring_head(&self->ring), self->ring.ctrl->tail);
	EXPECT_EQ(self->ring.ctrl->records, recs);
}

struct reader {
	int fd;
	uint64_t markers, lost, bad;
};

static void *read_all(void *arg)
{
	struct reader *rd = arg;
	uint8_t buf[4096];
	ssize_t n;

	while ((n = read(rd->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			const struct kprof_rec_hdr *h = (const void *)(buf + off);

			if (h->size < 8 || h->size % 8 || h->size > n - off) {
				rd->bad++;
				break;
			}
			rd->markers += h->type == KPROF_REC_MARKER;
			/* core 0xffff counts OP/COUNTERS records, not markers. */
			if (h->type == KPROF_REC_LOST &&
			    ((const struct kprof_rec_lost *)h)->core != 0xffff)
				rd->lost += ((const struct kprof_rec_lost *)h)->count;
			off += h->size;
		}
	}
	if (n < 0)
		rd->bad++;
	return NULL;
}

/* Two threads reading one capture share it: no record twice, none torn. */
TEST_F_TIMEOUT(cap, concurrent_readers, 120)
{
	struct reader a = { 0 }, b = { 0 };
	pthread_t ta, tb;
	uint64_t want;

	ASSERT_EQ(0, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN, 0));
	a.fd = self->fd;
	b.fd = dup(self->fd);
	ASSERT_LE(0, b.fd);
	ASSERT_EQ(0, pthread_create(&ta, NULL, read_all, &a));
	ASSERT_EQ(0, pthread_create(&tb, NULL, read_all, &b));
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, self->ops, NOPS, 2));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	want = kt_ops_markers(&self->info, self->ops, NOPS);
	kt_sleep_ms(500);
	ASSERT_EQ(0, kt_stop(self->fd));
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	close(b.fd);
	EXPECT_EQ(0, a.bad);
	EXPECT_EQ(0, b.bad);
	/* A small ring may overflow; then LOST says so, exactly. */
	EXPECT_EQ(want, a.markers + b.markers + a.lost + b.lost)
		TH_LOG("a %llu b %llu lost %llu", (unsigned long long)a.markers,
		       (unsigned long long)b.markers,
		       (unsigned long long)(a.lost + b.lost));
}

TEST_F(cap, read_buffer_too_small)
{
	char buf[4];
	void *volatile nullp = NULL;	/* hidden from -Wnonnull */

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_stop(self->fd));
	/* There is at least the start and stop record; 4 bytes hold none. */
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, read(self->fd, nullp, 4096));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(cap, read_without_capture)
{
	char buf[64];

	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(cap, nonblocking_read_eagain)
{
	char buf[4096];
	int fl;

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	/* Take the start record out first. */
	ASSERT_LT(0, read(self->fd, buf, sizeof(buf)));
	fl = fcntl(self->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, fl | O_NONBLOCK));
	/* SYNC records come every 100 ms: read until one is not there. */
	for (int i = 0; i < 50; i++) {
		ssize_t n = read(self->fd, buf, sizeof(buf));

		if (n < 0) {
			EXPECT_EQ(EAGAIN, errno);
			return;
		}
	}
	ASSERT_TRUE(false) TH_LOG("never EAGAIN");
}

struct launcher {
	int simfd;
	unsigned int delay_ms;
};

static void *launch_later(void *arg)
{
	struct launcher *l = arg;

	kt_sleep_ms(l->delay_ms);
	kt_launch(l->simfd, "late", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
	return NULL;
}

/* poll(): quiet with nothing to read, POLLIN soon after markers arrive. */
TEST_F_TIMEOUT(cap, poll_wakes_on_markers, 60)
{
	struct kprof_capture_params p;
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct launcher l = { .simfd = self->simfd, .delay_ms = 300 };
	pthread_t th;
	uint64_t t0, dt;
	char buf[65536];
	int quiet, tries = 0;

	/* Quiet stream: no SYNC for 10 s, no DVFS CLOCK records (locked). */
	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_BASE, 0));
	kt_params_init(&p);
	p.sync_period_ms = 10000;
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_START, &p));
	/* Start records may trickle in; then 300 ms with no wake-up. */
	for (quiet = 0; !quiet && tries++ < 20;) {
		quiet = poll(&pfd, 1, 300) == 0;
		if (!quiet)
			ASSERT_LT(0, read(self->fd, buf, sizeof(buf)));
	}
	ASSERT_TRUE(quiet) TH_LOG("records kept coming on an idle, locked device");
	/* t0 first: the launch then comes at least delay_ms after it. */
	t0 = kt_now_ns();
	ASSERT_EQ(0, pthread_create(&th, NULL, launch_later, &l));
	ASSERT_EQ(1, poll(&pfd, 1, 5000));
	dt = kt_now_ns() - t0;
	EXPECT_TRUE(pfd.revents & POLLIN);
	/*
	 * Woken by the op: not before the launch, and poll() returned 1, so
	 * not by its own timeout (the sync period is 10 s, past it).
	 */
	EXPECT_LE(l.delay_ms * 1000000ULL, dt);
	pthread_join(th, NULL);
	kt_clock_set(self->fd, KPROF_CLOCK_OP_RESET, 0);
}

/* After stop and drain, poll reports POLLHUP (or readable EOF) at once. */
TEST_F(cap, poll_after_stop)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	char buf[65536];

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_stop(self->fd));
	while (read(self->fd, buf, sizeof(buf)) > 0)
		;
	ASSERT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_TRUE(pfd.revents & (POLLHUP | POLLIN));
}

static bool has_state(const struct kt_recs *rs, uint32_t state, uint32_t reason)
{
	kt_recs_for_each(h, rs) {
		const struct kprof_rec_state *s = (const void *)h;

		if (h->type == KPROF_REC_STATE && s->state == state &&
		    s->reason == reason)
			return true;
	}
	return false;
}

static unsigned int count_state(const struct kt_recs *rs, uint32_t reason)
{
	unsigned int n = 0;

	kt_recs_for_each(h, rs)
		n += h->type == KPROF_REC_STATE &&
		     ((const struct kprof_rec_state *)h)->reason == reason;
	return n;
}

static bool pred_paused(const struct kt_recs *rs, void *arg)
{
	(void)arg;
	return has_state(rs, KPROF_STATE_PAUSED, KPROF_REASON_PAUSE);
}

/* Ops run while paused leave no markers; ops after resume do. */
TEST_F_TIMEOUT(cap, pause_resume, 120)
{
	struct kt_op *before = &self->ops[0], *during = &self->ops[4],
		     *after = &self->ops[8];
	uint64_t want;

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, before, 4, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	want = kt_ops_markers(&self->info, before, 4);
	ASSERT_TRUE(kt_drain_until(&self->ring, &self->recs,
				   kt_pred_marker_count, &want, 3000));

	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_PAUSE, NULL));
	/* Pausing a paused capture is a no-op (and adds no record). */
	EXPECT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_PAUSE, NULL));
	ASSERT_TRUE(kt_drain_until(&self->ring, &self->recs, pred_paused,
				   NULL, 1000));
	EXPECT_EQ(KPROF_STATE_PAUSED, self->ring.ctrl->state);
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, during, 4, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	kt_drain_until(&self->ring, &self->recs, NULL, NULL, 300);

	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_RESUME, NULL));
	EXPECT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_RESUME, NULL));
	EXPECT_EQ(KPROF_STATE_RUNNING, self->ring.ctrl->state);
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, after, 4, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&self->ring, &self->recs, 3000));
	ASSERT_FALSE(self->recs.malformed) TH_LOG("%s", self->recs.why);

	kt_analyse(&self->recs, &self->info, self->ops, 12, self->seen);
	for (int i = 0; i < 12; i++) {
		uint64_t exp = (i >= 4 && i < 8) ? 0 :
			       kt_op_markers(&self->info, &self->ops[i]);

		EXPECT_EQ(exp, self->seen[i].markers) TH_LOG("op %d", i);
	}
	EXPECT_TRUE(has_state(&self->recs, KPROF_STATE_RUNNING,
			      KPROF_REASON_RESUME));
	EXPECT_EQ(1, count_state(&self->recs, KPROF_REASON_PAUSE));
	EXPECT_EQ(1, count_state(&self->recs, KPROF_REASON_RESUME));
	/* Paused is not lost: nothing reported as dropped. */
	EXPECT_EQ(0, self->ring.ctrl->lost_markers);
}

TEST_F_TIMEOUT(cap, start_paused, 120)
{
	uint64_t want;

	ASSERT_EQ(0, kt_start(self->fd, KPROF_CAPTURE_PAUSED, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&self->ring, self->fd));
	EXPECT_EQ(KPROF_STATE_PAUSED, self->ring.ctrl->state);
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, self->ops, 4, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	kt_drain_until(&self->ring, &self->recs, NULL, NULL, 300);
	EXPECT_EQ(0, kt_recs_count(&self->recs, KPROF_REC_MARKER));
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_RESUME, NULL));
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, &self->ops[4], 4, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	want = kt_ops_markers(&self->info, &self->ops[4], 4);
	EXPECT_TRUE(kt_drain_until(&self->ring, &self->recs,
				   kt_pred_marker_count, &want, 3000));
	EXPECT_EQ(want, kt_recs_count(&self->recs, KPROF_REC_MARKER));
}

/* Records are framed, typed and sized as the uAPI says. */
TEST_F_TIMEOUT(cap, record_framing, 120)
{
	ASSERT_EQ(0, run_ops(self, 2));
	ASSERT_FALSE(self->recs.malformed) TH_LOG("%s", self->recs.why);
	kt_recs_for_each(h, &self->recs) {
		EXPECT_LE(KPROF_REC_MARKER, h->type);
		EXPECT_GE(KPROF_REC_MAX, h->type);
		if (h->type == KPROF_REC_MARKER)
			EXPECT_EQ(sizeof(struct kprof_rec_marker), h->size);
		if (h->type == KPROF_REC_SYNC)
			EXPECT_EQ(sizeof(struct kprof_rec_sync), h->size);
		if (h->type == KPROF_REC_STATE)
			EXPECT_EQ(sizeof(struct kprof_rec_state), h->size);
		if (h->type == KPROF_REC_CLOCK)
			EXPECT_EQ(sizeof(struct kprof_rec_clock), h->size);
		if (h->type == KPROF_REC_OP)
			EXPECT_EQ(sizeof(struct kprof_rec_op), h->size);
		/* Nothing corrupt unless the corrupt knob was used. */
		EXPECT_EQ(0, h->flags);
	}
	EXPECT_EQ(self->recs.count, self->ring.ctrl->records);
}

TEST_HARNESS_MAIN
