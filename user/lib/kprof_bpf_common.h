/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What kprof's two BPF loaders (kprof_bpf.c: ioctls; kprof_bpf_cuda.c:
 * libcuda uprobes) share: the checks before loading (ring size,
 * capabilities) and the message for missing capabilities, libbpf's
 * warnings kept for error messages, the ring buffer's size and reader,
 * and the sum over CPUs of a per-CPU counter array.
 */
#ifndef KPROF_BPF_COMMON_H
#define KPROF_BPF_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "kprof_err.h"

/*
 * What both loaders do before loading anything: check the ring size (0,
 * libbpf's default, or a power of two >= the page size) and the
 * capabilities tracing programs need, then route libbpf's messages to
 * kprof_bpf_libbpf_why(). 0 or -errno with err set.
 */
int kprof_bpf_prepare(uint32_t ring_bytes, struct kprof_err *err);

/* Forgets libbpf's last warning: an attempt's first one is its cause. */
void kprof_bpf_libbpf_clear(void);

/* " (first libbpf warning since kprof_bpf_libbpf_clear())", or "". */
const char *kprof_bpf_libbpf_why(void);

/* True when ret, from a load or attach, is a refusal that missing
 * capabilities explain: report it with kprof_bpf_eperm_error().
 */
int kprof_bpf_denied(int ret);

/* -EPERM with a message naming the missing capabilities. */
int kprof_bpf_eperm_error(struct kprof_err *err);

/* Sizes the ring buffer map before load: ring_bytes, or 1 MiB for 0. */
int kprof_bpf_ring_size(struct bpf_map *events, uint32_t ring_bytes);

/* True when a ring sample is a whole record of this type (want bytes at
 * least): anything else means a skeleton/header mismatch.
 */
int kprof_bpf_rec_ok(const void *data, size_t size, uint16_t type, size_t want);

/* The reader of the ring buffer map events, fn called per sample: 0 with
 * *out set, or -errno with err set.
 */
int kprof_bpf_ring_new(const struct bpf_map *events, ring_buffer_sample_fn fn, void *ctx,
		       struct ring_buffer **out, struct kprof_err *err);

/* sum[k] = counter k of the per-CPU array map stats over every CPU, k < n;
 * 0 or -errno.
 */
int kprof_bpf_percpu_sum(const struct bpf_map *stats, uint64_t *sum, uint32_t n);

#endif /* KPROF_BPF_COMMON_H */
