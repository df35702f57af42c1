// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kprof host-side CUDA tracing: entry and return of libcuda's launch and
 * synchronize functions (cuLaunchKernel, cuStreamSynchronize, ...: enum
 * kprof_cuda_fn), one struct kprof_cuda_event per call into a ring buffer.
 * A CUDA launch or synchronize makes no ioctl (user-mode submission), so
 * the ioctl programs (kprof_ioctl.bpf.c) see nothing of them.
 *
 * One uprobe and one uretprobe program serve every function: the loader
 * (user/lib/kprof_bpf_cuda.c) attaches them once per symbol with the
 * function's id as the BPF cookie. Uprobes attach to the library's inode,
 * so every process mapping it would be seen: only processes in the tgid
 * set count, and a process forked by one of them joins the set.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <kprof/cuda_event.h>
#include "kprof_cuda.h"

#define KPROF_NSTATS	KPROF_CUDA_STAT_NR
#include "kprof_common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 all_tgids;		/* 1: every process (no filter) */
const volatile __u32 follow_forks;	/* 1: children of traced processes join */

/* Traced processes (tgid -> 1), filled by the loader and by on_fork. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KPROF_CUDA_MAX_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

struct inflight {
	__u64 enter_ns;
	__u64 arg0;
	__u32 fn;
	__u32 pad;
};

/* The call in flight per thread (tid). A hash, not task storage: uprobe
 * programs have task storage only from Linux 6.2 on.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KPROF_CUDA_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

static __always_inline int traced(__u32 tgid)
{
	return all_tgids || bpf_map_lookup_elem(&tgids, &tgid);
}

SEC("uprobe")
int BPF_KPROBE(cuda_enter, __u64 arg0)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct inflight in = {
		.enter_ns = bpf_ktime_get_ns(),
		.arg0 = arg0,
		.fn = (__u32)bpf_get_attach_cookie(ctx),
	};

	if (!traced(id >> 32))
		return 0;
	/* a call already in flight on this thread: its return is lost */
	if (bpf_map_lookup_elem(&inflight, &tid))
		stat_inc(KPROF_CUDA_STAT_NESTED);
	if (bpf_map_update_elem(&inflight, &tid, &in, BPF_ANY))
		stat_inc(KPROF_CUDA_STAT_INFLIGHT_FULL);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(cuda_exit, long ret)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct kprof_cuda_event *e;
	struct inflight *in;

	if (!traced(id >> 32))
		return 0;
	in = bpf_map_lookup_elem(&inflight, &tid);
	if (!in) {
		stat_inc(KPROF_STAT_UNMATCHED_EXIT);
		return 0;
	}
	e = event_reserve(sizeof(*e));
	if (!e) {
		bpf_map_delete_elem(&inflight, &tid);
		return 0;
	}
	e->type = KPROF_HREC_CUDA;
	e->size = sizeof(*e);
	e->flags = 0;
	e->enter_ns = in->enter_ns;
	e->exit_ns = now;
	e->pid = id >> 32;
	e->tid = tid;
	e->fn = in->fn;
	e->ret = (__s32)ret;
	e->arg0 = in->arg0;
	bpf_map_delete_elem(&inflight, &tid);
	event_submit(e);
	return 0;
}

/* A new process (not a thread) forked by a traced one is traced too. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (!follow_forks || all_tgids || child->pid != ctgid || ptgid == ctgid)
		return 0;
	if (!bpf_map_lookup_elem(&tgids, &ptgid))
		return 0;
	if (bpf_map_update_elem(&tgids, &ctgid, &one, BPF_ANY))
		stat_inc(KPROF_CUDA_STAT_TGID_FULL);
	return 0;
}
