// SPDX-License-Identifier: GPL-2.0
/*
 * Copying size-versioned ioctl structs. Every struct starts with a __u32
 * size that user space sets to sizeof() of its own copy: smaller than our
 * v1 struct is an error; larger is accepted only when the bytes we do not
 * know are zero, so that new fields can be added without breaking old
 * kernels silently ignoring them.
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

/*
 * Copy the v1 part (ksize bytes) of a struct from uptr into dst.
 * Sizes above one page are refused with E2BIG rather than scanned.
 */
int kprof_copy_struct_in(void *dst, size_t ksize, void __user *uptr)
{
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)uptr))
		return -EFAULT;
	if (usize < ksize)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	if (usize > ksize) {
		ret = check_zeroed_user((u8 __user *)uptr + ksize,
					usize - ksize);
		if (ret < 0)
			return ret;
		if (!ret)
			return -EINVAL;
	}
	if (copy_from_user(dst, uptr, ksize))
		return -EFAULT;
	return 0;
}

/* Copy a fully initialised v1 struct back; extra user bytes stay zero. */
int kprof_copy_struct_out(void __user *uptr, const void *src, size_t ksize)
{
	return copy_to_user(uptr, src, ksize) ? -EFAULT : 0;
}
