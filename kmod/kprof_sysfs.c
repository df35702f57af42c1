// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs attributes of /sys/class/kprof/kprofN: what the device is, its
 * clock, and who holds the capture. No kernel addresses, ever.
 */
#include <linux/device.h>
#include <linux/pid.h>
#include <linux/sysfs.h>

#include "kprof_internal.h"

static struct kprof_device *to_kd(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t backend_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", to_kd(dev)->backend_name);
}
static DEVICE_ATTR_RO(backend);

static ssize_t cores_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", to_kd(dev)->hw.num_cores);
}
static DEVICE_ATTR_RO(cores);

static ssize_t grid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct kprof_device *kd = to_kd(dev);

	return sysfs_emit(buf, "%ux%u\n", kd->hw.grid_x, kd->hw.grid_y);
}
static DEVICE_ATTR_RO(grid);

static ssize_t riscs_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct kprof_device *kd = to_kd(dev);
	int len = 0;
	u32 i;

	for (i = 0; i < kd->hw.riscs_per_core; i++)
		len += sysfs_emit_at(buf, len, "%s%s", i ? " " : "",
				     kd->risc_names[i]);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}
static DEVICE_ATTR_RO(riscs);

static ssize_t counters_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct kprof_device *kd = to_kd(dev);
	int len = 0;
	u32 i;

	for (i = 0; i < kd->hw.num_counters; i++)
		len += sysfs_emit_at(buf, len, "%s\n", kd->counters[i].name);
	return len;
}
static DEVICE_ATTR_RO(counters);

static ssize_t clock_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct kprof_device *kd = to_kd(dev);
	struct kprof_hw_clock clk = {};
	ssize_t len;

	mutex_lock(&kd->lock);
	if (kd->dead) {
		mutex_unlock(&kd->lock);
		return -ENODEV;
	}
	kd->ops->get_clock(kd, &clk);
	len = sysfs_emit(buf, "mhz=%u locked=%d", clk.mhz, clk.locked);
	if (kd->clk.valid && kd->clk.locked)
		len += sysfs_emit_at(buf, len, " saved=locked:%u", kd->clk.mhz);
	else if (kd->clk.valid)
		len += sysfs_emit_at(buf, len, " saved=auto");
	len += sysfs_emit_at(buf, len, "\n");
	mutex_unlock(&kd->lock);
	return len;
}
static DEVICE_ATTR_RO(clock);

static ssize_t capture_holder_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct kprof_device *kd = to_kd(dev);
	ssize_t len;
	pid_t nr;

	mutex_lock(&kd->lock);
	/* In the reader's pid namespace; one it cannot see reads as 0. */
	nr = pid_vnr(kd->holder);
	if (nr)
		len = sysfs_emit(buf, "%d %s\n", nr, kd->holder_comm);
	else if (kd->holder)
		len = sysfs_emit(buf, "0\n");
	else
		len = sysfs_emit(buf, "none\n");
	mutex_unlock(&kd->lock);
	return len;
}
static DEVICE_ATTR_RO(capture_holder);

/* Producer statistics are updated under kd->prod_lock. */
static u64 kprof_read_stat(struct kprof_device *kd, const u64 *stat)
{
	unsigned long flags;
	u64 v;

	spin_lock_irqsave(&kd->prod_lock, flags);
	v = *stat;
	spin_unlock_irqrestore(&kd->prod_lock, flags);
	return v;
}

/* A read-only attribute showing the producer statistic at off in kd. */
struct kprof_stat_attr {
	struct device_attribute attr;
	size_t off;
};

static ssize_t kprof_stat_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	const struct kprof_stat_attr *sa = container_of(attr, struct kprof_stat_attr, attr);
	struct kprof_device *kd = to_kd(dev);

	return sysfs_emit(buf, "%llu\n",
			  kprof_read_stat(kd, (const u64 *)((const char *)kd + sa->off)));
}

/* __ATTR_RO() spelled out: the show function is shared, not _name_show */
#define KPROF_STAT_ATTR(_name)						\
	static struct kprof_stat_attr kprof_stat_##_name = {		\
		.attr = {						\
			.attr = { .name = __stringify(_name), .mode = 0444 },	\
			.show = kprof_stat_show,			\
		},							\
		.off = offsetof(struct kprof_device, _name),		\
	}

KPROF_STAT_ATTR(markers_dropped);
KPROF_STAT_ATTR(dma_missed_irqs);
KPROF_STAT_ATTR(dma_timeouts);
KPROF_STAT_ATTR(dma_submit_errors);

static struct attribute *kprof_dev_attrs[] = {
	&dev_attr_backend.attr,
	&dev_attr_cores.attr,
	&dev_attr_grid.attr,
	&dev_attr_riscs.attr,
	&dev_attr_counters.attr,
	&dev_attr_clock.attr,
	&dev_attr_capture_holder.attr,
	&kprof_stat_markers_dropped.attr.attr,
	&kprof_stat_dma_missed_irqs.attr.attr,
	&kprof_stat_dma_timeouts.attr.attr,
	&kprof_stat_dma_submit_errors.attr.attr,
	NULL,
};

static const struct attribute_group kprof_dev_group = {
	.attrs = kprof_dev_attrs,
};

const struct attribute_group *kprof_dev_groups[] = {
	&kprof_dev_group,
	NULL,
};
