/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Loader for kprof's host-side BPF programs (bpf/kprof_ioctl.bpf.c): traces
 * one device's LAUNCH and SYNC ioctls and hands each one to a callback as a
 * struct kprof_host_event.
 *
 * Usage: kprof_bpf_open(), add kprof_bpf_fd() to an epoll set, call
 * kprof_bpf_consume() when it is readable (and once more before closing),
 * then kprof_bpf_stats() and kprof_bpf_close().
 */
#ifndef KPROF_BPF_H
#define KPROF_BPF_H

#include <errno.h>
#include <stdint.h>
#include <sys/types.h>
#include <kprof/host_event.h>
#include "kprof_bpf_have.h"
#include "kprof_err.h"

/* Hook kinds, cheapest first (see docs/performance.md, "ioctl hook overhead"). */
enum kprof_bpf_hook {
	KPROF_BPF_HOOK_AUTO = 0,	/* probe in the order below */
	KPROF_BPF_HOOK_HANDLER,		/* fentry/fexit on the driver's handler */
	KPROF_BPF_HOOK_LSM,		/* fentry security_file_ioctl + fexit __x64_sys_ioctl */
	KPROF_BPF_HOOK_TP,		/* syscalls:sys_{enter,exit}_ioctl tracepoints */
	KPROF_BPF_HOOK_RAWTP,		/* tp_btf raw sys_enter/sys_exit tracepoints */
};

struct kprof_bpf_target {
	dev_t dev;			/* st_rdev of the device node */
	uint32_t launch_cmd;
	uint32_t sync_cmd;		/* 0: no sync ioctl traced */
	uint32_t cmd_mask;		/* bits that must match; 0: all (exact) */
	uint32_t launch_seq_off;	/* launch arg: where the driver writes the op seq */
	uint32_t launch_seq_size;	/* 0 (not read), 4 or 8 */
	uint32_t sync_seq_off;		/* sync arg: the seq waited for */
	uint32_t sync_seq_size;		/* 0, 4 or 8 */
	pid_t tgid;			/* 0: every process using the device */
	const char *handler;		/* driver's ioctl handler (BTF name), NULL: unknown */
	uint32_t ring_bytes;		/* BPF ring size, power of 2 >= page; 0: 1 MiB */
	enum kprof_bpf_hook hook;	/* AUTO unless forcing one (tests, benchmarks) */
};

/* Called once per traced ioctl; a non-zero return stops kprof_bpf_consume(). */
typedef int (*kprof_bpf_cb)(const struct kprof_host_event *ev, void *ctx);

struct kprof_bpf;

#if KPROF_HAVE_BPF
/*
 * Loads and attaches the programs with the first hook that works (or only
 * t->hook when it is not AUTO). On failure returns -errno and explains in
 * err: -EPERM when capabilities are missing (err names them),
 * -EOPNOTSUPP when no hook kind works on this kernel (err says why for
 * each), -EINVAL for a bad target. Installs its own libbpf print callback
 * (libbpf's messages go into err; KPROF_BPF_DEBUG=1 prints them all).
 */
int kprof_bpf_open(const struct kprof_bpf_target *t, kprof_bpf_cb cb, void *ctx,
		   struct kprof_bpf **out, struct kprof_err *err);

/* Readable (epoll) when events are waiting. */
int kprof_bpf_fd(const struct kprof_bpf *b);

/* Delivers every waiting event; returns how many, or -errno. */
int kprof_bpf_consume(struct kprof_bpf *b);

/* Counters summed over CPUs; fills type/size too. 0 or -errno. */
int kprof_bpf_stats(const struct kprof_bpf *b, struct kprof_host_bpf_stats *st);

/* Hook actually attached, e.g. "fentry/fexit:kprof_sim_ioctl" (for params.json). */
const char *kprof_bpf_hook_name(const struct kprof_bpf *b);

/* Why cheaper hooks were skipped ("" when the first one worked). */
const char *kprof_bpf_fallback_log(const struct kprof_bpf *b);

/* Detaches and frees; NULL is fine. */
void kprof_bpf_close(struct kprof_bpf *b);

/* Name of a hook kind ("handler", "lsm", "tp", "rawtp") and the reverse; -1 if unknown. */
const char *kprof_bpf_hook_kind_name(enum kprof_bpf_hook h);
int kprof_bpf_hook_parse(const char *s, enum kprof_bpf_hook *out);

#else /* !KPROF_HAVE_BPF */

/* Stand-ins: without the skeletons there is never a struct kprof_bpf. */
static inline int kprof_bpf_open(const struct kprof_bpf_target *t, kprof_bpf_cb cb, void *ctx,
				 struct kprof_bpf **out, struct kprof_err *err)
{
	(void)t;
	(void)cb;
	(void)ctx;
	(void)out;
	return kprof_bpf_unsupported(err);
}

static inline int kprof_bpf_fd(const struct kprof_bpf *b)
{
	(void)b;
	return -1;
}

static inline int kprof_bpf_consume(struct kprof_bpf *b)
{
	(void)b;
	return 0;
}

static inline int kprof_bpf_stats(const struct kprof_bpf *b, struct kprof_host_bpf_stats *st)
{
	(void)b;
	(void)st;
	return -ENOTSUP;
}

static inline const char *kprof_bpf_hook_name(const struct kprof_bpf *b)
{
	(void)b;
	return "";
}

static inline const char *kprof_bpf_fallback_log(const struct kprof_bpf *b)
{
	(void)b;
	return "";
}

static inline void kprof_bpf_close(struct kprof_bpf *b)
{
	(void)b;
}

static inline const char *kprof_bpf_hook_kind_name(enum kprof_bpf_hook h)
{
	(void)h;
	return "";
}

static inline int kprof_bpf_hook_parse(const char *s, enum kprof_bpf_hook *out)
{
	(void)s;
	(void)out;
	return -1;
}
#endif /* KPROF_HAVE_BPF */

#endif /* KPROF_BPF_H */
