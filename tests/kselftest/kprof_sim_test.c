// SPDX-License-Identifier: GPL-2.0
/*
 * The sim backend: vendor LAUNCH/SYNC semantics, ground truth in debugfs
 * against the markers kprof delivered, new_device/del_device (bad input,
 * topology), and removing a device in the middle of a capture.
 */
#include <inttypes.h>
#include <pthread.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define NS_5S		5000000000ULL
#define NEW_DEV		"/sys/bus/kprof_sim/new_device"
#define DEL_DEV		"/sys/bus/kprof_sim/del_device"
/* Sim ids for devices this file creates; sim_devices=1 made sim0. */
#define TEST_SIM_ID	42

/* ------------------------------------------------------------------ */
/* Ground truth                                                        */
/* ------------------------------------------------------------------ */

struct truth {
	uint64_t seq;
	char name[KPROF_SIM_NAME_LEN];
	uint32_t first_core, num_cores, mhz;
	uint64_t launch_ns, start_ns, end_ns;
	uint64_t fw_start, fw_end, kernel_start, kernel_end;
};

/* Finds op seq in debugfs truth; 0 if found, -ENOENT if not. */
static int truth_find(int sim, uint64_t seq, struct truth *t)
{
	char path[256], line[512];
	FILE *f;
	int ret = -ENOENT;

	kt_sim_path(path, sizeof(path), sim, "truth");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* Header line names the columns; data lines follow. */
	if (!fgets(line, sizeof(line), f) || strncmp(line, "seq name ", 9)) {
		fclose(f);
		return -EPROTO;
	}
	while (fgets(line, sizeof(line), f)) {
		memset(t, 0, sizeof(*t));
		if (sscanf(line, "%" SCNu64 " %31s %u %u %u %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %" SCNu64, &t->seq, t->name, &t->first_core,
			   &t->num_cores, &t->mhz, &t->launch_ns, &t->start_ns,
			   &t->end_ns, &t->fw_start, &t->fw_end,
			   &t->kernel_start, &t->kernel_end) != 12) {
			ret = -EPROTO;
			break;
		}
		if (t->seq == seq) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

FIXTURE(sim) {
	int fd, simfd;
	struct kprof_device_info info;
};

FIXTURE_SETUP(sim)
{
	ASSERT_TRUE(kt_debugfs_ready());
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd);
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
}

FIXTURE_TEARDOWN(sim)
{
	char id[16];

	kt_sim_knob_set(0, "marker_storm", 0);
	kt_stop(self->fd);
	kt_sync_all(self->simfd, NS_5S);
	close(self->simfd);
	close(self->fd);
	/* A test that failed half-way may have left its device behind. */
	snprintf(id, sizeof(id), "%d", TEST_SIM_ID);
	kt_write_file(DEL_DEV, id);
}

TEST_F(sim, launch_seq_increments)
{
	int64_t a, b, c;

	a = kt_launch(self->simfd, "s", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
	b = kt_launch(self->simfd, "s", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
	c = kt_launch(self->simfd, "s", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
	ASSERT_LT(0, a);
	EXPECT_EQ(a + 1, b);
	EXPECT_EQ(b + 1, c);
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
}

/* ~0.5 s of modelled compute: a sync with a 20 ms timeout times out. */
TEST_F_TIMEOUT(sim, sync_timeout, 60)
{
	struct kprof_sim_sync s;
	int64_t seq;

	seq = kt_launch(self->simfd, "long", 0, 1, 1ULL << 40, 0, 0);
	ASSERT_LT(0, seq);
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.seq = (uint64_t)seq;
	s.timeout_ns = 20000000ULL;
	EXPECT_EQ(-ETIMEDOUT, kt_ioctl(self->simfd, KPROF_SIM_IOC_SYNC, &s));
	EXPECT_GT((uint64_t)seq, s.completed_seq);
	s.timeout_ns = 0;
	ASSERT_EQ(0, kt_ioctl(self->simfd, KPROF_SIM_IOC_SYNC, &s));
	EXPECT_LE((uint64_t)seq, s.completed_seq);
}

TEST_F(sim, sync_future_seq_einval)
{
	struct kprof_sim_sync s;
	int64_t seq;

	seq = kt_launch(self->simfd, "s", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
	ASSERT_LT(0, seq);
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.seq = (uint64_t)seq + 1000;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->simfd, KPROF_SIM_IOC_SYNC, &s));
}

/* Ground truth lists every op with what was launched and sane times. */
TEST_F(sim, truth_lists_ops)
{
	struct kt_op ops[6];
	struct truth t;

	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, ops, 6, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	for (int i = 0; i < 6; i++) {
		ASSERT_EQ(0, truth_find(0, ops[i].seq, &t)) TH_LOG("op %d", i);
		EXPECT_STREQ(ops[i].name, t.name);
		EXPECT_EQ(ops[i].first_core, t.first_core);
		EXPECT_EQ(ops[i].num_cores, t.num_cores);
		EXPECT_LT(t.launch_ns, t.start_ns);
		EXPECT_LT(t.start_ns, t.end_ns);
		EXPECT_LE(t.fw_start, t.kernel_start);
		EXPECT_LT(t.kernel_start, t.kernel_end);
		EXPECT_LE(t.kernel_end, t.fw_end);
		EXPECT_LE(self->info.clock_min_mhz, t.mhz);
		EXPECT_GE(self->info.clock_max_mhz, t.mhz);
	}
}

/*
 * The markers kprof delivered say exactly what the device did: first FW
 * start, last FW end, first kernel start and last kernel end of every op
 * equal the sim's ground truth to the reference-clock cycle.
 */
TEST_F_TIMEOUT(sim, markers_equal_truth, 120)
{
	struct kt_ring r;
	struct kt_recs rs = { 0 };
	struct kt_op ops[16];
	struct kt_op_seen seen[16];
	struct truth t;
	uint64_t want;

	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&r, self->fd));
	ASSERT_EQ(0, kt_launch_ops(self->simfd, &self->info, ops, 16, 2));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	want = kt_ops_markers(&self->info, ops, 16);
	ASSERT_TRUE(kt_drain_until(&r, &rs, kt_pred_marker_count, &want, 5000));
	kt_analyse(&rs, &self->info, ops, 16, seen);
	for (int i = 0; i < 16; i++) {
		ASSERT_EQ(0, truth_find(0, ops[i].seq, &t));
		EXPECT_EQ(kt_op_markers(&self->info, &ops[i]), seen[i].markers);
		EXPECT_EQ(t.fw_start, seen[i].min_fw_start) TH_LOG("op %d", i);
		EXPECT_EQ(t.fw_end, seen[i].max_fw_end) TH_LOG("op %d", i);
		EXPECT_EQ(t.kernel_start, seen[i].min_kernel_start);
		EXPECT_EQ(t.kernel_end, seen[i].max_kernel_end);
		ASSERT_NE(NULL, seen[i].op);
		EXPECT_EQ(t.mhz, seen[i].op->clock_mhz);
		EXPECT_EQ(t.fw_start, seen[i].op->timestamp);
	}
	kt_ring_unmap(&r);
	kt_recs_free(&rs);
}

/* ------------------------------------------------------------------ */
/* new_device / del_device                                             */
/* ------------------------------------------------------------------ */

/*
 * The marker storm (bench/drain's load, written by its own fast path into
 * L1): per RISC, ZONE_START and ZONE_END markers of op 0 alternate across
 * several wraps of the L1 ring, nothing else is in them, and kprof
 * delivers exactly as many as the sim says it generated, none lost.
 */
struct storm_check {
	unsigned int cores, riscs;
	uint8_t *next;		/* per ring: the kind expected next */
	uint64_t *count;	/* per ring: markers seen */
	uint64_t markers, lost, bad;
	char why[160];
};

static void storm_scan(struct storm_check *c, struct kt_recs *rs)
{
	kt_recs_for_each(h, rs) {
		const struct kprof_rec_marker *m = (const void *)h;
		unsigned int r;

		if (h->type == KPROF_REC_LOST) {
			c->lost += ((const struct kprof_rec_lost *)h)->count;
			continue;
		}
		if (h->type != KPROF_REC_MARKER)
			continue;
		c->markers++;
		r = m->core * c->riscs + m->risc;
		if (m->core >= c->cores || m->risc >= c->riscs ||
		    m->kind != c->next[r] || m->op_seq || m->hdr.flags ||
		    m->zone_id != UINT32_MAX) {
			if (!c->bad++)
				snprintf(c->why, sizeof(c->why),
					 "marker %" PRIu64
					 ": core %u risc %u kind %u (expected %u) op %u flags %#x zone %#x",
					 c->markers, m->core, m->risc, m->kind,
					 r < c->cores * c->riscs ? c->next[r] : 0,
					 m->op_seq, m->hdr.flags, m->zone_id);
			continue;
		}
		c->count[r]++;
		c->next[r] = m->kind == KPROF_MARK_ZONE_START ?
			     KPROF_MARK_ZONE_END : KPROF_MARK_ZONE_START;
	}
	/* Checked: the next drain reuses the buffer. */
	rs->len = 0;
	rs->count = 0;
}

TEST_F_TIMEOUT(sim, storm_markers_alternate, 120)
{
	unsigned int nr = self->info.num_cores * self->info.riscs_per_core, r;
	/* Three L1 rings' worth per RISC: each ring wraps at least twice. */
	uint64_t want = 3ULL * self->info.l1_ring_entries * nr;
	struct storm_check c = {
		.cores = self->info.num_cores,
		.riscs = self->info.riscs_per_core,
	};
	struct kt_recs recs = { 0 };
	struct kt_ring ring;
	uint64_t before, now, end;

	c.next = malloc(nr);
	c.count = calloc(nr, sizeof(*c.count));
	ASSERT_TRUE(c.next && c.count);
	memset(c.next, KPROF_MARK_ZONE_START, nr);
	ASSERT_EQ(0, kt_sim_stat(0, "storm_markers", &before));
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&ring, self->fd));
	/*
	 * 250k markers/s: each RISC's L1 ring then fills in about 3.5 s, so
	 * the drain may stall that long without a loss. At 1M/s (0.9 s) a
	 * VM on a host loaded 5x over its cores lost 158k markers.
	 */
	ASSERT_EQ(0, kt_sim_knob_set(0, "marker_storm", 250000));
	end = kt_now_ns() + 60 * 1000000000ULL;
	do {
		ASSERT_LE(0, kt_ring_drain(&ring, &recs)) TH_LOG("%s", recs.why);
		storm_scan(&c, &recs);
		ASSERT_EQ(0, kt_sim_stat(0, "storm_markers", &now));
		kt_sleep_ms(10);
	} while (now - before < want && kt_now_ns() < end);
	ASSERT_EQ(0, kt_sim_knob_set(0, "marker_storm", 0));
	/* After the write returns the exec thread generates no more. */
	ASSERT_EQ(0, kt_sim_stat(0, "storm_markers", &now));
	ASSERT_LE(want, now - before) TH_LOG("the storm made %" PRIu64 " markers in 60 s",
					     now - before);
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_TRUE(kt_drain_to_end(&ring, &recs, 10000)) TH_LOG("%s", recs.why);
	storm_scan(&c, &recs);
	EXPECT_EQ(0, c.bad) TH_LOG("%" PRIu64 " bad markers, first: %s", c.bad, c.why);
	EXPECT_EQ(0, c.lost);
	EXPECT_EQ(now - before, c.markers);
	for (r = 0; r < nr; r++)
		EXPECT_LT(2ULL * self->info.l1_ring_entries, c.count[r])
			TH_LOG("core %u risc %u: %" PRIu64 " markers", r / c.riscs,
			       r % c.riscs, c.count[r]);
	kt_ring_unmap(&ring);
	kt_recs_free(&recs);
	free(c.next);
	free(c.count);
}

TEST_F(sim, new_device_bad_input)
{
	static const char * const bad[] = {
		"\n", " ", "abc", "-1", "1 0", "1 257", "1 4 0", "1 4 9",
		"1 4 2 7", "1x", "99999999999", "1024",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, kt_write_file(NEW_DEV, bad[i]))
			TH_LOG("'%s'", bad[i]);
	}
	/* sim0 exists already. */
	EXPECT_EQ(-EEXIST, kt_write_file(NEW_DEV, "0"));
}

TEST_F(sim, del_device_bad_input)
{
	EXPECT_EQ(-EINVAL, kt_write_file(DEL_DEV, "\n"));
	EXPECT_EQ(-EINVAL, kt_write_file(DEL_DEV, "abc"));
	EXPECT_EQ(-EINVAL, kt_write_file(DEL_DEV, "0 1"));
	EXPECT_EQ(-ENOENT, kt_write_file(DEL_DEV, "1000"));
	/* sim0 still there. */
	EXPECT_EQ(0, kt_info(self->fd, &self->info));
}

TEST_F(sim, new_device_topology)
{
	struct kprof_device_info i;
	char path[64];
	int kid, fd;

	ASSERT_EQ(0, kt_sim_new(TEST_SIM_ID, 6, 3));
	kid = kt_kprof_id_of_sim(TEST_SIM_ID);
	ASSERT_LE(0, kid);
	fd = kt_open_dev(kid);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kt_info(fd, &i));
	EXPECT_EQ(kid, i.device_id);
	EXPECT_EQ(6, i.num_cores);
	EXPECT_EQ(6, i.grid_x * i.grid_y);
	EXPECT_EQ(3, i.riscs_per_core);
	EXPECT_STREQ("BRISC", i.risc_names[0]);
	snprintf(path, sizeof(path), "sim%d", TEST_SIM_ID);
	EXPECT_STREQ(path, i.name);
	close(fd);
	snprintf(path, sizeof(path), KT_SIMDEV_FMT, TEST_SIM_ID);
	EXPECT_EQ(0, access(path, F_OK));
	ASSERT_EQ(0, kt_sim_del(TEST_SIM_ID));
	EXPECT_EQ(-1, kt_kprof_id_of_sim(TEST_SIM_ID));
	/* The old node no longer opens a device. */
	fd = kt_open_dev(kid);
	EXPECT_GT(0, fd);
	/* Its debugfs directory went with it. */
	snprintf(path, sizeof(path), KT_SIM_DEBUGFS_FMT, TEST_SIM_ID);
	EXPECT_NE(0, access(path, F_OK));
}

struct blocked_reader {
	int fd;
	ssize_t ret;
	int err;
};

static void *block_in_read(void *arg)
{
	struct blocked_reader *b = arg;
	char buf[65536];

	/* Read until EOF or an error: the device goes away under us. */
	do {
		b->ret = read(b->fd, buf, sizeof(buf));
	} while (b->ret > 0);
	b->err = b->ret < 0 ? errno : 0;
	return NULL;
}

/*
 * del_device while a capture runs, ops are in flight and a reader is
 * blocked in read(): the reader gets EOF or ENODEV, the last record says
 * the device was removed, and every later call on the old fds is ENODEV.
 */
TEST_F_TIMEOUT(sim, del_device_during_capture, 120)
{
	struct blocked_reader b = { 0 };
	struct kt_ring r;
	struct kt_recs rs = { 0 };
	struct pollfd pfd;
	pthread_t th;
	int kid, fd, simfd, ret;
	char path[64];
	const struct kprof_rec_state *last = NULL;
	static uint8_t buf[1 << 16];
	ssize_t n;

	ASSERT_EQ(0, kt_sim_new(TEST_SIM_ID, 4, 5));
	kid = kt_kprof_id_of_sim(TEST_SIM_ID);
	ASSERT_LE(0, kid);
	fd = kt_open_dev(kid);
	ASSERT_LE(0, fd);
	snprintf(path, sizeof(path), KT_SIMDEV_FMT, TEST_SIM_ID);
	simfd = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, simfd);
	ASSERT_EQ(0, kt_start(fd, 0, 0, 0));
	ASSERT_EQ(0, kt_ring_map(&r, fd));
	for (int i = 0; i < 20; i++) {
		ASSERT_LT(0, kt_launch(simfd, "gone", 0, 0, 1ULL << 30,
				       1ULL << 20, 1));
	}
	/* A second reader (the mmap one) blocks in read() on a dup. */
	b.fd = dup(fd);
	ASSERT_EQ(0, pthread_create(&th, NULL, block_in_read, &b));
	kt_sleep_ms(200);

	ASSERT_EQ(0, kt_sim_del(TEST_SIM_ID));
	pthread_join(th, NULL);
	EXPECT_TRUE(b.ret == 0 || b.err == ENODEV)
		TH_LOG("read: %zd errno %d", b.ret, b.err);

	/*
	 * The mapping died with the device (kprof_remove_test); read()
	 * drains what is left, if the thread did not take it all.
	 */
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		kt_recs_add(&rs, buf, (size_t)n);
	EXPECT_EQ(0, n);
	kt_recs_for_each(h, &rs)
		if (h->type == KPROF_REC_STATE)
			last = (const void *)h;
	/* read() in the thread may have taken it; otherwise it is here. */
	if (last) {
		EXPECT_EQ(KPROF_STATE_GONE, last->state);
		EXPECT_EQ(KPROF_REASON_REMOVED, last->reason);
	}
	ret = kt_stop(fd);
	EXPECT_EQ(-ENODEV, ret);
	EXPECT_EQ(-ENODEV, kt_info(fd, &self->info));
	pfd.fd = fd;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_TRUE(pfd.revents & POLLHUP);
	/* The vendor fd is dead too. */
	EXPECT_EQ(-ENODEV, (int)kt_launch(simfd, "x", 0, 1, 1, 1, 0));
	EXPECT_EQ(-ENODEV, kt_sync_all(simfd, NS_5S));
	kt_ring_unmap(&r);
	kt_recs_free(&rs);
	close(b.fd);
	close(fd);
	close(simfd);
	/* sim0 is untouched. */
	EXPECT_EQ(0, kt_info(self->fd, &self->info));
}

/* A SYNC blocked on the vendor device when it goes away returns ENODEV. */
struct blocked_sync {
	int simfd;
	int ret;
};

static void *block_in_sync(void *arg)
{
	struct blocked_sync *b = arg;

	b->ret = kt_sync_all(b->simfd, 0);
	return NULL;
}

TEST_F_TIMEOUT(sim, del_device_wakes_sync, 60)
{
	struct blocked_sync b = { 0 };
	char path[64];
	pthread_t th;

	ASSERT_EQ(0, kt_sim_new(TEST_SIM_ID, 2, 1));
	snprintf(path, sizeof(path), KT_SIMDEV_FMT, TEST_SIM_ID);
	b.simfd = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, b.simfd);
	/* About 5 s of modelled work: the sync is still waiting at del. */
	for (int i = 0; i < 10; i++) {
		int64_t seq = kt_launch(b.simfd, "slow", 0, 0, 1ULL << 40, 0, 0);

		ASSERT_LT(0, seq);
	}
	ASSERT_EQ(0, pthread_create(&th, NULL, block_in_sync, &b));
	kt_sleep_ms(100);
	ASSERT_EQ(0, kt_sim_del(TEST_SIM_ID));
	pthread_join(th, NULL);
	EXPECT_EQ(-ENODEV, b.ret);
	close(b.simfd);
}

TEST_HARNESS_MAIN
