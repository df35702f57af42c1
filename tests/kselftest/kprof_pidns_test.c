// SPDX-License-Identifier: GPL-2.0
/*
 * Pids the kernel reports (INFO capture_pid, CLOCK_GET locked_by_pid,
 * sysfs capture_holder) are in the reader's pid namespace: a holder the
 * reader cannot see reads as 0, one it can see has the reader's number
 * for it, never the init namespace's.
 */
#include <sched.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define HOLDER_FILE	KT_SYSFS_FMT "/capture_holder"

/* sysfs capture_holder's pid ("none" is -1). */
static int sysfs_holder(void)
{
	char buf[64];

	if (kt_read_filef(buf, sizeof(buf), HOLDER_FILE, 0) < 0)
		return -2;
	return strncmp(buf, "none", 4) ? atoi(buf) : -1;
}

/* TEST_F, not TEST: the plain one trips -Wunused-parameter. */
FIXTURE(ns) {
	int unused;
};

FIXTURE_SETUP(ns)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(ns)
{
}

/* Runs fn in a child of a new pid namespace (its pid 1); its exit code. */
static int in_new_pidns(int (*fn)(void *), void *arg)
{
	pid_t mid = fork(), pid;

	if (mid < 0)
		return -1;
	if (!mid) {
		if (unshare(CLONE_NEWPID))
			_exit(90);
		pid = fork();
		if (pid < 0)
			_exit(91);
		if (!pid)
			_exit(fn(arg));
		_exit(kt_wait_child(pid));
	}
	return kt_wait_child(mid);
}

/* A reader in a new namespace: the holder (our parent's parent) is not there. */
static int reader_sees_nothing(void *arg)
{
	struct kprof_device_info info;
	struct kprof_clock_state cs;
	int fd = kt_open_dev(0);

	(void)arg;
	if (getpid() != 1 || fd < 0)
		return 10;
	if (kt_info(fd, &info) || kt_clock_get(fd, &cs))
		return 11;
	if (info.capture_pid != 0 || !kt_all_zero(info.capture_comm,
						  sizeof(info.capture_comm)))
		return 12;
	if (!(cs.flags & KPROF_CLOCK_SAVED) || cs.locked_by_pid != 0)
		return 13;
	if (sysfs_holder() != 0)
		return 14;
	return 0;
}

TEST_F(ns, holder_outside_reader_ns_is_zero)
{
	int fd = kt_open_dev(0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kt_start(fd, 0, KPROF_RING_SIZE_MIN, 0));
	ASSERT_EQ(0, kt_clock_set(fd, KPROF_CLOCK_OP_LOCK_BASE, 0));
	/* Here, in the init namespace, it is us. */
	EXPECT_EQ(getpid(), sysfs_holder());
	EXPECT_EQ(0, in_new_pidns(reader_sees_nothing, NULL))
		TH_LOG("12: capture_pid, 13: locked_by_pid, 14: sysfs");
	EXPECT_EQ(0, kt_clock_set(fd, KPROF_CLOCK_OP_RESET, 0));
	EXPECT_EQ(0, kt_stop(fd));
	close(fd);
}

/* A holder in a new namespace sees itself as its own pid there (1). */
static int holder_sees_itself(void *arg)
{
	struct kprof_device_info info;
	struct kprof_clock_state cs;
	int fd = kt_open_dev(0), ret = 0;

	(void)arg;
	if (getpid() != 1 || fd < 0)
		return 10;
	if (kt_start(fd, 0, KPROF_RING_SIZE_MIN, 0) ||
	    kt_clock_set(fd, KPROF_CLOCK_OP_LOCK_BASE, 0))
		return 11;
	if (kt_info(fd, &info) || kt_clock_get(fd, &cs))
		ret = 12;
	else if (info.capture_pid != 1)
		ret = 13;
	else if (cs.locked_by_pid != 1)
		ret = 14;
	else if (sysfs_holder() != 1)
		ret = 15;
	kt_clock_set(fd, KPROF_CLOCK_OP_RESET, 0);
	kt_stop(fd);
	close(fd);
	return ret;
}

TEST_F(ns, holder_in_own_ns_is_own_number)
{
	EXPECT_EQ(0, in_new_pidns(holder_sees_itself, NULL))
		TH_LOG("13: capture_pid, 14: locked_by_pid, 15: sysfs");
}

TEST_HARNESS_MAIN
