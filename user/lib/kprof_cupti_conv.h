/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUPTI activity records -> the agent's spool records (<kprof/gpu_rec.h>).
 * Pure conversion, no CUPTI calls: the agent (user/agent/) feeds it the
 * records CUPTI hands over; host unit tests feed it hand-made ones.
 */
#ifndef KPROF_CUPTI_CONV_H
#define KPROF_CUPTI_CONV_H

#include <stddef.h>
#include <stdint.h>
#include <kprof/gpu_rec.h>

#include "kprof_cupti.h"

/* Largest record kprof_cupti_conv() writes: a NAME of the longest name. */
#define KPROF_CONV_MAX_BYTES	(sizeof(struct kprof_grec_name) + KPROF_GNAME_MAX + 8)

/* Highest CUPTI callback id the agent classifies, per domain. */
#define KPROF_CONV_MAX_CBID	4096

struct kprof_conv {
	/* kernel name slots: the CUPTI name pointer each slot was named
	 * for (CUPTI shares one pointer between a kernel's records)
	 */
	const void *slot[KPROF_GNAME_SLOTS];
	/* KPROF_GROLE_* of each callback id, [domain - 1][cbid]; 0: not wanted */
	uint8_t role[2][KPROF_CONV_MAX_CBID];
	/* optional demangler (__cxa_demangle's signature), or NULL */
	char *(*demangle)(const char *name, char *buf, size_t *len, int *status);
	uint64_t unknown;		/* records of kinds not converted */
	uint64_t unwanted;		/* API records of calls not classified */
};

/* The role of a CUDA API by its CUPTI callback name ("cudaLaunchKernel_v7000",
 * "cuMemcpyHtoDAsync_v2"): KPROF_GROLE_LAUNCH for calls that put work on
 * the GPU (kernel launches, graph launches, memcpy, memset),
 * KPROF_GROLE_SYNC for the synchronize calls, 0 for the rest.
 */
int kprof_conv_api_role(const char *cupti_name);
/*
 * 1 for a synchronize on a CUDA event (cuEventSynchronize and the
 * runtime's): it waits for work recorded before the event, on one stream,
 * not for every op launched before it (KPROF_HEVF_NO_COVER).
 */
int kprof_conv_api_event_sync(const char *cupti_name);

/* Whether that call is a kernel launch (cuLaunchKernel, cudaLaunchKernel_v7000...):
 * the calls whose host times a kernel's queued timestamp stands in for.
 */
int kprof_conv_api_kernel_launch(const char *cupti_name);

/*
 * One CUPTI activity record -> up to two agent records (a NAME before
 * the first KERNEL of a name slot) written to out (room for two
 * KPROF_CONV_MAX_BYTES). Returns the bytes written; 0 for kinds that are
 * not converted (counted in c->unknown) or API calls whose role is 0
 * (c->unwanted). The record is CUPTI's own, of the kind it says.
 */
size_t kprof_cupti_conv(struct kprof_conv *c, const struct kprof_cupti_activity *rec,
			void *out);

/* A NAME record (kind KPROF_GNAME_*) for text: returns its size. */
size_t kprof_conv_name(uint32_t id, uint16_t kind, const char *text, void *out);

#endif /* KPROF_CUPTI_CONV_H */
