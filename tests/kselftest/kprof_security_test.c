// SPDX-License-Identifier: GPL-2.0
/*
 * Security of the capture device as an ordinary member of the kprof group
 * (uid 1000, group kprof only, no capabilities) and as a user outside it:
 * the outsider cannot open the node. By default (kprof.paranoid=1) the
 * member may query but not capture or map the live counters, which show
 * every user's work on the device (EACCES); with CAP_PERFMON it may.
 * With paranoid=0 the member can capture, cannot change the clock, and
 * cannot write the ring or the counters by any route: mmap with
 * PROT_WRITE, mprotect of a read-only mapping (shared or private), or a
 * forced write through /proc/self/mem. The kernel's data must be
 * unchanged afterwards. A read-only fd changes nothing, whoever holds it
 * (EBADF). Runs as root in the VM and drops privileges in a child per
 * test; tests/fuzz/security.sh runs it.
 */
#include <grp.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define MEMBER_UID	1000	/* kuser in the VM's /etc/passwd */
#define NOBODY		65534
#define NS_5S		5000000000ULL

/* The group that owns /dev/kprof0 (kprof: udev rules, mdev in the VM). */
static gid_t dev_gid(void)
{
	struct stat st;

	return stat("/dev/kprof0", &st) ? (gid_t)-1 : st.st_gid;
}

/* Become uid with only group gid; 0 or -errno. */
static int become(uid_t uid, gid_t gid)
{
	if (setgroups(1, &gid) || setgid(gid) || setuid(uid))
		return -errno;
	return 0;
}

#define PARANOID	"/sys/module/kprof/parameters/paranoid"

static int set_paranoid(int v)
{
	return kt_write_file(PARANOID, v ? "1" : "0");
}

/* Become uid with only group gid and, of all capabilities, only cap. */
static int become_with_cap(uid_t uid, gid_t gid, int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];

	if (prctl(PR_SET_KEEPCAPS, 1) || become(uid, gid))
		return -errno;
	memset(data, 0, sizeof(data));
	data[cap / 32].effective = 1U << (cap % 32);
	data[cap / 32].permitted = 1U << (cap % 32);
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/* write through /proc/self/mem (FOLL_FORCE): 0 if it was written */
static int force_write(void *addr)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	uint8_t b = 0x5a;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pwrite(fd, &b, 1, (off_t)(uintptr_t)addr);
	n = n == 1 ? 0 : -errno;
	close(fd);
	return (int)n;
}

/* No shared state: each test forks its own unprivileged child. */
FIXTURE(sec) {
	int unused;
};

FIXTURE_SETUP(sec)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(sec)
{
}

TEST_F(sec, outsider_cannot_open)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		/* nobody, in group nogroup only */
		if (become(NOBODY, NOBODY))
			_exit(100);
		if (open("/dev/kprof0", O_RDONLY) >= 0 || errno != EACCES)
			_exit(101);
		if (open("/dev/kprof0", O_RDWR) >= 0 || errno != EACCES)
			_exit(102);
		if (open("/dev/kprof_sim0", O_RDWR) >= 0 || errno != EACCES)
			_exit(103);
		_exit(0);
	}
	EXPECT_EQ(0, kt_wait_child(pid));
}

/*
 * The member's whole session in one child: open, capture, clock refused,
 * every write route to the mappings refused, data intact, stop.
 * Exit codes name the step that failed.
 */
static int member_session(void)
{
	struct kprof_ring_ctrl snap;
	struct kprof_device_info info;
	struct kprof_clock_state before, after;
	size_t pg = KT_PAGE_SIZE, len;
	int fd, simfd, ret = 0;
	uint8_t *sh, *pr, *cnt;

	if (become(MEMBER_UID, dev_gid()))
		return 10;
	if (kt_drop_all_caps())
		return 11;
	fd = kt_open_dev(0);
	simfd = kt_open_sim(0);
	if (fd < 0 || simfd < 0)
		return 12;
	if (kt_info(fd, &info))
		return 13;
	if (kt_start(fd, 0, KPROF_RING_SIZE_MIN, 0))
		return 14;
	if (kt_launch(simfd, "sec_op", 0, 0, 1000, 1000, 0) < 0 || kt_sync_all(simfd, NS_5S))
		return 15;

	/* the clock is not the member's to change */
	if (kt_clock_get(fd, &before))
		return 20;
	if (kt_clock_set(fd, KPROF_CLOCK_OP_LOCK_MAX, 0) != -EPERM ||
	    kt_clock_set(fd, KPROF_CLOCK_OP_RESET, 0) != -EPERM)
		return 21;
	/* mhz moves by itself (DVFS) while unlocked: compare the lock state */
	if (kt_clock_get(fd, &after) || before.flags != after.flags ||
	    before.locked_mhz != after.locked_mhz ||
	    before.saved_flags != after.saved_flags)
		return 22;

	/* ring: shared and private read-only mappings, no way to write */
	len = pg + KPROF_RING_SIZE_MIN;
	if (mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 KPROF_MMAP_RING) != MAP_FAILED)
		return 30;
	if (mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 KPROF_MMAP_RING) != MAP_FAILED)
		return 31;
	sh = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, KPROF_MMAP_RING);
	if (sh == MAP_FAILED)
		return 32;
	memcpy(&snap, sh, sizeof(snap));
	if (!mprotect(sh, len, PROT_READ | PROT_WRITE) ||
	    !mprotect(sh + pg, pg, PROT_WRITE))
		return 33;
	if (!force_write(sh) || !force_write(sh + pg))
		return 34;
	pr = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, KPROF_MMAP_RING);
	if (pr != MAP_FAILED) {
		/* a private mapping may exist, but never become writable */
		if (!mprotect(pr, len, PROT_READ | PROT_WRITE))
			return 35;
		if (!force_write(pr))
			return 36;
		munmap(pr, len);
	}
	/* the kernel's view did not move backwards or change size */
	if (((volatile struct kprof_ring_ctrl *)sh)->data_size != snap.data_size ||
	    ((volatile struct kprof_ring_ctrl *)sh)->head < snap.head)
		return 37;
	munmap(sh, len);

	/* counters block, when the device has counters */
	if (info.counter_block_size) {
		len = (info.counter_block_size + pg - 1) & ~(pg - 1);
		if (mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 KPROF_MMAP_COUNTERS) != MAP_FAILED)
			return 40;
		cnt = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, KPROF_MMAP_COUNTERS);
		if (cnt == MAP_FAILED)
			return 41;
		if (!mprotect(cnt, len, PROT_READ | PROT_WRITE))
			return 42;
		if (!force_write(cnt))
			return 43;
		munmap(cnt, len);
	}
	if (kt_stop(fd))
		ret = 50;
	close(simfd);
	close(fd);
	return ret;
}

/* paranoid=0: the kprof group may capture. */
TEST_F(sec, member_captures_read_only_no_clock)
{
	pid_t pid;
	int st;

	ASSERT_NE((gid_t)-1, dev_gid());
	ASSERT_NE(0, dev_gid())
		TH_LOG("/dev/kprof0 is group root: the kprof group rule did not apply");
	ASSERT_EQ(0, set_paranoid(0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(member_session());
	st = kt_wait_child(pid);
	ASSERT_EQ(0, set_paranoid(1));
	EXPECT_EQ(0, st)
		TH_LOG("member session failed at step %d (see member_session())", st);
}

/* What a member may do by default: query, not profile the device. */
static int member_default(int cap)
{
	struct kprof_device_info info;
	size_t len;
	int fd, want = cap ? 0 : -EACCES;
	void *m;

	if (cap ? become_with_cap(MEMBER_UID, dev_gid(), cap) :
		  (become(MEMBER_UID, dev_gid()) || kt_drop_all_caps()))
		return 10;
	fd = kt_open_dev(0);
	if (fd < 0)
		return 11;
	if (kt_info(fd, &info))
		return 12;
	if (kt_start(fd, 0, KPROF_RING_SIZE_MIN, 0) != want)
		return 13;
	len = info.counter_block_size;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, KPROF_MMAP_COUNTERS);
	if ((m == MAP_FAILED ? -errno : 0) != want)
		return 14;
	if (m != MAP_FAILED)
		munmap(m, len);
	if (cap && kt_stop(fd))
		return 15;
	close(fd);
	return 0;
}

TEST_F(sec, member_cannot_profile_by_default)
{
	int r = set_paranoid(1);
	pid_t pid;

	/* Without the knob, whatever the module does by default. */
	ASSERT_TRUE(r == 0 || r == -ENOENT);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(member_default(0));
	EXPECT_EQ(0, kt_wait_child(pid))
		TH_LOG("step 13: capture, 14: counters not refused with EACCES");
}

TEST_F(sec, member_with_perfmon_profiles)
{
	pid_t pid;

	ASSERT_EQ(0, set_paranoid(1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(member_default(CAP_PERFMON));
	EXPECT_EQ(0, kt_wait_child(pid));
}

/* A read-only fd changes nothing, even root's. */
TEST_F(sec, read_only_fd_changes_nothing)
{
	struct kprof_device_info info;
	int ro = open("/dev/kprof0", O_RDONLY | O_CLOEXEC);
	int rw = kt_open_dev(0);

	ASSERT_LE(0, ro);
	ASSERT_LE(0, rw);
	EXPECT_EQ(0, kt_info(ro, &info));
	EXPECT_EQ(-EBADF, kt_start(ro, 0, KPROF_RING_SIZE_MIN, 0));
	EXPECT_EQ(-EBADF, kt_clock_set(ro, KPROF_CLOCK_OP_LOCK_BASE, 0));
	EXPECT_EQ(-EBADF, kt_clock_set(ro, KPROF_CLOCK_OP_RESET, 0));
	/* Not even another fd's capture. */
	ASSERT_EQ(0, kt_start(rw, 0, KPROF_RING_SIZE_MIN, 0));
	EXPECT_EQ(-EBADF, kt_stop(ro));
	EXPECT_EQ(-EBADF, kt_ioctl(ro, KPROF_IOC_CAPTURE_PAUSE, NULL));
	EXPECT_EQ(-EBADF, kt_ioctl(ro, KPROF_IOC_CAPTURE_RESUME, NULL));
	EXPECT_EQ(0, kt_stop(rw));
	close(rw);
	close(ro);
}

TEST_HARNESS_MAIN
