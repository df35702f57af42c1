/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host-side ioctl events, shared by the BPF programs (bpf/) and the
 * collector (user/). One record per traced ioctl: entry and exit joined.
 * The record carries the same {type, size, flags} header as the device
 * stream (include/uapi/linux/kprof.h), with types from 0x100 up, so that
 * one record reader serves both spools.
 */
#ifndef _KPROF_HOST_EVENT_H
#define _KPROF_HOST_EVENT_H

#include <linux/types.h>

#define KPROF_HREC_IOCTL	0x100	/* struct kprof_host_event */
#define KPROF_HREC_BPF_STATS	0x101	/* struct kprof_host_bpf_stats */

/* kprof_host_event.role */
#define KPROF_ROLE_LAUNCH	1
#define KPROF_ROLE_SYNC		2

/*
 * kprof_host_event.flags (above the record flags, KPROF_RECF_*): a sync
 * that waited for something the event does not name (a CUDA event), so
 * it is not taken as the sync of any op (ops.csv SYNC WAIT)
 */
#define KPROF_HEVF_NO_COVER	(1U << 16)

struct kprof_host_event {
	__u16 type;			/* KPROF_HREC_IOCTL */
	__u16 size;			/* sizeof(struct kprof_host_event) */
	__u32 flags;
	__u64 enter_ns;			/* CLOCK_MONOTONIC at ioctl entry */
	__u64 exit_ns;			/* CLOCK_MONOTONIC at ioctl exit */
	__u32 pid;			/* tgid */
	__u32 tid;
	__u32 cmd;			/* ioctl command */
	__u32 role;			/* KPROF_ROLE_* */
	__s64 ret;			/* ioctl return value */
	__u64 seq;			/* op seq the launch returned; sync: seq waited for */
	char comm[16];
};

/* Written by the collector when a capture ends: nothing lost silently. */
struct kprof_host_bpf_stats {
	__u16 type;			/* KPROF_HREC_BPF_STATS */
	__u16 size;
	__u32 flags;
	__u64 events;			/* events delivered */
	__u64 reserve_failed;		/* ring buffer full: events lost */
	__u64 unmatched_exit;		/* exits with no recorded entry */
};

#endif /* _KPROF_HOST_EVENT_H */
