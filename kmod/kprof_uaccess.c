// SPDX-License-Identifier: GPL-2.0
/*
 * Copying size-versioned ioctl structs, as openat2(), clone3() and
 * sched_setattr() do. Every struct starts with a __u32 size that user
 * space sets to sizeof() of its own copy, which may differ from ours:
 *  - smaller (a program built against an older, shorter struct): what it
 *    lacks is taken as zero, down to the struct without its trailing
 *    reserved words (min); less is EINVAL;
 *  - larger (a newer program): accepted when the bytes we do not know
 *    are zero, E2BIG otherwise, so that a new field is never silently
 *    ignored; over a page is E2BIG without looking.
 * Out, only min(user size, ours) bytes are written and size says so.
 */
#include <linux/uaccess.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/mm.h>

#include "kprof_internal.h"

bool kprof_mem_is_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* Into dst (ksize bytes); *usize is the caller's size. */
int kprof_copy_struct_in(void *dst, size_t ksize, size_t min,
			 void __user *uptr, u32 *usize)
{
	int ret;

	if (get_user(*usize, (u32 __user *)uptr))
		return -EFAULT;
	if (*usize < min || *usize < sizeof(u32))
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(dst, ksize, uptr, *usize);
	if (ret)
		return ret;
	*(u32 *)dst = *usize;
	return 0;
}

/* A fully initialised struct back: as much as the caller has room for. */
int kprof_copy_struct_out(void __user *uptr, void *src, size_t ksize,
			  u32 usize)
{
	u32 n = min_t(u32, usize, ksize);

	*(u32 *)src = n;
	return copy_to_user(uptr, src, n) ? -EFAULT : 0;
}
