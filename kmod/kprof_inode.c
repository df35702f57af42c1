// SPDX-License-Identifier: GPL-2.0
/*
 * One anonymous inode per kprof device, on a small internal pseudo file
 * system (as DRM does), whose address_space every open file of the
 * device uses as its f_mapping: all user mappings of a device, through
 * any of its device nodes, are then in one place for unregister to zap.
 */
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>

#include "kprof_internal.h"

#define KPROF_FS_MAGIC	0x6b70726f	/* "kpro" */

static struct vfsmount *kprof_fs_mnt;
static int kprof_fs_cnt;

static int kprof_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, KPROF_FS_MAGIC) ? 0 : -ENOMEM;
}

/*
 * No .owner: the mount lives as long as any device does, and devices
 * live from module load on, so a module reference here would make the
 * module impossible to unload. Every inode is freed before exit returns.
 */
static struct file_system_type kprof_fs_type = {
	.name = "kprof",
	.init_fs_context = kprof_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

struct inode *kprof_inode_new(void)
{
	struct inode *inode;
	int ret;

	ret = simple_pin_fs(&kprof_fs_type, &kprof_fs_mnt, &kprof_fs_cnt);
	if (ret)
		return ERR_PTR(ret);
	inode = alloc_anon_inode(kprof_fs_mnt->mnt_sb);
	if (IS_ERR(inode))
		simple_release_fs(&kprof_fs_mnt, &kprof_fs_cnt);
	return inode;
}

void kprof_inode_free(struct inode *inode)
{
	iput(inode);
	simple_release_fs(&kprof_fs_mnt, &kprof_fs_cnt);
}
