/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Loader for bpf/kprof_cuda.bpf.c: uprobes on libcuda's launch and
 * synchronize functions (enum kprof_cuda_fn), one struct kprof_cuda_event
 * per call of a traced process, handed to a callback.
 *
 * Usage: kprof_cuda_find_lib() (or a path the user gave),
 * kprof_cuda_bpf_open(), add kprof_cuda_bpf_fd() to an epoll set, call
 * kprof_cuda_bpf_consume() when it is readable (and once more before
 * closing), then kprof_cuda_bpf_stats() and kprof_cuda_bpf_close().
 */
#ifndef KPROF_BPF_CUDA_H
#define KPROF_BPF_CUDA_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <kprof/cuda_event.h>
#include "kprof_bpf_have.h"
#include "kprof_err.h"

struct kprof_cuda_target {
	const char *lib;		/* libcuda.so.1 to attach to (a path) */
	pid_t tgid;			/* process traced; 0: every process */
	int follow_forks;		/* processes it forks are traced too */
	uint32_t ring_bytes;		/* BPF ring size, power of 2 >= page; 0: 1 MiB */
};

/* Called once per traced call; a non-zero return stops the consume. */
typedef int (*kprof_cuda_cb)(const struct kprof_cuda_event *ev, void *ctx);

struct kprof_cuda_uprobes;

/* libcuda's name of fn ("cuLaunchKernel"), "?" if unknown. */
const char *kprof_cuda_fn_name(uint32_t fn);

/* 1: fn puts work on the GPU (kernel or graph launch), 2: waits, 0: unknown. */
int kprof_cuda_fn_role(uint32_t fn);

/*
 * Where libcuda.so.1 is: with pid > 0, the file the process has mapped
 * (/proc/PID/maps, once it has loaded it); with pid 0, the loader's
 * search: the directories of ld_library_path (may be NULL), then the
 * driver's usual places. 0 with out set, or -ENOENT with err saying where
 * it looked and what to do.
 */
int kprof_cuda_find_lib(pid_t pid, const char *ld_library_path, char *out, size_t len,
			struct kprof_err *err);

#if KPROF_HAVE_BPF
/*
 * Loads the programs and attaches them to every function of the table
 * that t->lib exports. A library without cuLaunchKernel,
 * cuStreamSynchronize or cuCtxSynchronize is not a CUDA driver: -ENOENT,
 * err names the symbol and the file. Others that are missing (older
 * drivers) are listed by kprof_cuda_bpf_missing(). -EPERM names the
 * missing capabilities.
 */
int kprof_cuda_bpf_open(const struct kprof_cuda_target *t, kprof_cuda_cb cb, void *ctx,
			struct kprof_cuda_uprobes **out, struct kprof_err *err);

/* Readable (epoll) when events are waiting. */
int kprof_cuda_bpf_fd(const struct kprof_cuda_uprobes *b);

/* Delivers every waiting event; returns how many, or -errno. */
int kprof_cuda_bpf_consume(struct kprof_cuda_uprobes *b);

/* Counters summed over CPUs; fills type/size too. 0 or -errno. */
int kprof_cuda_bpf_stats(const struct kprof_cuda_uprobes *b, struct kprof_cuda_bpf_stats *st);

/* Functions of the table the library lacks, comma-separated ("" if none). */
const char *kprof_cuda_bpf_missing(const struct kprof_cuda_uprobes *b);

/* Detaches and frees; NULL is fine. */
void kprof_cuda_bpf_close(struct kprof_cuda_uprobes *b);

#else /* !KPROF_HAVE_BPF */

/* Stand-ins: without the skeletons there is never a struct kprof_cuda_uprobes. */
static inline int kprof_cuda_bpf_open(const struct kprof_cuda_target *t, kprof_cuda_cb cb,
				      void *ctx, struct kprof_cuda_uprobes **out,
				      struct kprof_err *err)
{
	(void)t;
	(void)cb;
	(void)ctx;
	(void)out;
	return kprof_bpf_unsupported(err);
}

static inline int kprof_cuda_bpf_fd(const struct kprof_cuda_uprobes *b)
{
	(void)b;
	return -1;
}

static inline int kprof_cuda_bpf_consume(struct kprof_cuda_uprobes *b)
{
	(void)b;
	return 0;
}

static inline int kprof_cuda_bpf_stats(const struct kprof_cuda_uprobes *b,
				       struct kprof_cuda_bpf_stats *st)
{
	(void)b;
	(void)st;
	return -ENOTSUP;
}

static inline const char *kprof_cuda_bpf_missing(const struct kprof_cuda_uprobes *b)
{
	(void)b;
	return "";
}

static inline void kprof_cuda_bpf_close(struct kprof_cuda_uprobes *b)
{
	(void)b;
}
#endif /* KPROF_HAVE_BPF */

#endif /* KPROF_BPF_CUDA_H */
