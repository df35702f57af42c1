// SPDX-License-Identifier: GPL-2.0
/*
 * Registration publishes a device for open() only once it is whole: while
 * kprof_device_register() is between reserving the minor and creating
 * /dev/kprofN, an open() of a node with that minor (a stale node of an
 * earlier device, or one made with mknod) gets ENODEV; and when that step
 * then fails, nothing of the device is left. The core's debugfs test
 * knobs hold registration there (test_register_delay_ms) and fail it
 * (test_register_fail).
 */
#include <sys/sysmacros.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define REG_SIM_ID	7
#define REG_DELAY_MS	"1500"
#define REG_NODE	"/tmp/kprof_register_node"
#define KNOB_DELAY	KT_DEBUGFS_ROOT "/kprof/test_register_delay_ms"
#define KNOB_FAIL	KT_DEBUGFS_ROOT "/kprof/test_register_fail"

/* kprof's char major, from /proc/devices. */
static int kprof_major(void)
{
	char buf[4096], *line, *end;
	int maj;

	if (kt_read_file("/proc/devices", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		maj = (int)strtol(line, &end, 10);
		if (end != line && !strcmp(strchr(line, 'k') ?: "", "kprof"))
			return maj;
	}
	return -1;
}

/* The minor the next device gets: the lowest id without a kprofN. */
static int next_minor(void)
{
	char path[64];

	for (int id = 0; id < 64; id++) {
		snprintf(path, sizeof(path), KT_SYSFS_FMT, id);
		if (access(path, F_OK))
			return id;
	}
	return -1;
}

FIXTURE(reg) {
	uint64_t pages0;
};

FIXTURE_SETUP(reg)
{
	ASSERT_TRUE(kt_debugfs_ready());
	ASSERT_EQ(0, kt_read_u64(KT_PAGES_FILE, &self->pages0));
}

FIXTURE_TEARDOWN(reg)
{
	kt_write_file(KNOB_DELAY, "0");
	kt_write_file(KNOB_FAIL, "N");
	unlink(REG_NODE);
	kt_sim_del(REG_SIM_ID);
}

TEST_F_TIMEOUT(reg, open_during_failed_register, 60)
{
	int maj = kprof_major(), minor = next_minor(), opened = 0, st;
	struct kprof_device_info info;
	char path[64];
	pid_t pid;

	ASSERT_LE(0, maj);
	ASSERT_LE(0, minor);
	ASSERT_EQ(0, mknod(REG_NODE, S_IFCHR | 0600, makedev(maj, minor)));
	ASSERT_EQ(0, kt_write_file(KNOB_DELAY, REG_DELAY_MS));
	ASSERT_EQ(0, kt_write_file(KNOB_FAIL, "Y"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(kt_sim_new(REG_SIM_ID, 2, 1) ? 0 : 1);

	/* Until the registration gave up: the node must never open. */
	while (waitpid(pid, &st, WNOHANG) == 0) {
		int fd = open(REG_NODE, O_RDWR | O_CLOEXEC);

		if (fd >= 0) {
			opened++;
			/* What a file that got in would do with it. */
			kt_info(fd, &info);
			close(fd);
		} else {
			EXPECT_EQ(ENODEV, errno);
		}
		kt_sleep_ms(10);
	}
	EXPECT_EQ(0, opened) TH_LOG("the minor opened %d times mid-registration", opened);
	/* new_device failed, as registration did. */
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));

	ASSERT_EQ(0, kt_write_file(KNOB_FAIL, "N"));
	ASSERT_EQ(0, kt_write_file(KNOB_DELAY, "0"));
	snprintf(path, sizeof(path), KT_SYSFS_FMT, minor);
	EXPECT_NE(0, access(path, F_OK));
	/* The id is free again: the same device registers now. */
	ASSERT_EQ(0, kt_sim_new(REG_SIM_ID, 2, 1));
	EXPECT_EQ(minor, kt_kprof_id_of_sim(REG_SIM_ID));
	ASSERT_EQ(0, kt_sim_del(REG_SIM_ID));
}

TEST_HARNESS_MAIN
