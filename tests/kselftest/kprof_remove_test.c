// SPDX-License-Identifier: GPL-2.0
/*
 * Device removal with live mappings: once the backend unregisters, no user
 * mapping keeps the device's memory: touching the ring or the counter
 * block gets SIGBUS. What was captured can still be drained with read(),
 * and every ring page comes back (debugfs kprof/pages) once the fds are
 * closed, captures stopped or not. And ioctls racing removal see the
 * device whole or ENODEV, never freed memory (the debug lane's KASAN
 * runs the same test); the core's debugfs knob test_info_delay_ms holds
 * INFO open across a removal. Warnings from what outlives the device name
 * it (test_bad_record has read() meet a malformed record).
 */
#include <pthread.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define RM_SIM_ID	9
#define NS_5S		5000000000ULL
#define KNOB_INFO_DELAY	KT_DEBUGFS_ROOT "/kprof/test_info_delay_ms"
#define INFO_DELAY_MS	"4000"
#define KNOB_BAD_RECORD	KT_DEBUGFS_ROOT "/kprof/test_bad_record"

FIXTURE(rm) {
	int kid, simfd;
	uint64_t pages0;
	bool removed;
};

FIXTURE_SETUP(rm)
{
	char path[64];

	ASSERT_TRUE(kt_debugfs_ready());
	ASSERT_EQ(0, kt_read_u64(KT_PAGES_FILE, &self->pages0));
	ASSERT_EQ(0, kt_sim_new(RM_SIM_ID, 4, 2));
	self->kid = kt_kprof_id_of_sim(RM_SIM_ID);
	ASSERT_LE(0, self->kid);
	snprintf(path, sizeof(path), KT_SIMDEV_FMT, RM_SIM_ID);
	self->simfd = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->simfd);
}

FIXTURE_TEARDOWN(rm)
{
	if (self->simfd >= 0)
		close(self->simfd);
	kt_write_file(KNOB_INFO_DELAY, "0");
	kt_write_file(KNOB_BAD_RECORD, "0");
	if (!self->removed)
		kt_sim_del(RM_SIM_ID);
}

/* Ops run to completion, so the ring holds OP, COUNTERS and markers. */
static int some_ops(int simfd)
{
	for (int i = 0; i < 4; i++)
		if (kt_launch(simfd, "rm", 0, 4, KT_SMALL_FLOPS,
			      KT_SMALL_BYTES, 1) < 0)
			return -1;
	return kt_sync_all(simfd, NS_5S);
}

TEST_F_TIMEOUT(rm, mappings_die_with_device, 120)
{
	size_t pg = KT_PAGE_SIZE, rlen = pg + 4 * KPROF_RING_SIZE_MIN;
	struct kprof_device_info info;
	const struct kprof_rec_state *last = NULL;
	uint8_t *stopped, *live, *cnt, *buf;
	uint64_t pages, pos;
	ssize_t n, total = 0;
	int fa, fb;

	fa = kt_open_dev(self->kid);
	fb = kt_open_dev(self->kid);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, kt_info(fa, &info));
	/* fa: a stopped capture, still mapped; fb: a running one. */
	ASSERT_EQ(0, kt_start(fa, 0, 4 * KPROF_RING_SIZE_MIN, 0));
	ASSERT_EQ(0, some_ops(self->simfd));
	ASSERT_EQ(0, kt_stop(fa));
	stopped = mmap(NULL, rlen, PROT_READ, MAP_SHARED, fa, KPROF_MMAP_RING);
	ASSERT_NE(MAP_FAILED, stopped);
	/* The default size: the ring the device would cache. */
	ASSERT_EQ(0, kt_start(fb, 0, 0, 0));
	ASSERT_EQ(0, some_ops(self->simfd));
	live = mmap(NULL, rlen, PROT_READ, MAP_SHARED, fb, KPROF_MMAP_RING);
	ASSERT_NE(MAP_FAILED, live);
	cnt = mmap(NULL, info.counter_block_size, PROT_READ, MAP_SHARED, fb,
		   KPROF_MMAP_COUNTERS);
	ASSERT_NE(MAP_FAILED, cnt);
	/* Live and readable before removal. */
	EXPECT_EQ(0, kt_sigbus_on_read(stopped + pg));
	EXPECT_EQ(0, kt_sigbus_on_read(live));
	EXPECT_EQ(0, kt_sigbus_on_read(cnt));
	ASSERT_EQ(0, kt_read_u64(KT_PAGES_FILE, &pages));
	EXPECT_LT(self->pages0, pages);

	ASSERT_EQ(0, kt_sim_del(RM_SIM_ID));
	self->removed = true;

	/* Pages touched before and pages never touched alike. */
	EXPECT_EQ(1, kt_sigbus_on_read(stopped));
	EXPECT_EQ(1, kt_sigbus_on_read(stopped + pg));
	EXPECT_EQ(1, kt_sigbus_on_read(live));
	EXPECT_EQ(1, kt_sigbus_on_read(live + rlen - pg));
	EXPECT_EQ(1, kt_sigbus_on_read(cnt));
	/* No new mapping of a removed device. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_READ, MAP_SHARED, fb,
				   KPROF_MMAP_RING));

	/* read() still drains what was captured, to the removal record. */
	buf = malloc(1 << 20);
	ASSERT_NE(NULL, buf);
	while ((n = read(fb, buf + total, (1 << 20) - total)) > 0)
		total += n;
	EXPECT_EQ(0, n) TH_LOG("read: %s", strerror(errno));
	ASSERT_LT(0, total);
	for (ssize_t off = 0; off < total;) {
		const struct kprof_rec_hdr *h = (const void *)(buf + off);

		ASSERT_LE(8, h->size);
		if (h->type == KPROF_REC_STATE)
			last = (const void *)h;
		off += h->size;
	}
	ASSERT_NE(NULL, last);
	EXPECT_EQ(KPROF_STATE_GONE, last->state);
	EXPECT_EQ(KPROF_REASON_REMOVED, last->reason);
	free(buf);
	/* RING_CONSUME still checks the position: not ENODEV. */
	pos = 0;
	EXPECT_EQ(-EINVAL, kt_ioctl(fb, KPROF_IOC_RING_CONSUME, &pos));

	munmap(cnt, info.counter_block_size);
	munmap(live, rlen);
	munmap(stopped, rlen);
	close(fa);
	close(fb);
	/* Every page of both rings and of the cache is back. */
	ASSERT_EQ(0, kt_read_u64(KT_PAGES_FILE, &pages));
	EXPECT_EQ(self->pages0, pages);
}

/* Captures and removal without any mapping give every page back too. */
TEST_F_TIMEOUT(rm, pages_return, 120)
{
	uint64_t pages;
	int fd = kt_open_dev(self->kid);

	ASSERT_LE(0, fd);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, kt_start(fd, 0, i == 1 ? 0 : KPROF_RING_SIZE_MIN,
				      0));
		ASSERT_EQ(0, some_ops(self->simfd));
		ASSERT_EQ(0, kt_stop(fd));
	}
	ASSERT_EQ(0, kt_start(fd, 0, 0, 0));
	ASSERT_EQ(0, kt_sim_del(RM_SIM_ID));
	self->removed = true;
	close(fd);
	ASSERT_EQ(0, kt_read_u64(KT_PAGES_FILE, &pages));
	EXPECT_EQ(self->pages0, pages);
}

/* INFO in a loop against devices that come and go. */
struct info_race {
	volatile int kid;	/* kprofN of the current device, -1: none */
	volatile int done;
	unsigned long infos, bad;
	char why[128];
};

static void *info_loop(void *arg)
{
	struct info_race *r = arg;
	struct kprof_device_info info;
	char want[32];
	int kid, fd, ret;

	snprintf(want, sizeof(want), "sim%u", RM_SIM_ID);
	while (!r->done) {
		kid = r->kid;
		fd = kid < 0 ? -1 : kt_open_dev(kid);
		if (fd < 0)
			continue;
		for (int i = 0; i < 1000; i++) {
			ret = kt_info(fd, &info);
			if (ret == -ENODEV)
				break;
			r->infos++;
			if ((ret || strcmp(info.name, want)) && !r->bad++)
				snprintf(r->why, sizeof(r->why),
					 "INFO %d, name '%.32s'", ret,
					 info.name);
		}
		close(fd);
	}
	return NULL;
}

TEST_F_TIMEOUT(rm, info_races_removal, 120)
{
	struct info_race r = { .kid = self->kid };
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, info_loop, &r));
	for (int i = 0; i < 30; i++) {
		kt_sleep_ms(20);
		r.kid = -1;
		ASSERT_EQ(0, kt_sim_del(RM_SIM_ID));
		ASSERT_EQ(0, kt_sim_new(RM_SIM_ID, 4, 2));
		r.kid = kt_kprof_id_of_sim(RM_SIM_ID);
		ASSERT_LE(0, r.kid);
	}
	kt_sleep_ms(20);
	ASSERT_EQ(0, kt_sim_del(RM_SIM_ID));
	self->removed = true;
	r.done = 1;
	pthread_join(th, NULL);
	EXPECT_LT(0, r.infos);
	EXPECT_EQ(0, r.bad) TH_LOG("%s", r.why);
}

/*
 * INFO names the device (the parent's name) while the device is removed
 * under it. The core's debugfs knob test_info_delay_ms makes INFO sleep
 * just before it copies the name; meanwhile the sim device is deleted,
 * which frees the parent device and its name as soon as the core lets go.
 * INFO took the device whole, so it must answer with the name, never
 * with what was left in freed memory (KASAN, in the debug lane, names
 * the use-after-free).
 */
struct info_sleeper {
	int fd, ret;
	pid_t tid;
	volatile int started, done;
	struct kprof_device_info info;
};

static void *info_once(void *arg)
{
	struct info_sleeper *s = arg;

	s->tid = (pid_t)syscall(SYS_gettid);
	s->started = 1;
	s->ret = kt_info(s->fd, &s->info);
	s->done = 1;
	return NULL;
}

/* Thread tid is asleep (D) inside ioctl(): INFO's test delay. */
static bool in_info_delay(pid_t tid)
{
	char path[64], buf[512], *p;
	int nr;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (kt_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'D')
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	return kt_read_file(path, buf, sizeof(buf)) > 0 &&
	       sscanf(buf, "%d", &nr) == 1 && nr == SYS_ioctl;
}

TEST_F_TIMEOUT(rm, info_names_device_removed_meanwhile, 120)
{
	struct info_sleeper s = { .fd = kt_open_dev(self->kid) };
	char want[32];
	pthread_t th;
	int asleep = 0;

	ASSERT_LE(0, s.fd);
	/* The vendor node holds the sim device: let removal free it. */
	close(self->simfd);
	self->simfd = -1;
	ASSERT_EQ(0, kt_write_file(KNOB_INFO_DELAY, INFO_DELAY_MS));
	ASSERT_EQ(0, pthread_create(&th, NULL, info_once, &s));
	/* Twice in a row asleep in the ioctl: in the delay, not passing by. */
	while (!s.done && asleep < 2) {
		kt_sleep_ms(20);
		asleep = s.started && in_info_delay(s.tid) ? asleep + 1 : 0;
	}
	EXPECT_EQ(0, s.done) TH_LOG("INFO returned before removal began: %s has no effect",
				    KNOB_INFO_DELAY);
	EXPECT_EQ(0, kt_sim_del(RM_SIM_ID));
	self->removed = true;
	pthread_join(th, NULL);
	kt_write_file(KNOB_INFO_DELAY, "0");
	close(s.fd);

	snprintf(want, sizeof(want), "sim%u", RM_SIM_ID);
	ASSERT_EQ(0, s.ret) TH_LOG("INFO: %s", strerror(-s.ret));
	EXPECT_STREQ(want, s.info.name);
}

/*
 * read() drains a removed device's ring, and a record it finds malformed
 * (a backend bug; test_bad_record stands in for one) gets a warning that
 * names the device: kd->dev, the class device, stays held until kd goes.
 * When unregister cleared it after device_destroy(), as it once did, this
 * warning named "(NULL device *)", and a reader that had loaded the
 * pointer just before used the freed device.
 */
TEST_F_TIMEOUT(rm, reader_warning_names_removed_device, 120)
{
	char buf[4096], want[32];
	int fd = kt_open_dev(self->kid), kfd;
	ssize_t n;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kt_start(fd, 0, 0, 0));
	ASSERT_EQ(0, some_ops(self->simfd));
	close(self->simfd);
	self->simfd = -1;
	ASSERT_EQ(0, kt_sim_del(RM_SIM_ID));
	self->removed = true;

	kfd = kt_kmsg_open_end();
	ASSERT_LE(0, kfd);
	ASSERT_EQ(0, kt_write_file(KNOB_BAD_RECORD, "1"));
	n = read(fd, buf, sizeof(buf));
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EIO, errno) TH_LOG("read: %zd, %s", n, strerror(errno));
	/* dev_warn(): "kprof kprofN: malformed record ..." */
	snprintf(want, sizeof(want), " kprof%d: ", self->kid);
	EXPECT_TRUE(kt_kmsg_has(kfd, want, "malformed record"))
		TH_LOG("no kernel log line with '%s' and 'malformed record'", want);
	close(kfd);
	close(fd);
}

TEST_HARNESS_MAIN
