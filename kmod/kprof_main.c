// SPDX-License-Identifier: GPL-2.0
/*
 * kprof.ko, the core: the "kprof" class and the char device region. The
 * backends are modules of their own (kprof_sim.ko, kprof_edu.ko) that
 * register their devices through kprof_backend.h.
 */
#include <linux/module.h>
#include <linux/device.h>
#include <linux/fs.h>

#include "kprof_internal.h"

struct class *kprof_class;
dev_t kprof_devt;

/* udev rules set root:kprof 0660; devtmpfs gets the same mode. */
static char *kprof_devnode(struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0660;
	return NULL;
}

static int __init kprof_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&kprof_devt, 0, KPROF_MAX_DEVICES, "kprof");
	if (ret)
		return ret;

	kprof_class = class_create(THIS_MODULE, "kprof");
	if (IS_ERR(kprof_class)) {
		ret = PTR_ERR(kprof_class);
		goto err_region;
	}
	kprof_class->devnode = kprof_devnode;

	kprof_debugfs_init();
	ret = kprof_core_init();
	if (ret)
		goto err_class;
	return 0;

err_class:
	kprof_debugfs_exit();
	class_destroy(kprof_class);
err_region:
	unregister_chrdev_region(kprof_devt, KPROF_MAX_DEVICES);
	return ret;
}

static void __exit kprof_exit(void)
{
	/* Every backend module, which depends on this one, is gone. */
	kprof_core_exit();
	kprof_debugfs_exit();
	class_destroy(kprof_class);
	unregister_chrdev_region(kprof_devt, KPROF_MAX_DEVICES);
}

module_init(kprof_init);
module_exit(kprof_exit);

MODULE_DESCRIPTION("kprof: accelerator profiling capture, core (backends are modules)");
MODULE_AUTHOR("kprof developers");
MODULE_LICENSE("GPL");
