/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * BPF-side stand-in for <linux/types.h>: vmlinux.h, included first by every
 * kprof BPF program, already defines __u16/__u32/__u64/__s64, and the host's
 * header would redefine structs that vmlinux.h also carries.
 */
#ifndef _KPROF_BPF_SHIM_LINUX_TYPES_H
#define _KPROF_BPF_SHIM_LINUX_TYPES_H
#ifndef __VMLINUX_H__
#error "include vmlinux.h before kprof headers in BPF programs"
#endif
#endif
