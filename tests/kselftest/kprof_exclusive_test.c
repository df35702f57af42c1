// SPDX-License-Identifier: GPL-2.0
/*
 * One capture per device: concurrent starts, EBUSY and the holder's name,
 * release on close and on SIGKILL, and module unload while a capture is
 * open.
 */
#include <signal.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define RACERS		32
#define ROUNDS		200
/*
 * The debug-kernel lane lowers it (kt_rounds): there one round of 32
 * forks and starts takes seconds, and 200 of them would take the better
 * part of an hour; the stock lane runs all 200.
 */
#define ROUNDS_ENV	"KPROF_EXCL_RACE_ROUNDS"

FIXTURE(excl) {
	int fd;
};

FIXTURE_SETUP(excl)
{
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
}

FIXTURE_TEARDOWN(excl)
{
	kt_stop(self->fd);
	close(self->fd);
}

/* "PID COMM" of the holder from sysfs, or "none". */
static int holder_attr(char *buf, size_t len)
{
	ssize_t n = kt_read_filef(buf, len, KT_SYSFS_FMT "/capture_holder", 0);

	if (n <= 0)
		return n ? (int)n : -EPROTO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

TEST_F(excl, second_fd_gets_ebusy)
{
	struct kprof_device_info info;
	int fd2 = kt_open_dev(0);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	EXPECT_EQ(-EBUSY, kt_start(fd2, 0, 0, 0));
	/* Same fd again is busy too: one capture per device, not per fd. */
	EXPECT_EQ(-EBUSY, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_info(fd2, &info));
	EXPECT_EQ(getpid(), info.capture_pid);
	/* The non-holder cannot stop, pause or consume someone else's. */
	EXPECT_EQ(-EBUSY, kt_stop(fd2));
	EXPECT_EQ(-EBUSY, kt_ioctl(fd2, KPROF_IOC_CAPTURE_PAUSE, NULL));
	EXPECT_EQ(-EBUSY, kt_ioctl(fd2, KPROF_IOC_RING_CONSUME, &(uint64_t){ 0 }));
	ASSERT_EQ(0, kt_info(fd2, &info));
	EXPECT_EQ(getpid(), info.capture_pid);
	ASSERT_EQ(0, kt_stop(self->fd));
	ASSERT_EQ(0, kt_start(fd2, 0, 0, 0));
	ASSERT_EQ(0, kt_stop(fd2));
	close(fd2);
}

TEST_F(excl, close_frees_device)
{
	struct kprof_device_info info;
	int fd2 = kt_open_dev(0);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, kt_start(fd2, 0, 0, 0));
	close(fd2);
	ASSERT_EQ(0, kt_info(self->fd, &info));
	EXPECT_EQ(0, info.capture_pid);
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_stop(self->fd));
}

/* Stop then start again on the same fd: a stopped capture is over. */
TEST_F(excl, restart_after_stop)
{
	for (int i = 0; i < 20; i++) {
		ASSERT_EQ(0, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN, 0));
		ASSERT_EQ(0, kt_stop(self->fd));
	}
}

struct race_msg {
	pid_t pid;
	int ret;
};

/* One racer: open, wait for the gun, start, report, hold until released. */
static void racer(int gun, int report, int release)
{
	struct race_msg m = { .pid = getpid() };
	char c;
	int fd = kt_open_dev(0);

	if (fd < 0)
		_exit(2);
	if (read(gun, &c, 1) != 0)
		_exit(3);
	m.ret = kt_start(fd, 0, KPROF_RING_SIZE_MIN, 0);
	if (write(report, &m, sizeof(m)) != sizeof(m))
		_exit(4);
	if (m.ret == 0)
		while (read(release, &c, 1) > 0)
			;
	_exit(0);
}

TEST_F_TIMEOUT(excl, race_32_processes_200_rounds, 600)
{
	const int rounds = kt_rounds(ROUNDS_ENV, ROUNDS);

	ASSERT_LT(0, rounds) TH_LOG("%s='%s': want a whole number from 1 to %d",
				    ROUNDS_ENV, getenv(ROUNDS_ENV), ROUNDS);
	ksft_print_msg("%d racers x %d rounds%s\n", RACERS, rounds,
		       rounds < ROUNDS ? " (lowered by " ROUNDS_ENV ")" : "");
	fflush(stdout);
	for (int round = 0; round < rounds; round++) {
		int gun[2], report[2], release[2];
		pid_t pids[RACERS], winner = 0;
		int wins = 0, busy = 0;
		char holder[128], want[32];

		/* Progress, so that a slow kernel is not taken for a hang. */
		if (round % 20 == 0) {
			ksft_print_msg("round %d/%d\n", round, rounds);
			fflush(stdout);
		}
		ASSERT_EQ(0, pipe(gun));
		ASSERT_EQ(0, pipe(report));
		ASSERT_EQ(0, pipe(release));
		for (int i = 0; i < RACERS; i++) {
			pids[i] = fork();
			ASSERT_LE(0, pids[i]);
			if (!pids[i]) {
				close(gun[1]);
				close(report[0]);
				close(release[1]);
				racer(gun[0], report[1], release[0]);
			}
		}
		close(gun[0]);
		close(report[1]);
		close(release[0]);
		/* Every racer is blocked in read(gun): EOF starts them all. */
		close(gun[1]);
		for (int i = 0; i < RACERS; i++) {
			struct race_msg m;

			ASSERT_EQ(sizeof(m), read(report[0], &m, sizeof(m)));
			if (m.ret == 0) {
				wins++;
				winner = m.pid;
			} else if (m.ret == -EBUSY) {
				busy++;
			} else {
				TH_LOG("round %d: pid %d got %d", round, m.pid, m.ret);
			}
		}
		EXPECT_EQ(1, wins) TH_LOG("round %d", round);
		EXPECT_EQ(RACERS - 1, busy) TH_LOG("round %d", round);
		/* Checked every 20 rounds: sysfs reads are slow under TCG. */
		if (wins == 1 && round % 20 == 0) {
			ASSERT_EQ(0, holder_attr(holder, sizeof(holder)));
			snprintf(want, sizeof(want), "%d ", winner);
			EXPECT_EQ(0, strncmp(holder, want, strlen(want)))
				TH_LOG("holder '%s', winner %d", holder, winner);
		}
		close(release[1]);
		for (int i = 0; i < RACERS; i++)
			EXPECT_EQ(0, kt_wait_child(pids[i]));
		close(report[0]);
		if (wins != 1 || busy != RACERS - 1)
			break;
	}
}

/*
 * The holder is killed while blocked in poll() on the capture fd. The
 * capture must end in the holder's exit path (its files are released
 * before the parent can reap it), so the device is free the moment
 * waitpid() returns: no retry loop, no timeout-based cleanup. The time
 * from kill to free is logged; it is not asserted, because under TCG on a
 * loaded host it measures the scheduler, not kprof.
 */
TEST_F(excl, kill9_frees_at_exit)
{
	int ready[2];
	uint64_t t0;
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = kt_open_dev(0);
		struct pollfd p = { .fd = fd, .events = POLLIN };

		close(ready[0]);
		if (fd < 0 || kt_start(fd, 0, 0, 0))
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			poll(&p, 1, -1);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(-EBUSY, kt_start(self->fd, 0, 0, 0));
	t0 = kt_now_ns();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	EXPECT_EQ(128 + SIGKILL, kt_wait_child(pid));
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	TH_LOG("device free %llu us after kill -9 (holder reaped)",
	       (unsigned long long)((kt_now_ns() - t0) / 1000));
	ASSERT_EQ(0, kt_stop(self->fd));
	close(ready[0]);
}

/* Killed with records pending in the ring and ops in flight. */
TEST_F(excl, kill9_busy_holder)
{
	int ready[2];
	char c;
	pid_t pid;
	int simfd = kt_open_sim(0);

	ASSERT_LE(0, simfd);
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = kt_open_dev(0);

		if (fd < 0 || kt_start(fd, 0, KPROF_RING_SIZE_MIN, 0))
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			kt_launch(simfd, "busy", 0, 0, KT_SMALL_FLOPS,
				  KT_SMALL_BYTES, 2);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	kt_sleep_ms(200);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	EXPECT_EQ(128 + SIGKILL, kt_wait_child(pid));
	ASSERT_EQ(0, kt_sync_all(simfd, 10000000000ULL));
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, kt_stop(self->fd));
	close(simfd);
	close(ready[0]);
}

/*
 * The capture's open file pins kprof.ko, not the backend: rmmod kprof is
 * refused, rmmod kprof_sim unregisters the device under the holder, who
 * sees it gone; the sim is loaded again for the next tests.
 */
TEST_F(excl, rmmod_with_capture_open)
{
	struct kprof_device_info info;
	char buf[4096];
	ssize_t n = 1;
	int ret, i;

	ASSERT_TRUE(kt_module_loaded("kprof_sim"));
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ret = kt_module_unload("kprof");
	EXPECT_TRUE(ret == -EBUSY || ret == -EAGAIN) TH_LOG("ret %d", ret);
	ASSERT_TRUE(kt_module_loaded("kprof"));
	/* The capture is untouched. */
	ASSERT_EQ(0, kt_info(self->fd, &info));
	EXPECT_EQ(getpid(), info.capture_pid);

	ASSERT_EQ(0, kt_module_unload("kprof_sim"));
	/* What the ring held is still read, then the end. */
	for (i = 0; i < 100000 && (n = read(self->fd, buf, sizeof(buf))) > 0; i++)
		;
	EXPECT_GE(0, n);
	EXPECT_EQ(-ENODEV, kt_info(self->fd, &info));
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, kt_module_load(KT_SIM_MODULE_PATH, KT_SIM_MODULE_ARGS));
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd);
}

TEST_HARNESS_MAIN
