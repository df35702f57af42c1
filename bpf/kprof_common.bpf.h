/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What both BPF programs (kprof_ioctl.bpf.c, kprof_cuda.bpf.c) have
 * alike: the ring buffer their records go to and the per-CPU counters
 * that say what was lost, so that nothing is lost silently. The includer
 * defines KPROF_NSTATS, the size of its "stats" array (its counters
 * follow the common ones of kprof_common.h), before including this.
 */
#ifndef _KPROF_COMMON_BPF_H
#define _KPROF_COMMON_BPF_H

#include "kprof_common.h"

#ifndef KPROF_NSTATS
#error "define KPROF_NSTATS before including kprof_common.bpf.h"
#endif

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);	/* loader may resize */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KPROF_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		(*v)++;
}

/* Room for one record in the ring, or NULL with the loss counted. */
static __always_inline void *event_reserve(__u64 size)
{
	void *e = bpf_ringbuf_reserve(&events, size, 0);

	if (!e)
		stat_inc(KPROF_STAT_RESERVE_FAILED);
	return e;
}

/* Hands a record from event_reserve() to the reader, counted. */
static __always_inline void event_submit(void *e)
{
	bpf_ringbuf_submit(e, 0);
	stat_inc(KPROF_STAT_EVENTS);
}

#endif /* _KPROF_COMMON_BPF_H */
