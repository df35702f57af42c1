// SPDX-License-Identifier: GPL-2.0
/*
 * Capture rings are pinned kernel memory: each user's are charged, as
 * perf's ring buffers are, to its locked_vm against kprof.mlock_kb plus
 * RLIMIT_MEMLOCK. Past that CAPTURE_START fails with EPERM before
 * anything is allocated, a stopped capture's ring still counts until its
 * fd is closed, and CAP_IPC_LOCK has no limit. The unprivileged user here
 * is uid 1000 with CAP_PERFMON only (allowed to capture, not to lock
 * memory).
 */
#include <grp.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define MLOCK_KB	"/sys/module/kprof/parameters/mlock_kb"
#define USER_UID	1000
#define RING_512K	(512U << 10)

static int become_perfmon_user(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];
	struct rlimit none = { 0, 0 };
	struct stat st;

	/* In the group that owns the node, as a kprof member would be. */
	if (stat("/dev/kprof0", &st) || setgroups(1, &st.st_gid) ||
	    setgid(st.st_gid))
		return -errno;
	if (setrlimit(RLIMIT_MEMLOCK, &none) || prctl(PR_SET_KEEPCAPS, 1) ||
	    setuid(USER_UID))
		return -errno;
	memset(data, 0, sizeof(data));
	data[CAP_PERFMON / 32].effective = 1U << (CAP_PERFMON % 32);
	data[CAP_PERFMON / 32].permitted = 1U << (CAP_PERFMON % 32);
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/* Exit codes name the step that went wrong. */
static int limited_user(void)
{
	int f1, f2;

	if (become_perfmon_user())
		return 10;
	f1 = kt_open_dev(0);
	f2 = kt_open_dev(0);
	if (f1 < 0 || f2 < 0)
		return 11;
	/* 129 pages of the 256 allowed (1 MiB, no RLIMIT_MEMLOCK). */
	if (kt_start(f1, 0, RING_512K, 0) || kt_stop(f1))
		return 12;
	/* The stopped capture's ring still counts: 258 > 256. */
	if (kt_start(f2, 0, RING_512K, 0) != -EPERM)
		return 13;
	/* Refused outright, not after pinning 256 MiB. */
	if (kt_start(f2, 0, KPROF_RING_SIZE_MAX, 0) != -EPERM)
		return 14;
	/* Closing the fd gives the pages back. */
	close(f1);
	if (kt_start(f2, 0, RING_512K, 0) || kt_stop(f2))
		return 15;
	close(f2);
	return 0;
}

FIXTURE(ml) {
	char saved[32];
};

/* 1 MiB each, on top of no RLIMIT_MEMLOCK at all. */
FIXTURE_SETUP(ml)
{
	ssize_t n = kt_read_file(MLOCK_KB, self->saved, sizeof(self->saved));

	/* A module without the knob has no limit: the test says so. */
	if (n == -ENOENT) {
		self->saved[0] = '\0';
		return;
	}
	ASSERT_LT(0, n) TH_LOG("%s: %s", MLOCK_KB, strerror((int)-n));
	ASSERT_EQ(0, kt_write_file(MLOCK_KB, "1024"));
}

FIXTURE_TEARDOWN(ml)
{
	if (self->saved[0])
		kt_write_file(MLOCK_KB, self->saved);
}

TEST_F(ml, rings_charged_to_the_user)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid)
		_exit(limited_user());
	EXPECT_EQ(0, kt_wait_child(pid))
		TH_LOG("see limited_user() for the step");
}

/* CAP_IPC_LOCK (root here) is not limited. */
TEST_F(ml, ipc_lock_not_limited)
{
	int fd = kt_open_dev(0);

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, kt_start(fd, 0, 4 * RING_512K, 0));
	EXPECT_EQ(0, kt_stop(fd));
	close(fd);
}

TEST_HARNESS_MAIN
