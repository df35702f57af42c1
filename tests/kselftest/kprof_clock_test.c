// SPDX-License-Identifier: GPL-2.0
/*
 * Clock control through CLOCK_SET / CLOCK_GET: lock at a frequency, base
 * and max, reset to the exact pre-first-lock state, CLOCK records in the
 * capture stream, and EPERM without CAP_SYS_ADMIN.
 */
#include "kprof_test_util.h"
#include "kprof_harness.h"

#define NS_5S	5000000000ULL

FIXTURE(clk) {
	int fd, simfd;
	struct kprof_device_info info;
	struct kprof_clock_state before;
};

FIXTURE_SETUP(clk)
{
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd);
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
	ASSERT_EQ(0, kt_clock_get(self->fd, &self->before));
	/* Tests start from an unlocked device with nothing saved. */
	ASSERT_EQ(0, self->before.flags) TH_LOG("clock left locked by an earlier test");
}

FIXTURE_TEARDOWN(clk)
{
	kt_stop(self->fd);
	kt_clock_set(self->fd, KPROF_CLOCK_OP_RESET, 0);
	kt_sync_all(self->simfd, NS_5S);
	close(self->simfd);
	close(self->fd);
}

/* A frequency strictly between min and base, unlikely to be current. */
static uint32_t pick_mhz(const struct kprof_device_info *i)
{
	return i->clock_min_mhz + (i->clock_base_mhz - i->clock_min_mhz) / 2;
}

TEST_F(clk, lock_mhz_state)
{
	struct kprof_clock_state s;
	struct kprof_device_info i;
	uint32_t f = pick_mhz(&self->info);

	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ, f));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(f, s.mhz);
	EXPECT_EQ(KPROF_CLOCK_LOCKED | KPROF_CLOCK_SAVED, s.flags);
	EXPECT_EQ(f, s.locked_mhz);
	EXPECT_EQ(0, s.saved_flags);	/* was unlocked */
	EXPECT_EQ(getpid(), s.locked_by_pid);
	ASSERT_EQ(0, kt_info(self->fd, &i));
	EXPECT_EQ(f, i.clock_mhz);
	EXPECT_TRUE(i.clock_flags & KPROF_CLOCK_LOCKED);
}

/* Locked means locked: no DVFS step under sustained load. */
TEST_F_TIMEOUT(clk, locked_clock_does_not_wander, 60)
{
	struct kprof_clock_state s;
	uint32_t f = pick_mhz(&self->info);
	uint64_t end;

	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ, f));
	end = kt_now_ns() + 500000000ULL;
	while (kt_now_ns() < end) {
		ASSERT_LT(0, kt_launch(self->simfd, "load", 0, 0, 1ULL << 24,
				       1ULL << 20, 0));
		ASSERT_EQ(0, kt_clock_get(self->fd, &s));
		ASSERT_EQ(f, s.mhz);
		kt_sleep_ms(10);
	}
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(f, s.mhz);
}

TEST_F(clk, lock_base_and_max)
{
	struct kprof_clock_state s;

	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_BASE, 0));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(self->info.clock_base_mhz, s.mhz);
	EXPECT_EQ(self->info.clock_base_mhz, s.locked_mhz);
	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MAX, 0));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(self->info.clock_max_mhz, s.mhz);
	EXPECT_EQ(self->info.clock_max_mhz, s.locked_mhz);
	/* Bounds are valid lock targets. */
	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ,
				  self->info.clock_min_mhz));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(self->info.clock_min_mhz, s.mhz);
}

/* Reset restores the pre-first-lock state, not the last lock. */
TEST_F(clk, reset_restores_exactly)
{
	struct kprof_clock_state s;
	struct kprof_device_info i;

	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ,
				  pick_mhz(&self->info)));
	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MAX, 0));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	/* The saved state is still the one before the first lock. */
	EXPECT_EQ(0, s.saved_flags);
	EXPECT_EQ(getpid(), s.locked_by_pid);
	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_RESET, 0));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(0, s.flags);
	EXPECT_EQ(0, s.locked_mhz);
	EXPECT_EQ(0, s.saved_flags);
	EXPECT_EQ(0, s.saved_mhz);
	EXPECT_EQ(0, s.locked_by_pid);
	ASSERT_EQ(0, kt_info(self->fd, &i));
	EXPECT_EQ(0, i.clock_flags);
}

/* Reset with nothing locked is a successful no-op. */
TEST_F(clk, reset_when_unlocked)
{
	struct kprof_clock_state s;

	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_RESET, 0));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(0, s.flags);
}

/* The lock belongs to the device, not to the fd that asked for it. */
TEST_F(clk, lock_survives_close)
{
	struct kprof_clock_state s;
	uint32_t f = pick_mhz(&self->info);
	int fd2 = kt_open_dev(0);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, kt_clock_set(fd2, KPROF_CLOCK_OP_LOCK_MHZ, f));
	close(fd2);
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(f, s.mhz);
	EXPECT_TRUE(s.flags & KPROF_CLOCK_LOCKED);
}

static int child_clock_set_nocaps(int fd, uint32_t op, uint32_t mhz)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		struct kprof_clock_state s;
		int ret;

		if (kt_drop_all_caps())
			_exit(100);
		/* Reading is for everyone who can open the node. */
		if (kt_clock_get(fd, &s))
			_exit(101);
		ret = kt_clock_set(fd, op, mhz);
		_exit(ret == -EPERM ? 0 : 102);
	}
	return kt_wait_child(pid);
}

TEST_F(clk, eperm_without_cap_sys_admin)
{
	struct kprof_clock_state s;

	EXPECT_EQ(0, child_clock_set_nocaps(self->fd, KPROF_CLOCK_OP_LOCK_MHZ,
					    pick_mhz(&self->info)));
	EXPECT_EQ(0, child_clock_set_nocaps(self->fd, KPROF_CLOCK_OP_LOCK_MAX, 0));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(0, s.flags);
	/* Nor may it undo someone else's lock. */
	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_BASE, 0));
	EXPECT_EQ(0, child_clock_set_nocaps(self->fd, KPROF_CLOCK_OP_RESET, 0));
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_TRUE(s.flags & KPROF_CLOCK_LOCKED);
}

/* The last CLOCK record of the stream so far. */
static const struct kprof_rec_clock *last_clock(const struct kt_recs *rs)
{
	const struct kprof_rec_clock *c = NULL;

	kt_recs_for_each(h, rs)
		if (h->type == KPROF_REC_CLOCK)
			c = (const void *)h;
	return c;
}

/* Lock and reset during a capture show up as CLOCK records. */
TEST_F_TIMEOUT(clk, clock_records_in_stream, 60)
{
	struct kt_ring r;
	struct kt_recs rs = { 0 };
	uint32_t f = pick_mhz(&self->info);
	const struct kprof_rec_clock *lock = NULL, *reset = NULL;

	/* Lock first so that DVFS does not add records of its own. */
	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MAX, 0));
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&r, self->fd));
	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ, f));
	kt_drain_until(&r, &rs, NULL, NULL, 500);
	lock = last_clock(&rs);
	ASSERT_NE(NULL, lock);
	EXPECT_EQ(sizeof(*lock), lock->hdr.size);
	EXPECT_EQ(f, lock->mhz);
	EXPECT_EQ(KPROF_CLOCK_LOCKED | KPROF_CLOCK_SAVED, lock->flags);
	EXPECT_LT(0, lock->host_ns);
	EXPECT_LT(0, lock->device_cycles);

	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_RESET, 0));
	kt_drain_until(&r, &rs, NULL, NULL, 500);
	reset = last_clock(&rs);
	ASSERT_NE(NULL, reset);
	ASSERT_NE(lock, reset);
	EXPECT_EQ(0, reset->flags & (KPROF_CLOCK_LOCKED | KPROF_CLOCK_SAVED));
	EXPECT_LE(lock->host_ns, reset->host_ns);
	EXPECT_LE(lock->device_cycles, reset->device_cycles);
	kt_ring_unmap(&r);
	kt_recs_free(&rs);
}

/* Ops report the clock they ran at: the locked one. */
TEST_F_TIMEOUT(clk, ops_run_at_locked_clock, 60)
{
	struct kt_ring r;
	struct kt_recs rs = { 0 };
	uint32_t f = pick_mhz(&self->info);
	size_t ops = 0;

	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ, f));
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&r, self->fd));
	for (int i = 0; i < 8; i++) {
		ASSERT_LT(0, kt_launch(self->simfd, "clk", 0, 2, KT_SMALL_FLOPS,
				       KT_SMALL_BYTES, 0));
	}
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	kt_sleep_ms(100);
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&r, &rs, 3000));
	kt_recs_for_each(h, &rs) {
		if (h->type != KPROF_REC_OP)
			continue;
		EXPECT_EQ(f, ((const struct kprof_rec_op *)h)->clock_mhz);
		ops++;
	}
	EXPECT_EQ(8, ops);
	kt_ring_unmap(&r);
	kt_recs_free(&rs);
}

/* Unlocked, the clock moves under load, and each step is in the stream. */
TEST_F_TIMEOUT(clk, unlocked_clock_wanders, 60)
{
	struct kt_ring r;
	struct kt_recs rs = { 0 };
	uint64_t end;
	size_t n = 0;

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&r, self->fd));
	end = kt_now_ns() + 1500000000ULL;
	while (kt_now_ns() < end) {
		ASSERT_LT(0, kt_launch(self->simfd, "heat", 0, 0, 1ULL << 26,
				       1ULL << 20, 0));
		kt_drain_until(&r, &rs, NULL, NULL, 20);
	}
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	kt_drain_until(&r, &rs, NULL, NULL, 200);
	kt_recs_for_each(h, &rs) {
		const struct kprof_rec_clock *c = (const void *)h;

		if (h->type != KPROF_REC_CLOCK)
			continue;
		n++;
		EXPECT_EQ(0, c->flags & KPROF_CLOCK_LOCKED);
		EXPECT_LE(self->info.clock_min_mhz, c->mhz);
		EXPECT_GE(self->info.clock_max_mhz, c->mhz);
	}
	/* Steps come every 20 ms; nine in ten move the clock. */
	EXPECT_LE(5, n);
	kt_ring_unmap(&r);
	kt_recs_free(&rs);
}

TEST_HARNESS_MAIN
