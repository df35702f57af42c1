/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for kernel APIs that changed after 6.1, the oldest kernel kprof
 * builds against. Keyed on LINUX_VERSION_CODE so that the new API is used
 * where it exists.
 */
#ifndef _KPROF_COMPAT_H
#define _KPROF_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

/*
 * vm_flags became read-only outside mm/ in 6.3: changes go through
 * vm_flags_set()/vm_flags_clear(), which 6.1 does not have. Only for
 * ->mmap handlers, where the vma is not visible to anyone else yet.
 */
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
static inline void kprof_vm_flags_set(struct vm_area_struct *vma,
				      vm_flags_t flags)
{
	vm_flags_set(vma, flags);
}

static inline void kprof_vm_flags_clear(struct vm_area_struct *vma,
					vm_flags_t flags)
{
	vm_flags_clear(vma, flags);
}
#else
static inline void kprof_vm_flags_set(struct vm_area_struct *vma,
				      vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void kprof_vm_flags_clear(struct vm_area_struct *vma,
					vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

#endif /* _KPROF_COMPAT_H */
