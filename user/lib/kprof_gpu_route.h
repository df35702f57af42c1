/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A capture of several NVIDIA GPUs (kprofctl capture --device
 * nvidia:0,nvidia:1): every CUDA process's agent writes one spool,
 * DIR/raw/gpu-PID.kspool, whatever GPUs it uses; this splits each into
 * the spools of the captured GPUs, DIR/nvidiaN/raw/gpu-PID.kspool, so
 * that each GPU's directory is a one-GPU capture the one report reads.
 *
 * Routing: the agent's KPROF_GREC_DEVICE records say which GPU (UUID)
 * each CUDA device ordinal of the process is (the ordinal is not the
 * NVML index: CUDA_VISIBLE_DEVICES renumbers); a kernel or copy goes to
 * the GPU whose UUID its ordinal has. A process's other records (agent
 * life, names, sync triples, drops, API calls) go to every captured GPU
 * it ran ops on, except that a launch call goes with the op it launched
 * (by correlation id) when the process ran ops on several GPUs or on one
 * not captured. Ops of a GPU not in the capture, or of an ordinal the
 * agent did not describe, are counted, not written (nor their launch
 * calls). Two or three passes over the spool; memory: none for a process
 * of one captured GPU only, else 8 bytes per op.
 */
#ifndef KPROF_GPU_ROUTE_H
#define KPROF_GPU_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "kprof_devname.h"
#include "kprof_err.h"

struct kprof_outdir;

#define KPROF_ROUTE_FOREIGN_MAX	4	/* foreign GPUs named in the stats */

struct kprof_gpu_route_stats {
	uint32_t pid;				/* the agent's process (0: unknown) */
	uint64_t ops[KPROF_DEVICE_LIST_MAX];	/* kernels + copies per captured GPU */
	uint64_t foreign;			/* ops on GPUs not captured */
	uint64_t unmapped;			/* ops of an undescribed ordinal */
	unsigned int nforeign;			/* their UUIDs, the first few: */
	char foreign_uuid[KPROF_ROUTE_FOREIGN_MAX][KPROF_DEVICE_UUID_LEN];
	uint64_t targets;			/* bit k: a spool written for GPU k */
};

/* CUDA's 16 UUID bytes as NVML prints them: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx. */
void kprof_gpu_uuid_str(const uint8_t b[16], char *out, size_t len);

/*
 * Splits the agent spool rel (in dirfd; shown names it in messages) over
 * the n captured GPUs (uuids[k], NVML's; raws[k] their raw/ directories,
 * where the spool keeps its file name). Stats into st. 0, or -errno with
 * err set (a spool already written for a GPU is left there).
 */
int kprof_gpu_route(int dirfd, const char *rel, const char *shown,
		    const char *const *uuids, struct kprof_outdir *const *raws,
		    unsigned int n, struct kprof_gpu_route_stats *st, struct kprof_err *err);

#endif /* KPROF_GPU_ROUTE_H */
