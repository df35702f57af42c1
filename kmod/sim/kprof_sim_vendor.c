// SPDX-License-Identifier: GPL-2.0
/*
 * The sim's vendor device, /dev/kprof_simN: what an application's runtime
 * uses to drive the accelerator (LAUNCH an op, SYNC on completion), and
 * what kprof's BPF programs trace.
 */
#include <linux/bits.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kprof_sim_priv.h"

/* Bounds that keep one op under about 11 s of modelled time. */
#define KPROF_SIM_MAX_FLOPS	BIT_ULL(44)
#define KPROF_SIM_MAX_BYTES	BIT_ULL(37)

static int kprof_sim_vendor_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct kprof_sim_dev *sd = container_of(misc, struct kprof_sim_dev,
						misc);

	/* misc_open holds misc_mtx, so misc_deregister cannot race this. */
	get_device(&sd->dev);
	file->private_data = sd;
	return nonseekable_open(inode, file);
}

static int kprof_sim_vendor_release(struct inode *inode, struct file *file)
{
	struct kprof_sim_dev *sd = file->private_data;

	put_device(&sd->dev);
	return 0;
}

/* 1..31 printable characters without spaces, so truth stays parseable. */
static bool kprof_sim_name_ok(const char *name)
{
	size_t i;

	if (!name[0] || !memchr(name, 0, KPROF_SIM_NAME_LEN))
		return false;
	for (i = 0; name[i]; i++)
		if (!isgraph(name[i]))
			return false;
	return true;
}

static long kprof_sim_ioc_launch(struct kprof_sim_dev *sd,
				 struct kprof_sim_launch __user *ul)
{
	struct kprof_sim_launch l;
	struct kprof_sim_op op;
	int ret;

	if (copy_from_user(&l, ul, sizeof(l)))
		return -EFAULT;
	if (l.size != sizeof(l) || l.flags & ~KPROF_SIM_LAUNCH_FLAGS_ALL ||
	    l.reserved0 || l.reserved[0] || l.reserved[1])
		return -EINVAL;
	if (!kprof_sim_name_ok(l.name))
		return -EINVAL;
	if (l.first_core >= sd->num_cores ||
	    l.num_cores > sd->num_cores - l.first_core)
		return -EINVAL;
	if (l.num_zones > KPROF_SIM_MAX_ZONES ||
	    l.flops > KPROF_SIM_MAX_FLOPS || l.bytes > KPROF_SIM_MAX_BYTES)
		return -EINVAL;

	memset(&op, 0, sizeof(op));
	memcpy(op.name, l.name, sizeof(op.name));
	op.first_core = l.first_core;
	op.num_cores = l.num_cores ? l.num_cores :
				     sd->num_cores - l.first_core;
	op.flops = l.flops;
	op.bytes = l.bytes;
	op.num_zones = l.num_zones;
	ret = kprof_sim_enqueue(sd, &op);
	if (ret)
		return ret;
	/* The op is queued either way; seq is the only output. */
	if (put_user(op.seq, &ul->seq))
		return -EFAULT;
	return 0;
}

static long kprof_sim_ioc_sync(struct kprof_sim_dev *sd,
			       struct kprof_sim_sync __user *us)
{
	struct kprof_sim_sync s;
	u64 completed = 0;
	int ret;

	if (copy_from_user(&s, us, sizeof(s)))
		return -EFAULT;
	if (s.size != sizeof(s) || s.flags & ~KPROF_SIM_SYNC_FLAGS_ALL ||
	    s.reserved[0] || s.reserved[1])
		return -EINVAL;
	ret = kprof_sim_wait(sd, s.flags & KPROF_SIM_SYNC_ALL, s.seq,
			     s.timeout_ns, &completed);
	if (ret == -EINVAL)
		return ret;
	if (put_user(completed, &us->completed_seq))
		return -EFAULT;
	return ret;
}

static long kprof_sim_vendor_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	struct kprof_sim_dev *sd = file->private_data;
	void __user *argp = (void __user *)arg;

	if (READ_ONCE(sd->dead))
		return -ENODEV;
	switch (cmd) {
	case KPROF_SIM_IOC_LAUNCH:
		return kprof_sim_ioc_launch(sd, argp);
	case KPROF_SIM_IOC_SYNC:
		return kprof_sim_ioc_sync(sd, argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations kprof_sim_vendor_fops = {
	.owner		= THIS_MODULE,
	.open		= kprof_sim_vendor_open,
	.release	= kprof_sim_vendor_release,
	.unlocked_ioctl	= kprof_sim_vendor_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};

int kprof_sim_vendor_init(struct kprof_sim_dev *sd)
{
	int ret;

	snprintf(sd->misc_name, sizeof(sd->misc_name), "kprof_sim%u", sd->id);
	sd->misc.minor = MISC_DYNAMIC_MINOR;
	sd->misc.name = sd->misc_name;
	sd->misc.fops = &kprof_sim_vendor_fops;
	sd->misc.parent = &sd->dev;
	sd->misc.mode = 0660;
	ret = misc_register(&sd->misc);
	if (ret)
		sd->misc.name = NULL;
	return ret;
}

void kprof_sim_vendor_exit(struct kprof_sim_dev *sd)
{
	if (sd->misc.name)
		misc_deregister(&sd->misc);
	sd->misc.name = NULL;
}
