// SPDX-License-Identifier: GPL-2.0
/*
 * kprof.ko is the core and each backend its own module: the core loads
 * with no backend and has no device, a backend needs the core, the core
 * cannot go while a backend uses it, and kprof_sim's parameters are
 * bounded (refused with a line in the kernel log saying which). Leaves
 * kprof.ko and kprof_sim.ko sim_devices=1 loaded, as it found them.
 */
#include "kprof_test_util.h"
#include "kprof_harness.h"

static int count_devices(void)
{
	DIR *d = opendir(KT_CLASS_DIR);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "kprof", 5);
	closedir(d);
	return n;
}

/* The refused load of kprof_sim.ko with PARAMS: -errno, and its message. */
static int load_sim_refused(const char *params, const char *word1,
			    const char *word2, bool *logged)
{
	int fd = kt_kmsg_open_end();
	int ret = kt_module_load(KT_SIM_MODULE_PATH, params);

	*logged = fd >= 0 && kt_kmsg_has(fd, word1, word2);
	if (fd >= 0)
		close(fd);
	return ret;
}

FIXTURE(mods) {
	int unused;
};

FIXTURE_SETUP(mods)
{
	ASSERT_TRUE(kt_module_loaded("kprof"));
	ASSERT_TRUE(kt_module_loaded("kprof_sim"));
}

/* Whatever a case did, the next one (and test) gets the usual setup. */
FIXTURE_TEARDOWN(mods)
{
	if (!kt_module_loaded("kprof"))
		kt_module_load(KT_MODULE_PATH, "");
	if (!kt_module_loaded("kprof_sim"))
		kt_module_load(KT_SIM_MODULE_PATH, KT_SIM_MODULE_ARGS);
}

TEST_F(mods, core_refused_while_backend_loaded)
{
	EXPECT_EQ(-EAGAIN, kt_module_unload("kprof"));
	EXPECT_TRUE(kt_module_loaded("kprof"));
}

TEST_F(mods, core_alone_has_no_device)
{
	ASSERT_LT(0, count_devices());
	ASSERT_EQ(0, kt_module_unload("kprof_sim"));
	EXPECT_EQ(0, count_devices());
	EXPECT_GT(0, kt_open_dev(0));
	EXPECT_TRUE(kt_module_loaded("kprof"));
}

TEST_F(mods, backend_needs_core)
{
	ASSERT_EQ(0, kt_module_unload("kprof_sim"));
	ASSERT_EQ(0, kt_module_unload("kprof"));
	/* Unknown symbols: the core's API is not there. */
	EXPECT_EQ(-ENOENT, kt_module_load(KT_SIM_MODULE_PATH,
					  KT_SIM_MODULE_ARGS));
	EXPECT_FALSE(kt_module_loaded("kprof_sim"));
	ASSERT_EQ(0, kt_module_load(KT_MODULE_PATH, ""));
	ASSERT_EQ(0, kt_module_load(KT_SIM_MODULE_PATH, KT_SIM_MODULE_ARGS));
	EXPECT_EQ(1, count_devices());
}

TEST_F(mods, sim_devices_bounded_by_minors)
{
	char params[64];
	bool logged;

	ASSERT_EQ(0, kt_module_unload("kprof_sim"));
	/* One more than kprof has minors (KPROF_MAX_DEVICES). */
	snprintf(params, sizeof(params), "sim_devices=%d", 65);
	EXPECT_EQ(-EINVAL, load_sim_refused(params, "kprof_sim", "sim_devices", &logged));
	EXPECT_TRUE(logged);
	EXPECT_FALSE(kt_module_loaded("kprof_sim"));
	EXPECT_EQ(0, count_devices());
}

TEST_F(mods, sim_l1_memory_capped)
{
	bool logged;

	ASSERT_EQ(0, kt_module_unload("kprof_sim"));
	/* 256 cores x 8 RISCs x 65536 markers: 2 GiB of simulated L1. */
	EXPECT_EQ(-ENOSPC,
		  load_sim_refused("sim_devices=1 sim_cores=256 sim_riscs=8 sim_l1_entries=65536",
				   "kprof_sim", "L1 memory", &logged));
	EXPECT_TRUE(logged);
	EXPECT_FALSE(kt_module_loaded("kprof_sim"));
	EXPECT_EQ(0, count_devices());
}

/*
 * Files and mappings of a device may outlive its backend module: after
 * rmmod kprof_sim they get SIGBUS and ENODEV, and closing them must not
 * call into the unloaded module (the core keeps nothing of the backend's
 * past unregister; an oops here fails the run's dmesg check).
 */
TEST_F(mods, files_outlive_backend_module)
{
	struct kprof_device_info info;
	uint64_t pages0, pages;
	size_t cnt_len;
	uint8_t *cnt;
	struct kt_ring r;
	int fd;

	ASSERT_TRUE(kt_debugfs_ready());
	ASSERT_EQ(0, kt_read_u64(KT_PAGES_FILE, &pages0));
	fd = kt_open_dev(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kt_info(fd, &info));
	ASSERT_EQ(0, kt_start(fd, 0, 4 * KPROF_RING_SIZE_MIN, 0));
	ASSERT_EQ(0, kt_ring_map(&r, fd));
	cnt_len = info.counter_block_size;
	cnt = mmap(NULL, cnt_len, PROT_READ, MAP_SHARED, fd,
		   KPROF_MMAP_COUNTERS);
	ASSERT_NE(MAP_FAILED, cnt);

	ASSERT_EQ(0, kt_module_unload("kprof_sim"));
	EXPECT_EQ(1, kt_sigbus_on_read((const volatile uint8_t *)r.map));
	EXPECT_EQ(1, kt_sigbus_on_read(cnt));
	EXPECT_EQ(-ENODEV, kt_info(fd, &info));
	/* The last references go with the backend module unloaded. */
	close(fd);
	munmap(cnt, cnt_len);
	kt_ring_unmap(&r);
	ASSERT_EQ(0, kt_read_u64(KT_PAGES_FILE, &pages));
	EXPECT_EQ(pages0, pages);
}

TEST_HARNESS_MAIN
