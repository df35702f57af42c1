/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CUDA devices the agent's process sees, as KPROF_GREC_DEVICE records
 * (<kprof/gpu_rec.h>): ordinal -> UUID, from libcuda's cuDeviceGetCount,
 * cuDeviceGet and cuDeviceGetUuid(_v2), looked up in the libcuda.so.1 the
 * process loaded (else in its global scope). Call it with none of the
 * agent's locks held: libcuda may take its own.
 */
#ifndef KPROF_AGENT_DEVICES_H
#define KPROF_AGENT_DEVICES_H

#include <kprof/gpu_rec.h>

#define KPROF_AGENT_MAX_DEVICES	64

/* Fills out (at most max); the count, or -1 when libcuda cannot say yet. */
int kprof_agent_devices(struct kprof_grec_device *out, int max);

#endif /* KPROF_AGENT_DEVICES_H */
