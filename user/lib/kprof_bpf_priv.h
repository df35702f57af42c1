/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What kprof's two BPF loaders (kprof_bpf.c: ioctls; kprof_bpf_cuda.c:
 * libcuda uprobes) share: the capability check and its message,
 * libbpf's print callback, which keeps the first warning of an attempt,
 * and the sum over CPUs of a per-CPU counter array.
 */
#ifndef KPROF_BPF_PRIV_H
#define KPROF_BPF_PRIV_H

#include <stdarg.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "kprof_err.h"

/* First libbpf warning since it was last cleared ("" if none). */
extern char kprof_bpf_libbpf_last[512];

/* For libbpf_set_print(): keeps warnings; KPROF_BPF_DEBUG=1 prints all. */
int kprof_bpf_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap);

/* True when EPERM cannot be for lack of capabilities. */
int kprof_bpf_capable_now(void);

/* -EPERM with a message naming the missing capabilities. */
int kprof_bpf_eperm_error(struct kprof_err *err);

/* What both loaders check before loading anything: a ring size of 0
 * (libbpf's default) or a power of two >= the page size, and the
 * capabilities tracing programs need. 0 or -errno with err set.
 */
int kprof_bpf_precheck(uint32_t ring_bytes, struct kprof_err *err);

/* sum[k] = counter k of the per-CPU array map_fd over every CPU, k < n;
 * 0 or -errno.
 */
int kprof_bpf_percpu_sum(int map_fd, uint64_t *sum, uint32_t n);

#endif /* KPROF_BPF_PRIV_H */
