// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kprof host-side tracing: timestamp entry and exit of an accelerator
 * driver's LAUNCH and SYNC ioctls and emit one struct kprof_host_event per
 * ioctl into a ring buffer.
 *
 * Four hook sets, the loader (user/lib/kprof_bpf.c) enables exactly one:
 *  handler: fentry/fexit on the driver's own ioctl handler (attach target
 *           set at load time). Only calls into that driver pay anything.
 *  lsm:     fentry on security_file_ioctl + fexit on __x64_sys_ioctl, when
 *           the handler has no BTF (e.g. an out-of-tree module built
 *           without it). Every ioctl pays a little, other syscalls nothing.
 *  tp:      syscalls:sys_{enter,exit}_ioctl tracepoints resolving the fd
 *           through task->files. Enabling any syscall tracepoint routes
 *           every syscall through the kernel's syscall-trace slow path, but
 *           the program itself runs for ioctls only.
 *  rawtp:   tp_btf on the raw sys_enter/sys_exit tracepoints: the program
 *           runs for every syscall and filters on the number. For kernels
 *           that allow BTF tracepoints but not fentry trampolines.
 *
 * Matching is on the file's device number AND the command: DRM drivers
 * share the 'd' ioctl type, so a command number alone is ambiguous.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <kprof/host_event.h>
#include "kprof_ioctl.h"

#define KPROF_NSTATS	KPROF_BPF_STAT_NR
#include "kprof_common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Filters, set by the loader before load (rodata: verifier prunes). */
const volatile __u32 targ_dev;		/* kernel dev_t: major << 20 | minor */
const volatile __u32 targ_tgid;		/* 0: any process */
const volatile __u32 cmd_mask = ~0U;	/* bits of cmd that must match */
const volatile __u32 launch_cmd;	/* already masked */
const volatile __u32 sync_cmd;
const volatile __u32 launch_seq_off;	/* launch arg: seq written by driver */
const volatile __u32 launch_seq_size;	/* 0: none, else 4 or 8 */
const volatile __u32 sync_seq_off;	/* sync arg: seq waited for */
const volatile __u32 sync_seq_size;

struct inflight {
	__u64 enter_ns;
	__u64 arg;
	__u64 seq;
	__u32 cmd;
	__u32 role;
};

/*
 * The in-flight entry lives in task-local storage: no lock and no hash on
 * the hot path (cheaper than a tid-keyed hash, measured), and it goes away
 * with the task. enter_ns == 0 means "no ioctl in flight".
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct inflight);
} inflight SEC(".maps");

/*
 * DRM drivers dispatch on the command's type and number only (the size
 * bits vary with the header version an application was built against),
 * so their profiles mask the rest; the sim matches exactly.
 */
static __always_inline __u32 cmd_role(__u32 cmd)
{
	cmd &= cmd_mask;
	if (cmd == launch_cmd)
		return KPROF_ROLE_LAUNCH;
	if (sync_cmd && cmd == sync_cmd)
		return KPROF_ROLE_SYNC;
	return 0;
}

static __always_inline __u64 read_user_seq(__u64 arg, __u32 off, __u32 size)
{
	__u64 v = 0;

	if (size == 8)
		bpf_probe_read_user(&v, 8, (void *)(arg + off));
	else if (size == 4)
		bpf_probe_read_user(&v, 4, (void *)(arg + off));
	return v;
}

/* For BTF-typed file pointers (fentry, tp_btf): plain loads, no helper. */
static __always_inline bool file_matches(struct file *file)
{
	return file && file->f_inode->i_rdev == targ_dev;
}

/* For a file pointer read from memory (untyped for the verifier). */
static __always_inline bool file_matches_probe(struct file *file)
{
	return file && BPF_CORE_READ(file, f_inode, i_rdev) == targ_dev;
}

static __always_inline bool tgid_matches(void)
{
	return !targ_tgid || (bpf_get_current_pid_tgid() >> 32) == targ_tgid;
}

/* Caller has checked role, process and device. */
static __always_inline void on_enter(__u32 cmd, __u32 role, __u64 arg)
{
	struct inflight *v;

	v = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!v) {
		stat_inc(KPROF_BPF_STAT_INFLIGHT_FULL);
		return;
	}
	v->arg = arg;
	v->cmd = cmd;
	v->role = role;
	v->seq = 0;
	if (role == KPROF_ROLE_SYNC && sync_seq_size)
		v->seq = read_user_seq(arg, sync_seq_off, sync_seq_size);
	v->enter_ns = bpf_ktime_get_ns();
}

/*
 * expected: this exit is known to be a matching ioctl (handler hook).
 * cmd: the exiting ioctl's command when the hook knows it, else 0; an
 * entry for another command is then left alone (its own exit was missed,
 * e.g. skipped by BPF recursion protection) instead of being mis-joined.
 */
static __always_inline void on_exit(long ret, bool expected, __u32 cmd)
{
	struct kprof_host_event *e;
	struct inflight *v;
	__u64 now, id;

	/* Syscall-level hooks get here for every ioctl: look up first. */
	v = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0, 0);
	if (!v || !v->enter_ns || (cmd && cmd != v->cmd)) {
		if (expected)
			stat_inc(KPROF_STAT_UNMATCHED_EXIT);
		return;
	}
	now = bpf_ktime_get_ns();
	e = event_reserve(sizeof(*e));
	if (!e) {
		v->enter_ns = 0;
		return;
	}
	id = bpf_get_current_pid_tgid();
	e->type = KPROF_HREC_IOCTL;
	e->size = sizeof(*e);
	e->flags = 0;
	e->enter_ns = v->enter_ns;
	e->exit_ns = now;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->cmd = v->cmd;
	e->role = v->role;
	e->ret = ret;
	e->seq = v->seq;
	if (v->role == KPROF_ROLE_LAUNCH && launch_seq_size && ret >= 0)
		e->seq = read_user_seq(v->arg, launch_seq_off, launch_seq_size);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	v->enter_ns = 0;
	event_submit(e);
}

/* The hooks that get the file itself (handler, lsm): no fd to resolve. */
static __always_inline void enter_file(struct file *file, __u32 cmd, __u64 arg)
{
	__u32 role = cmd_role(cmd);

	if (role && tgid_matches() && file_matches(file))
		on_enter(cmd, role, arg);
}

/* ---- (a) the driver's ioctl handler: attach target set by the loader */

SEC("fentry")
int BPF_PROG(kp_handler_enter, struct file *file, unsigned int cmd,
	     unsigned long arg)
{
	enter_file(file, cmd, arg);
	return 0;
}

SEC("fexit")
int BPF_PROG(kp_handler_exit, struct file *file, unsigned int cmd,
	     unsigned long arg, long ret)
{
	if (cmd_role(cmd) && tgid_matches() && file_matches(file))
		on_exit(ret, true, cmd);
	return 0;
}

/* ---- (b) every ioctl, at the LSM hook (file already resolved) */

SEC("fentry/security_file_ioctl")
int BPF_PROG(kp_lsm_enter, struct file *file, unsigned int cmd,
	     unsigned long arg)
{
	enter_file(file, cmd, arg);
	return 0;
}

SEC("fexit/__x64_sys_ioctl")
int BPF_PROG(kp_sys_ioctl_exit, const struct pt_regs *regs, long ret)
{
	on_exit(ret, false, (__u32)regs->si);
	return 0;
}

/* ---- (c) syscall tracepoints: no BTF needed for the hook itself */

/*
 * The syscall-level hooks see an fd: find its file as fdget() would.
 * task->files->fdt are BTF loads; the fd array slot needs one probe read.
 */
static __always_inline void enter_fd(unsigned int fd, __u32 cmd, __u64 arg)
{
	__u32 role = cmd_role(cmd);
	struct task_struct *task;
	struct fdtable *fdt;
	struct file *file = NULL;

	if (!role || !tgid_matches())
		return;
	task = bpf_get_current_task_btf();
	fdt = task->files->fdt;
	if (!fdt || fd >= fdt->max_fds)
		return;
	bpf_probe_read_kernel(&file, sizeof(file), &fdt->fd[fd]);
	if (file_matches_probe(file))
		on_enter(cmd, role, arg);
}

SEC("tp/syscalls/sys_enter_ioctl")
int kp_tp_enter(struct trace_event_raw_sys_enter *ctx)
{
	enter_fd((unsigned int)ctx->args[0], (__u32)ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tp/syscalls/sys_exit_ioctl")
int kp_tp_exit(struct trace_event_raw_sys_exit *ctx)
{
	on_exit(ctx->ret, false, 0);	/* sys_exit carries no args */
	return 0;
}

/* ---- (d) raw syscall tracepoints, every syscall runs the program */

#define KPROF_NR_IOCTL	16	/* x86_64 __NR_ioctl */

SEC("tp_btf/sys_enter")
int BPF_PROG(kp_raw_enter, struct pt_regs *regs, long id)
{
	if (id == KPROF_NR_IOCTL)
		enter_fd((unsigned int)regs->di, (__u32)regs->si, regs->dx);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(kp_raw_exit, struct pt_regs *regs, long ret)
{
	/* orig_ax keeps the syscall number: skip the map for the others. */
	if (regs->orig_ax == KPROF_NR_IOCTL)
		on_exit(ret, false, (__u32)regs->si);
	return 0;
}
