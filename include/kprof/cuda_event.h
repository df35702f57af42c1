/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host-side CUDA call events, shared by bpf/kprof_cuda.bpf.c (uprobes and
 * uretprobes on libcuda's launch and synchronize functions) and the
 * collector (user/lib/kprof_bpf_cuda.c). One record per call, entry and
 * exit joined, with the {type, size, flags} header of every kprof record
 * (types from 0x100 up are host records: include/kprof/host_event.h).
 */
#ifndef _KPROF_CUDA_EVENT_H
#define _KPROF_CUDA_EVENT_H

#include <linux/types.h>

#define KPROF_HREC_CUDA		0x102	/* struct kprof_cuda_event */
#define KPROF_HREC_CUDA_STATS	0x103	/* struct kprof_cuda_bpf_stats */

/*
 * kprof_cuda_event.fn: which libcuda function. The uprobe's BPF cookie is
 * this value, so one program serves every function.
 */
enum kprof_cuda_fn {
	KPROF_CUDA_LAUNCH_KERNEL = 1,		/* cuLaunchKernel */
	KPROF_CUDA_LAUNCH_KERNEL_PTSZ,		/* cuLaunchKernel_ptsz */
	KPROF_CUDA_LAUNCH_KERNEL_EX,		/* cuLaunchKernelEx */
	KPROF_CUDA_LAUNCH_KERNEL_EX_PTSZ,	/* cuLaunchKernelEx_ptsz */
	KPROF_CUDA_GRAPH_LAUNCH,		/* cuGraphLaunch */
	KPROF_CUDA_GRAPH_LAUNCH_PTSZ,		/* cuGraphLaunch_ptsz */
	KPROF_CUDA_STREAM_SYNC,			/* cuStreamSynchronize */
	KPROF_CUDA_STREAM_SYNC_PTSZ,		/* cuStreamSynchronize_ptsz */
	KPROF_CUDA_CTX_SYNC,			/* cuCtxSynchronize */
	KPROF_CUDA_CTX_SYNC_V2,			/* cuCtxSynchronize_v2 */
	KPROF_CUDA_EVENT_SYNC,			/* cuEventSynchronize */
	KPROF_CUDA_FN_NR
};

struct kprof_cuda_event {
	__u16 type;			/* KPROF_HREC_CUDA */
	__u16 size;			/* sizeof(struct kprof_cuda_event) */
	__u32 flags;
	__u64 enter_ns;			/* CLOCK_MONOTONIC at the call's entry */
	__u64 exit_ns;			/* CLOCK_MONOTONIC at its return */
	__u32 pid;			/* tgid */
	__u32 tid;
	__u32 fn;			/* enum kprof_cuda_fn */
	__s32 ret;			/* CUresult (0: CUDA_SUCCESS) */
	__u64 arg0;			/* first argument: function, graph, stream, event */
};

/* Written by the collector when a capture ends: nothing lost silently. */
struct kprof_cuda_bpf_stats {
	__u16 type;			/* KPROF_HREC_CUDA_STATS */
	__u16 size;
	__u32 flags;
	__u64 events;			/* events delivered */
	__u64 reserve_failed;		/* ring buffer full: calls lost */
	__u64 unmatched_exit;		/* returns with no recorded entry */
	__u64 nested;			/* entry while one was in flight on the thread */
	__u64 inflight_full;		/* entry not stored: too many threads in calls */
	__u64 tgid_full;		/* a forked process not traced: tgid set full */
};

#endif /* _KPROF_CUDA_EVENT_H */
