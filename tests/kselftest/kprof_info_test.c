// SPDX-License-Identifier: GPL-2.0
/*
 * Device information: KPROF_IOC_INFO, KPROF_IOC_COUNTERS, CLOCK_GET,
 * SYNC_SAMPLE and the sysfs attributes, checked for exact values and for
 * stale bytes (buffers are filled with 0xAA before each call).
 */
#include "kprof_test_util.h"
#include "kprof_harness.h"

FIXTURE(dev) {
	int fd;
	struct kprof_device_info info;
};

FIXTURE_SETUP(dev)
{
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The default sim device is a Tensix-like 8x8 grid of 5-RISC cores. */
TEST_F(dev, info_values)
{
	const struct kprof_device_info *i = &self->info;
	static const char * const riscs[] = {
		"BRISC", "NCRISC", "TRISC0", "TRISC1", "TRISC2" };
	size_t block;

	EXPECT_EQ(KPROF_UAPI_VERSION, i->version);
	EXPECT_EQ(0, i->device_id);
	EXPECT_EQ(8, i->grid_x);
	EXPECT_EQ(8, i->grid_y);
	EXPECT_EQ(i->grid_x * i->grid_y, i->num_cores);
	ASSERT_EQ(5, i->riscs_per_core);
	for (unsigned int r = 0; r < 5; r++)
		EXPECT_STREQ(riscs[r], i->risc_names[r]);
	EXPECT_STREQ("sim", i->backend);
	/* The backend's device: sim0 on the kprof_sim bus. */
	EXPECT_STREQ("sim0", i->name);
	EXPECT_LT(0, i->num_counters);
	EXPECT_GE(KPROF_MAX_COUNTERS, i->num_counters);
	EXPECT_LT(0, i->ref_clock_hz);
	EXPECT_LT(0, i->clock_min_mhz);
	EXPECT_LE(i->clock_min_mhz, i->clock_base_mhz);
	EXPECT_LE(i->clock_base_mhz, i->clock_max_mhz);
	EXPECT_LE(i->clock_min_mhz, i->clock_mhz);
	EXPECT_GE(i->clock_max_mhz, i->clock_mhz);
	EXPECT_EQ(0, i->capture_pid);
	EXPECT_EQ(0, i->capture_comm[0]);
	/* L1 rings are a power of two so that overflow is well defined. */
	EXPECT_LT(0, i->l1_ring_entries);
	EXPECT_EQ(0, i->l1_ring_entries & (i->l1_ring_entries - 1));
	block = sizeof(struct kprof_counter_block) +
		sizeof(__u64) * i->num_cores * i->num_counters;
	EXPECT_LE(block, i->counter_block_size);
}

TEST_F(dev, info_no_stale_bytes)
{
	struct kprof_device_info i;

	/* Reserved must be zero on input too: everything else is 0xAA. */
	memset(&i, 0xAA, sizeof(i));
	i.size = sizeof(i);
	memset(i.reserved, 0, sizeof(i.reserved));
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_INFO, &i));
	EXPECT_TRUE(kt_all_zero(i.reserved, sizeof(i.reserved)));
	EXPECT_TRUE(kt_str_clean(i.capture_comm, sizeof(i.capture_comm)));
	EXPECT_TRUE(kt_str_clean(i.backend, sizeof(i.backend)));
	EXPECT_TRUE(kt_str_clean(i.name, sizeof(i.name)));
	ASSERT_GE(KPROF_MAX_RISCS, i.riscs_per_core);
	for (unsigned int r = 0; r < KPROF_MAX_RISCS; r++) {
		if (r < i.riscs_per_core) {
			EXPECT_TRUE(kt_str_clean(i.risc_names[r], 8));
			EXPECT_NE(0, i.risc_names[r][0]);
		} else {
			EXPECT_TRUE(kt_all_zero(i.risc_names[r], 8));
		}
	}
	/* Every field the ioctl owns was written: equal to a zeroed call. */
	i.size = self->info.size;
	i.clock_mhz = self->info.clock_mhz;	/* may wander (DVFS) */
	i.markers_dropped = self->info.markers_dropped;
	EXPECT_EQ(0, memcmp(&i, &self->info, sizeof(i)));
}

TEST_F(dev, counters_no_stale_bytes)
{
	struct kprof_counter_info c;

	memset(&c, 0xAA, sizeof(c));
	c.size = sizeof(c);
	memset(c.reserved, 0, sizeof(c.reserved));
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_COUNTERS, &c));
	ASSERT_EQ(self->info.num_counters, c.num_counters);
	EXPECT_TRUE(kt_all_zero(c.reserved, sizeof(c.reserved)));
	for (unsigned int k = 0; k < KPROF_MAX_COUNTERS; k++) {
		const struct kprof_counter_desc *d = &c.desc[k];

		if (k >= c.num_counters) {
			EXPECT_TRUE(kt_all_zero(d, sizeof(*d)));
			continue;
		}
		EXPECT_TRUE(kt_str_clean(d->name, sizeof(d->name)));
		EXPECT_TRUE(kt_str_clean(d->unit, sizeof(d->unit)));
		EXPECT_NE(0, d->name[0]);
		EXPECT_NE(0, d->unit[0]);
		for (unsigned int j = 0; j < k; j++)
			EXPECT_STRNE(c.desc[j].name, d->name);
	}
}

/* The counters the design names are all there. */
TEST_F(dev, counters_names)
{
	static const char * const want[] = { "busy_cycles", "stall_cycles" };
	struct kprof_counter_info c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_COUNTERS, &c));
	for (size_t w = 0; w < ARRAY_SIZE(want); w++) {
		bool found = false;

		for (unsigned int k = 0; k < c.num_counters; k++)
			found |= !strcmp(c.desc[k].name, want[w]);
		EXPECT_TRUE(found) TH_LOG("counter %s missing", want[w]);
	}
}

TEST_F(dev, clock_get_no_stale_bytes)
{
	struct kprof_clock_state s;

	memset(&s, 0xAA, sizeof(s));
	s.size = sizeof(s);
	s.reserved0 = 0;
	memset(s.reserved, 0, sizeof(s.reserved));
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_CLOCK_GET, &s));
	EXPECT_EQ(0, s.reserved0);
	EXPECT_TRUE(kt_all_zero(s.reserved, sizeof(s.reserved)));
	EXPECT_LE(self->info.clock_min_mhz, s.mhz);
	EXPECT_GE(self->info.clock_max_mhz, s.mhz);
	if (!(s.flags & KPROF_CLOCK_LOCKED)) {
		EXPECT_EQ(0, s.locked_mhz);
		EXPECT_EQ(0, s.locked_by_pid);
	}
	if (!(s.flags & KPROF_CLOCK_SAVED)) {
		EXPECT_EQ(0, s.saved_flags);
		EXPECT_EQ(0, s.saved_mhz);
	}
}

TEST_F(dev, sync_sample_values)
{
	struct kprof_sync_sample a, b;
	double lo, hi;

	memset(&a, 0xAA, sizeof(a));
	a.size = sizeof(a);
	a.reserved0 = 0;
	memset(a.reserved, 0, sizeof(a.reserved));
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_SYNC_SAMPLE, &a));
	EXPECT_EQ(0, a.reserved0);
	EXPECT_TRUE(kt_all_zero(a.reserved, sizeof(a.reserved)));
	EXPECT_LE(a.host_before_ns, a.host_after_ns);
	kt_sleep_ms(300);
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_SYNC_SAMPLE, &b));
	ASSERT_LT(a.host_after_ns, b.host_before_ns);
	ASSERT_LT(a.device_cycles, b.device_cycles);
	/*
	 * The reference timer runs at ref_clock_hz give or take its drift:
	 * the range the samples' brackets allow must meet that band.
	 */
	ASSERT_EQ(0, kt_ref_rate_range(self->fd, 300, &lo, &hi));
	TH_LOG("rate in [%.0f, %.0f] Hz", lo, hi);
	EXPECT_GT(hi, self->info.ref_clock_hz * 0.98);
	EXPECT_LT(lo, self->info.ref_clock_hz * 1.02);
}

/* ------------------------------------------------------------------ */
/* sysfs                                                               */
/* ------------------------------------------------------------------ */

static int sysfs_attr(int id, const char *attr, char *buf, size_t len)
{
	ssize_t n = kt_read_filef(buf, len, KT_SYSFS_FMT "/%s", id, attr);

	if (n < 0)
		return (int)n;
	/* sysfs attributes end with exactly one newline. */
	if (n == 0 || buf[n - 1] != '\n')
		return -EPROTO;
	buf[n - 1] = '\0';
	return 0;
}

TEST_F(dev, sysfs_backend_and_topology)
{
	char buf[256], want[256];
	size_t len = 0;

	ASSERT_EQ(0, sysfs_attr(0, "backend", buf, sizeof(buf)));
	EXPECT_STREQ(self->info.backend, buf);
	ASSERT_EQ(0, sysfs_attr(0, "cores", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%u", self->info.num_cores);
	EXPECT_STREQ(want, buf);
	ASSERT_EQ(0, sysfs_attr(0, "grid", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%ux%u", self->info.grid_x,
		 self->info.grid_y);
	EXPECT_STREQ(want, buf);
	/* RISC names, space separated, in index order. */
	ASSERT_EQ(0, sysfs_attr(0, "riscs", buf, sizeof(buf)));
	want[0] = '\0';
	for (unsigned int r = 0; r < self->info.riscs_per_core; r++)
		len += snprintf(want + len, sizeof(want) - len, "%s%s",
				r ? " " : "", self->info.risc_names[r]);
	EXPECT_STREQ(want, buf);
}

TEST_F(dev, sysfs_counter_names)
{
	struct kprof_counter_info c;
	char buf[4096], *save = NULL, *tok;
	unsigned int k = 0;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	ASSERT_EQ(0, kt_ioctl(self->fd, KPROF_IOC_COUNTERS, &c));
	ASSERT_EQ(0, sysfs_attr(0, "counters", buf, sizeof(buf)));
	/* One name per line or space-separated, in counter index order. */
	for (tok = strtok_r(buf, "\n ", &save); tok;
	     tok = strtok_r(NULL, "\n ", &save), k++) {
		ASSERT_GT(c.num_counters, k);
		EXPECT_STREQ(c.desc[k].name, tok);
	}
	EXPECT_EQ(c.num_counters, k);
}

TEST_F(dev, sysfs_capture_holder_idle)
{
	char buf[256];

	ASSERT_EQ(0, sysfs_attr(0, "capture_holder", buf, sizeof(buf)));
	EXPECT_STREQ("none", buf);
}

TEST_F(dev, sysfs_capture_holder_self)
{
	char buf[256], want[64], comm[32];

	ASSERT_EQ(0, kt_read_file("/proc/self/comm", comm, sizeof(comm)) < 0);
	comm[strcspn(comm, "\n")] = '\0';
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 0));
	ASSERT_EQ(0, sysfs_attr(0, "capture_holder", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%d %s", getpid(), comm);
	EXPECT_STREQ(want, buf);
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
	EXPECT_EQ(getpid(), self->info.capture_pid);
	EXPECT_STREQ(comm, self->info.capture_comm);
	ASSERT_EQ(0, kt_stop(self->fd));
}

TEST_F(dev, sysfs_markers_dropped)
{
	char buf[64];

	ASSERT_EQ(0, sysfs_attr(0, "markers_dropped", buf, sizeof(buf)));
	EXPECT_EQ(self->info.markers_dropped, strtoull(buf, NULL, 10));
}

TEST_F(dev, sysfs_clock)
{
	struct kprof_clock_state s;
	char buf[256];
	unsigned int mhz;
	int locked, n;

	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	ASSERT_EQ(0, sysfs_attr(0, "clock", buf, sizeof(buf)));
	/* "mhz=M locked=L" and, when a pre-lock state is kept, " saved=..." */
	n = sscanf(buf, "mhz=%u locked=%d", &mhz, &locked);
	ASSERT_EQ(2, n);
	EXPECT_LE(self->info.clock_min_mhz, mhz);
	EXPECT_GE(self->info.clock_max_mhz, mhz);
	EXPECT_EQ(!!(s.flags & KPROF_CLOCK_LOCKED), locked);
	EXPECT_EQ(!!(s.flags & KPROF_CLOCK_SAVED), !!strstr(buf, " saved="));
}

/* Locking shows in sysfs with the saved state; reset clears it. */
TEST_F(dev, sysfs_clock_locked)
{
	char buf[256], want[64];

	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ,
				  self->info.clock_min_mhz));
	ASSERT_EQ(0, sysfs_attr(0, "clock", buf, sizeof(buf)));
	kt_clock_set(self->fd, KPROF_CLOCK_OP_RESET, 0);
	snprintf(want, sizeof(want), "mhz=%u locked=1 saved=auto",
		 self->info.clock_min_mhz);
	EXPECT_STREQ(want, buf);
	ASSERT_EQ(0, sysfs_attr(0, "clock", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, "saved="));
	EXPECT_NE(NULL, strstr(buf, "locked=0"));
}

/* Device nodes are root:kprof 0660 (devtmpfs gets the same mode). */
TEST_F(dev, node_modes)
{
	struct stat st;
	char path[64];

	snprintf(path, sizeof(path), KT_DEV_FMT, 0);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0660, st.st_mode & 07777);
	snprintf(path, sizeof(path), KT_SIMDEV_FMT, 0);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0660, st.st_mode & 07777);
}

TEST_HARNESS_MAIN
