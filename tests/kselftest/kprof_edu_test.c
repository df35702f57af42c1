// SPDX-License-Identifier: GPL-2.0
/*
 * The PCI reference backend, kprof_edu.ko, on QEMU's edu device: a capture
 * gets the ops the device ran and their markers through the device's own
 * DMA engine, on the INTx line (msi=0) and on MSI; the device is then
 * removed while a capture runs and its ring is mapped, first through sysfs
 * (then rescanned), then by QEMU's device_del (hot-unplug). The reader
 * gets a clear end: SIGBUS on the mapping, the rest of the data then EOF
 * from read(), ENODEV from ioctls; and every ring page comes back (debugfs
 * kprof/pages). Needs the VM's edu device: tests/vm/run --edu [--iommu]
 * --suite kprof_edu_test (not in the plain suite, which has no edu
 * device).
 */
#include "kprof_test_util.h"
#include "kprof_harness.h"

#define EDU_DRV_DIR	"/sys/bus/pci/drivers/kprof_edu"
#define EDU_OPS		8
/* Bounds, not timings: edu moves 4 KiB per 200 ms of virtual time. */
#define EDU_WAIT_MS	20000
#define EDU_GONE_MS	60000
/*
 * Within ZONE_DMA (16 MiB): without an IOMMU the ring must lie under
 * edu's 28-bit mask, and on a guest with more memory than that (the debug
 * lane's 1 GiB) only ZONE_DMA is sure to be (kmod/kprof_ring.c).
 */
#define EDU_RING_SIZE	(1U << 20)

/* The PCI address of the bound edu device, e.g. 0000:01:00.0. */
static int edu_bdf(char *bdf, size_t len)
{
	DIR *d = opendir(EDU_DRV_DIR);
	struct dirent *e;
	int ret = -ENODEV;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "0000:", 5)) {
			snprintf(bdf, len, "%.31s", e->d_name);
			ret = 0;
			break;
		}
	closedir(d);
	return ret;
}

/* kprofN under the PCI device (the core makes it a child of the parent). */
static int edu_kprof_id(const char *bdf)
{
	char path[128];
	struct dirent *e;
	int id = -1;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/kprof", bdf);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "kprof%d", &id) == 1)
			break;
	closedir(d);
	return id;
}

static int edu_run_ops(const char *bdf, int n)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/factorial", bdf);
	for (int i = 0; i < n; i++)
		if (kt_write_file(path, "10"))
			return -1;
	return 0;
}

static bool edu_present(const char *bdf)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	return access(path, F_OK) == 0;
}

/* Read the ring until it holds ops OP and 2 * ops MARKER records. */
static int edu_wait_records(struct kt_ring *r, int ops, struct kt_recs *rs)
{
	int nop = 0, nmark = 0;

	for (int ms = 0; ms < EDU_WAIT_MS && (nop < ops || nmark < 2 * ops);
	     ms += 50) {
		size_t off = rs->len;

		if (kt_ring_drain(r, rs) < 0)
			return -1;
		while (off < rs->len) {
			const struct kprof_rec_hdr *h = (const void *)(rs->buf + off);

			nop += h->type == KPROF_REC_OP;
			nmark += h->type == KPROF_REC_MARKER;
			off += h->size;
		}
		kt_sleep_ms(50);
	}
	return nop == ops && nmark == 2 * ops ? 0 : -1;
}

/*
 * Capture on the edu device with the ring mapped, have REMOVE take the
 * device away mid-capture, and check the end the reader sees.
 */
static void edu_remove_while_mapped(struct __test_metadata *_metadata,
				    void (*remove)(const char *bdf))
{
	struct kprof_device_info info;
	struct kt_recs rs = { 0 };
	uint64_t pages0, pages;
	struct kt_ring r;
	char bdf[32], buf[4096];
	ssize_t n = 1;
	int fd, id, i;

	ASSERT_TRUE(kt_debugfs_ready());
	ASSERT_EQ(0, edu_bdf(bdf, sizeof(bdf)));
	id = edu_kprof_id(bdf);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, kt_read_u64(KT_PAGES_FILE, &pages0));
	fd = kt_open_dev(id);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kt_info(fd, &info));
	EXPECT_STREQ("edu", info.backend);
	ASSERT_EQ(0, kt_start(fd, 0, EDU_RING_SIZE, 0));
	ASSERT_EQ(0, kt_ring_map(&r, fd));
	ASSERT_EQ(0, edu_run_ops(bdf, EDU_OPS));
	/* The device's DMA engine put them in the ring. */
	EXPECT_EQ(0, edu_wait_records(&r, EDU_OPS, &rs));
	EXPECT_FALSE(rs.malformed) TH_LOG("%s", rs.why);
	/* More ops in flight while it goes. */
	ASSERT_EQ(0, edu_run_ops(bdf, 2));

	remove(bdf);
	for (i = 0; i < EDU_GONE_MS / 50 && edu_present(bdf); i++)
		kt_sleep_ms(50);
	ASSERT_FALSE(edu_present(bdf)) TH_LOG("%s still there", bdf);

	EXPECT_EQ(1, kt_sigbus_on_read((const volatile uint8_t *)r.map));
	EXPECT_EQ(1, kt_sigbus_on_read(r.data));
	EXPECT_EQ(-ENODEV, kt_info(fd, &info));
	for (i = 0; i < 100000 && (n = read(fd, buf, sizeof(buf))) > 0; i++)
		;
	EXPECT_GE(0, n);
	kt_ring_unmap(&r);
	close(fd);
	kt_recs_free(&rs);
	ASSERT_EQ(0, kt_read_u64(KT_PAGES_FILE, &pages));
	EXPECT_EQ(pages0, pages);
}

static void remove_sysfs(const char *bdf)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);
	kt_write_file(path, "1");
}

/* tests/vm/run passes the marker to QEMU's monitor as device_del. */
static void remove_device_del(const char *bdf)
{
	(void)bdf;
	printf("@@KPROF-VM:DEVICE-DEL edu0@@\n");
	fflush(stdout);
}

FIXTURE(edu) {
	int unused;
};

FIXTURE_SETUP(edu)
{
}

FIXTURE_TEARDOWN(edu)
{
}

TEST_F(edu, iommu_as_booted)
{
	char bdf[32], path[160], cmd[1024];
	bool want;

	ASSERT_EQ(0, edu_bdf(bdf, sizeof(bdf)));
	ASSERT_LT(0, kt_read_file("/proc/cmdline", cmd, sizeof(cmd)));
	want = !!strstr(cmd, "intel_iommu=on");
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", bdf);
	/* With --iommu the device's DMA goes through DMA remapping. */
	EXPECT_EQ(want, access(path, F_OK) == 0);
	TH_LOG("%s: %s", bdf, want ? "behind the IOMMU" : "no IOMMU");
}

/* Wait for the edu device to be bound and registered; its kprofN. */
static int edu_wait_bound(char *bdf, size_t len)
{
	int id = -1;

	for (int i = 0; i < EDU_GONE_MS / 50 && id < 0; i++) {
		if (!edu_bdf(bdf, len))
			id = edu_kprof_id(bdf);
		if (id < 0)
			kt_sleep_ms(50);
	}
	return id;
}

/* Reload kprof_edu.ko with PARAMS; the device's kprofN, or -1. */
static int edu_reload(const char *params, char *bdf, size_t len)
{
	if (kt_module_unload("kprof_edu") ||
	    kt_module_load(KT_EDU_MODULE_PATH, params))
		return -1;
	return edu_wait_bound(bdf, len);
}

/* A capture on kprofID gets the ops run on BDF and their markers. */
static void edu_capture_ops(struct __test_metadata *_metadata, int id,
			    const char *bdf)
{
	struct kt_recs rs = { 0 };
	struct kt_ring r;
	int fd = kt_open_dev(id);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kt_start(fd, 0, EDU_RING_SIZE, 0));
	ASSERT_EQ(0, kt_ring_map(&r, fd));
	ASSERT_EQ(0, edu_run_ops(bdf, EDU_OPS));
	EXPECT_EQ(0, edu_wait_records(&r, EDU_OPS, &rs));
	EXPECT_FALSE(rs.malformed) TH_LOG("%s", rs.why);
	EXPECT_EQ(0, kt_stop(fd));
	kt_ring_unmap(&r);
	kt_recs_free(&rs);
	close(fd);
}

TEST_F_TIMEOUT(edu, intx_and_msi, 300)
{
	char bdf[32], path[160];
	int id;

	/* msi=0: the legacy INTx line, shared, status-checked handler. */
	id = edu_reload("msi=0", bdf, sizeof(bdf));
	ASSERT_LE(0, id);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/msi_irqs", bdf);
	EXPECT_NE(0, access(path, F_OK));
	edu_capture_ops(_metadata, id, bdf);
	/* The default: MSI. */
	id = edu_reload("", bdf, sizeof(bdf));
	ASSERT_LE(0, id);
	EXPECT_EQ(0, access(path, F_OK));
	edu_capture_ops(_metadata, id, bdf);
	/* A fresh device, no ring cached, for the page counts below. */
	ASSERT_LE(0, edu_reload("", bdf, sizeof(bdf)));
}

TEST_F_TIMEOUT(edu, remove_sysfs_while_mapped, 300)
{
	char bdf[32];

	ASSERT_EQ(0, edu_bdf(bdf, sizeof(bdf)));
	edu_remove_while_mapped(_metadata, remove_sysfs);
	/* It comes back, bound again, for the next case. */
	ASSERT_EQ(0, kt_write_file("/sys/bus/pci/rescan", "1"));
	ASSERT_LE(0, edu_wait_bound(bdf, sizeof(bdf)));
}

TEST_F_TIMEOUT(edu, hot_unplug_while_mapped, 300)
{
	/*
	 * The stock lane's guest gets QEMU's eject through ACPI (acpiphp);
	 * the debug lane boots with acpi=noirq, which leaves ACPI no
	 * interrupt, so it runs QEMU with native PCIe hotplug (pciehp,
	 * tests/vm/run --pciehp). Either way the device goes.
	 */
	edu_remove_while_mapped(_metadata, remove_device_del);
}

TEST_HARNESS_MAIN
