/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The simulated accelerator's own "vendor" interface (/dev/kprof_simN).
 *
 * This is what an application's runtime would use to drive the device, and
 * what kprof's BPF programs trace: LAUNCH enqueues an op, SYNC waits for ops
 * to complete. It is not part of the capture interface in kprof.h.
 */
#ifndef _UAPI_LINUX_KPROF_SIM_H
#define _UAPI_LINUX_KPROF_SIM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KPROF_SIM_NAME_LEN	32

/* kprof_sim_launch.flags */
#define KPROF_SIM_LAUNCH_FLAGS_ALL	0

struct kprof_sim_launch {
	__u32 size;			/* sizeof(struct kprof_sim_launch) */
	__u32 flags;
	char name[KPROF_SIM_NAME_LEN];	/* op code, NUL-terminated */
	__u32 first_core;
	__u32 num_cores;		/* 0 = all cores from first_core */
	__u64 flops;			/* compute work per core */
	__u64 bytes;			/* memory traffic per core */
	__u32 num_zones;		/* custom zones per core (<= 8) */
	__u32 reserved0;
	__u64 seq;			/* out: op sequence number, from 1 */
	__u64 reserved[2];
};

/* kprof_sim_sync.flags */
#define KPROF_SIM_SYNC_ALL	(1U << 0)	/* wait for every op launched */
#define KPROF_SIM_SYNC_FLAGS_ALL	(KPROF_SIM_SYNC_ALL)

struct kprof_sim_sync {
	__u32 size;
	__u32 flags;			/* KPROF_SIM_SYNC_* */
	__u64 seq;			/* wait until this op has completed */
	__u64 timeout_ns;		/* 0 = no timeout */
	__u64 completed_seq;		/* out: highest completed seq */
	__u64 reserved[2];
};

/* kprof's range (linux/kprof.h), sequence numbers 0x80-0x8F. */
#define KPROF_SIM_IOC_MAGIC	0xBB

#define KPROF_SIM_IOC_LAUNCH	_IOWR(KPROF_SIM_IOC_MAGIC, 0x81, struct kprof_sim_launch)
#define KPROF_SIM_IOC_SYNC	_IOWR(KPROF_SIM_IOC_MAGIC, 0x82, struct kprof_sim_sync)

#endif /* _UAPI_LINUX_KPROF_SIM_H */
