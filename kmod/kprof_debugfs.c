// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/kprof/: what kmemleak cannot see. "pages" counts the
 * pages the core holds for capture rings (control pages and data), so
 * tests can check that captures and device removal give every one back.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>

#include "kprof_internal.h"

static atomic_long_t kprof_ring_pages = ATOMIC_LONG_INIT(0);
static struct dentry *kprof_dbg_root;

void kprof_pages_add(unsigned long n)
{
	atomic_long_add(n, &kprof_ring_pages);
}

void kprof_pages_sub(unsigned long n)
{
	atomic_long_sub(n, &kprof_ring_pages);
}

static int kprof_pages_get(void *data, u64 *val)
{
	*val = atomic_long_read(&kprof_ring_pages);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kprof_pages_fops, kprof_pages_get, NULL, "%llu\n");

void kprof_debugfs_init(void)
{
	kprof_dbg_root = debugfs_create_dir("kprof", NULL);
	debugfs_create_file_unsafe("pages", 0400, kprof_dbg_root, NULL,
				   &kprof_pages_fops);
}

/* Every fd and mapping is gone by module exit: so are the rings. */
void kprof_debugfs_exit(void)
{
	debugfs_remove_recursive(kprof_dbg_root);
	kprof_dbg_root = NULL;
	WARN_ON(atomic_long_read(&kprof_ring_pages));
}
