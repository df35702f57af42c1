// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/kprof/: what kmemleak cannot see. "pages" counts the
 * pages the core holds for capture rings (control pages and data), so
 * tests can check that captures and device removal give every one back;
 * "pages_cached" the part of them idle in the devices' ring caches (one
 * ring per device at most), which stays until the device goes.
 * The test_* knobs are for tests only: they widen or fail a step of
 * registration or of INFO, or have read() take a record for malformed, so
 * that a race the step guards against, or a path only a faulty backend
 * takes, can be shown.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>

#include "kprof_internal.h"

static atomic_long_t kprof_ring_pages = ATOMIC_LONG_INIT(0);
static atomic_long_t kprof_cached_pages = ATOMIC_LONG_INIT(0);
static struct dentry *kprof_dbg_root;
static u32 kprof_test_register_delay_ms;
static bool kprof_test_register_fail;
static u32 kprof_test_info_delay_ms;
static u32 kprof_test_bad_record;

/*
 * Called by kprof_device_register() just before it creates /dev/kprofN:
 * sleeps test_register_delay_ms, then fails as device_create() would if
 * test_register_fail is set.
 */
int kprof_test_register_step(void)
{
	u32 ms = READ_ONCE(kprof_test_register_delay_ms);

	if (ms)
		msleep(min_t(u32, ms, 10000));
	return READ_ONCE(kprof_test_register_fail) ? -EIO : 0;
}

/*
 * Called by INFO just before it copies the device's name: sleeps
 * test_info_delay_ms, so that a removal can run meanwhile if INFO does
 * not hold the device.
 */
void kprof_test_info_step(void)
{
	u32 ms = READ_ONCE(kprof_test_info_delay_ms);

	if (ms)
		msleep(min_t(u32, ms, 10000));
}

/*
 * Called by read() for each record it checks: true once after a write
 * of test_bad_record, and read() then takes that record for malformed,
 * as if the backend had written a bad header (a warning path that still
 * runs after the device is gone).
 */
bool kprof_test_bad_record_step(void)
{
	return READ_ONCE(kprof_test_bad_record) && xchg(&kprof_test_bad_record, 0);
}

void kprof_pages_add(unsigned long n)
{
	atomic_long_add(n, &kprof_ring_pages);
}

void kprof_pages_sub(unsigned long n)
{
	atomic_long_sub(n, &kprof_ring_pages);
}

/* A ring of n pages went into a device's cache (n > 0) or left it. */
void kprof_pages_cached_add(long n)
{
	atomic_long_add(n, &kprof_cached_pages);
}

static int kprof_pages_get(void *data, u64 *val)
{
	*val = atomic_long_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kprof_pages_fops, kprof_pages_get, NULL, "%llu\n");

void kprof_debugfs_init(void)
{
	kprof_dbg_root = debugfs_create_dir("kprof", NULL);
	debugfs_create_file_unsafe("pages", 0400, kprof_dbg_root,
				   &kprof_ring_pages, &kprof_pages_fops);
	debugfs_create_file_unsafe("pages_cached", 0400, kprof_dbg_root,
				   &kprof_cached_pages, &kprof_pages_fops);
	debugfs_create_u32("test_register_delay_ms", 0600, kprof_dbg_root,
			   &kprof_test_register_delay_ms);
	debugfs_create_bool("test_register_fail", 0600, kprof_dbg_root,
			    &kprof_test_register_fail);
	debugfs_create_u32("test_info_delay_ms", 0600, kprof_dbg_root,
			   &kprof_test_info_delay_ms);
	debugfs_create_u32("test_bad_record", 0600, kprof_dbg_root,
			   &kprof_test_bad_record);
}

/* Every fd and mapping is gone by module exit: so are the rings. */
void kprof_debugfs_exit(void)
{
	debugfs_remove_recursive(kprof_dbg_root);
	kprof_dbg_root = NULL;
	WARN_ON(atomic_long_read(&kprof_ring_pages) ||
		atomic_long_read(&kprof_cached_pages));
}
