// SPDX-License-Identifier: GPL-2.0
/*
 * kprof core: device registration and /dev/kprofN open/release (ioctls
 * are in kprof_ioctl.c).
 */
#include <linux/module.h>
#include <linux/cdev.h>
#include <linux/idr.h>
#include <linux/xarray.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/poll.h>

#include "kprof_internal.h"

static DEFINE_IDA(kprof_ida);
/* Minor -> device for open(); an entry means "not unregistered yet". */
static DEFINE_XARRAY(kprof_devs);
static DEFINE_MUTEX(kprof_devs_lock);
static struct cdev kprof_cdev;

static void kprof_device_release(struct kref *ref)
{
	struct kprof_device *kd = container_of(ref, struct kprof_device, ref);

	/* Every ring holds a reference. */
	WARN_ON(!list_empty(&kd->rings));
	if (kd->inode)
		kprof_inode_free(kd->inode);
	put_device(kd->dev);
	mutex_destroy(&kd->rings_lock);
	mutex_destroy(&kd->lock);
	kfree(kd);
}

void kprof_device_put(struct kprof_device *kd)
{
	kref_put(&kd->ref, kprof_device_release);
}

void *kprof_device_priv(struct kprof_device *kd)
{
	return kd->priv;
}
EXPORT_SYMBOL_NS_GPL(kprof_device_priv, KPROF);

int kprof_device_id(struct kprof_device *kd)
{
	return kd->id;
}
EXPORT_SYMBOL_NS_GPL(kprof_device_id, KPROF);

static int kprof_check_hw_info(const struct kprof_backend_ops *ops,
			       const struct kprof_hw_info *hw)
{
	if (!ops || !hw || !hw->backend)
		return -EINVAL;
	if (!ops->capture_start || !ops->capture_stop ||
	    !ops->capture_pause || !ops->dma_submit || !ops->dma_poll ||
	    !ops->get_clock || !ops->set_clock || !ops->cross_timestamp)
		return -EINVAL;
	if (!hw->num_cores || hw->riscs_per_core > KPROF_MAX_RISCS ||
	    hw->num_counters > KPROF_MAX_COUNTERS ||
	    (hw->num_counters && !hw->counters))
		return -EINVAL;
	if (hw->clock_min_mhz > hw->clock_base_mhz ||
	    hw->clock_base_mhz > hw->clock_max_mhz)
		return -EINVAL;
	return 0;
}

static void kprof_copy_hw_info(struct kprof_device *kd,
			       const struct kprof_hw_info *hw)
{
	u32 i;

	kd->hw = *hw;
	strscpy(kd->backend_name, hw->backend, sizeof(kd->backend_name));
	kd->hw.backend = kd->backend_name;
	for (i = 0; i < hw->riscs_per_core; i++) {
		if (hw->risc_names[i])
			strscpy(kd->risc_names[i], hw->risc_names[i],
				KPROF_RISC_NAME_LEN);
		else
			snprintf(kd->risc_names[i], KPROF_RISC_NAME_LEN,
				 "RISC%u", i);
		kd->hw.risc_names[i] = kd->risc_names[i];
	}
	for (i = 0; i < hw->num_counters; i++) {
		strscpy(kd->counters[i].name, hw->counters[i].name,
			sizeof(kd->counters[i].name));
		strscpy(kd->counters[i].unit, hw->counters[i].unit,
			sizeof(kd->counters[i].unit));
	}
	kd->hw.counters = kd->counters;
	if (!kd->ops->mmap_counters)
		kd->hw.counter_block_size = 0;
}

struct kprof_device *kprof_device_register(struct device *parent,
					   const struct kprof_backend_ops *ops,
					   const struct kprof_hw_info *info,
					   void *priv)
{
	struct kprof_device *kd;
	struct device *dev;
	int ret;

	if (!parent)
		return ERR_PTR(-EINVAL);
	ret = kprof_check_hw_info(ops, info);
	if (ret)
		return ERR_PTR(ret);

	kd = kzalloc(sizeof(*kd), GFP_KERNEL);
	if (!kd)
		return ERR_PTR(-ENOMEM);
	kref_init(&kd->ref);
	mutex_init(&kd->lock);
	init_rwsem(&kd->mmap_sem);
	mutex_init(&kd->rings_lock);
	INIT_LIST_HEAD(&kd->rings);
	spin_lock_init(&kd->prod_lock);
	spin_lock_init(&kd->cache_lock);
	init_waitqueue_head(&kd->read_wq);
	/*
	 * INFO and warnings name the device from ioctls, readers and timers
	 * that can outlive unregister: keep the name, not the parent (kd->dev
	 * is ours and held until kd goes).
	 */
	kd->parent = get_device(parent);
	strscpy(kd->parent_name, dev_name(parent), sizeof(kd->parent_name));
	kd->ops = ops;
	kd->priv = priv;
	kprof_copy_hw_info(kd, info);
	kd->inode = kprof_inode_new();
	if (IS_ERR(kd->inode)) {
		ret = PTR_ERR(kd->inode);
		kd->inode = NULL;
		goto err_free;
	}

	ret = ida_alloc_max(&kprof_ida, KPROF_MAX_DEVICES - 1, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	kd->id = ret;

	/*
	 * Published last: until the store below, open() of the minor (a
	 * stale node of an earlier device, or the new one as soon as udev
	 * sees it) finds nothing and fails with ENODEV, so no file can hold
	 * a kd that a failed registration is about to free along with the
	 * backend's state. The slot is reserved first, so storing cannot
	 * fail.
	 */
	ret = xa_reserve(&kprof_devs, kd->id, GFP_KERNEL);
	if (ret)
		goto err_ida;

	ret = kprof_test_register_step();
	if (ret)
		goto err_xa;
	dev = device_create_with_groups(kprof_class, parent,
					MKDEV(MAJOR(kprof_devt), kd->id), kd,
					kprof_dev_groups, "kprof%d", kd->id);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto err_xa;
	}
	kd->dev = get_device(dev);

	mutex_lock(&kprof_devs_lock);
	xa_store(&kprof_devs, kd->id, kd, GFP_KERNEL);
	mutex_unlock(&kprof_devs_lock);
	return kd;

err_xa:
	xa_release(&kprof_devs, kd->id);
err_ida:
	ida_free(&kprof_ida, kd->id);
err_free:
	put_device(kd->parent);
	kprof_device_put(kd);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_NS_GPL(kprof_device_register, KPROF);

void kprof_device_unregister(struct kprof_device *kd)
{
	if (IS_ERR_OR_NULL(kd))
		return;

	/* Unpublished first: no new opens from here on. */
	mutex_lock(&kprof_devs_lock);
	xa_erase(&kprof_devs, kd->id);
	mutex_unlock(&kprof_devs_lock);

	/*
	 * No new mapping or ring page from here on, and none left: later
	 * faults on any mapping of the device get SIGBUS.
	 */
	down_write(&kd->mmap_sem);
	kd->mmap_dead = true;
	up_write(&kd->mmap_sem);
	unmap_mapping_range(kd->inode->i_mapping, 0, 0, 1);

	/*
	 * Ioctls hold kd->lock while they use the backend, so once we own it
	 * none is in progress, and all later ones see dead.
	 */
	mutex_lock(&kd->lock);
	WRITE_ONCE(kd->dead, true);
	kprof_capture_stop_locked(kd, KPROF_STATE_GONE, KPROF_REASON_REMOVED);
	kprof_clock_reset_locked(kd);
	mutex_unlock(&kd->lock);

	wake_up_all(&kd->read_wq);
	kprof_ring_cache_close(kd);
	/* The device is stopped: no ring stays mapped for it. */
	kprof_ring_unmap_all(kd);
	/* Waits for sysfs readers, which may still call ops under the lock. */
	device_destroy(kprof_class, MKDEV(MAJOR(kprof_devt), kd->id));
	ida_free(&kprof_ida, kd->id);
	/* Nothing of the core uses the parent from here on (see register). */
	put_device(kd->parent);
	kd->parent = NULL;
	kprof_device_put(kd);
}
EXPORT_SYMBOL_NS_GPL(kprof_device_unregister, KPROF);

/*
 * Take kd->lock for an operation on a live device. User memory is never
 * touched under it: a faulting (or userfaultfd-stalled) copy must not be
 * able to hold up removal or another process's ioctl.
 */
int kprof_lock_live(struct kprof_device *kd)
{
	if (mutex_lock_interruptible(&kd->lock))
		return -ERESTARTSYS;
	if (kd->dead) {
		mutex_unlock(&kd->lock);
		return -ENODEV;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* File operations                                                     */
/* ------------------------------------------------------------------ */

static int kprof_open(struct inode *inode, struct file *file)
{
	struct kprof_device *kd;
	struct kprof_file *kf;

	kf = kzalloc(sizeof(*kf), GFP_KERNEL);
	if (!kf)
		return -ENOMEM;

	mutex_lock(&kprof_devs_lock);
	kd = xa_load(&kprof_devs, iminor(inode));
	if (kd)
		kref_get(&kd->ref);
	mutex_unlock(&kprof_devs_lock);
	if (!kd) {
		kfree(kf);
		return -ENODEV;
	}

	spin_lock_init(&kf->lock);
	kf->kd = kd;
	file->private_data = kf;
	/* Mappings of every node of the device, in one place to zap. */
	file->f_mapping = kd->inode->i_mapping;
	return nonseekable_open(inode, file);
}

static int kprof_release(struct inode *inode, struct file *file)
{
	struct kprof_file *kf = file->private_data;
	struct kprof_device *kd = kf->kd;
	struct kprof_capture *cap;
	unsigned long flags;

	/* Closing (or dying while holding) the capture ends it at once. */
	mutex_lock(&kd->lock);
	spin_lock_irqsave(&kd->prod_lock, flags);
	cap = kd->cap;
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	if (cap && cap->holder == kf)
		kprof_capture_stop_locked(kd, KPROF_STATE_STOPPED,
					  KPROF_REASON_STOP);
	mutex_unlock(&kd->lock);

	spin_lock(&kf->lock);
	cap = kf->cap;
	kf->cap = NULL;
	spin_unlock(&kf->lock);
	if (cap)
		kprof_capture_put(cap);

	kprof_device_put(kd);
	kfree(kf);
	return 0;
}

static const struct file_operations kprof_fops = {
	.owner = THIS_MODULE,
	.open = kprof_open,
	.release = kprof_release,
	.unlocked_ioctl = kprof_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.read = kprof_capture_read,
	.poll = kprof_capture_poll,
	.mmap = kprof_capture_mmap,
	.llseek = no_llseek,
};

int kprof_core_init(void)
{
	cdev_init(&kprof_cdev, &kprof_fops);
	kprof_cdev.owner = THIS_MODULE;
	return cdev_add(&kprof_cdev, kprof_devt, KPROF_MAX_DEVICES);
}

void kprof_core_exit(void)
{
	cdev_del(&kprof_cdev);
	ida_destroy(&kprof_ida);
	WARN_ON(!xa_empty(&kprof_devs));
}
