/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Records of the CUPTI agent (user/agent/, libkprof_cupti.so), which
 * kprofctl injects into a CUDA workload: one spool per CUDA process,
 * DIR/raw/gpu-PID.kspool (spool kind KPROF_SPOOL_GPU). The agent turns
 * CUPTI activity records into these; kprofctl's report reads them
 * (user/lib/kprof_gpu.c) into the same aggregation as kprof.ko's records.
 *
 * Every record starts with the {type, size, flags} header of
 * include/uapi/linux/kprof.h, types from 0x200 up, so that the one record
 * reader (user/lib/kprof_rec.c) serves this spool too. Explicit sizes, no
 * implicit padding, reserved fields zero. Besides these the spool holds
 * struct kprof_rec_sync records (KPROF_REC_SYNC): (CLOCK_MONOTONIC,
 * cuptiGetTimestamp(), CLOCK_MONOTONIC) triples, which map CUPTI's clock
 * to the host's when the agent could not put CUPTI on CLOCK_MONOTONIC.
 *
 * Times (start_ns, end_ns, host_ns) are CUPTI timestamps: host
 * CLOCK_MONOTONIC ns when the AGENT START record's clock is
 * KPROF_GCLOCK_MONOTONIC (the agent's cuptiActivityRegisterTimestampCallback),
 * else CUPTI's own clock (KPROF_GCLOCK_CUPTI), mapped by the SYNC triples.
 */
#ifndef _KPROF_GPU_REC_H
#define _KPROF_GPU_REC_H

#include <linux/types.h>

#define KPROF_GREC_AGENT	0x200	/* struct kprof_grec_agent */
#define KPROF_GREC_KERNEL	0x201	/* struct kprof_grec_kernel */
#define KPROF_GREC_COPY		0x202	/* struct kprof_grec_copy */
#define KPROF_GREC_API		0x203	/* struct kprof_grec_api */
#define KPROF_GREC_NAME		0x204	/* struct kprof_grec_name + text */
#define KPROF_GREC_DROPPED	0x205	/* struct kprof_grec_dropped */
#define KPROF_GREC_METRICS	0x206	/* struct kprof_grec_metrics + values */
#define KPROF_GREC_DEVICE	0x207	/* struct kprof_grec_device */

/* kprof_grec_agent.event */
#define KPROF_GAGENT_START	1	/* first record: process, clock */
#define KPROF_GAGENT_STOP	2	/* last record: counts; absent if killed */
#define KPROF_GAGENT_ERROR	3	/* a CUPTI call failed: code, text */
#define KPROF_GAGENT_NO_BUFFER	4	/* buffers refused (memory bound): value */
#define KPROF_GAGENT_COUNTERS	5	/* counters set up: see below */
#define KPROF_GAGENT_COUNTERS_END 6	/* counters' account at exit: see below */
#define KPROF_GAGENT_METRIC_REFUSED 7	/* CUPTI refused metric #value: code */

/*
 * kprof_grec_agent.host_times: where kernels' host launch times come from.
 * API: CUPTI's records of the launch calls (KPROF_GREC_API, role LAUNCH:
 * entry and exit). QUEUED: CUPTI's latency timestamps on the kernel
 * records themselves (kprof_grec_kernel.queued_ns, submitted_ns), no
 * launch-call records for kernels; memcpy/memset/graph launch calls and
 * the sync calls are recorded as API records in both. CALLBACK: the same
 * KPROF_GREC_API records as API, made by the agent from CUPTI's API
 * callbacks (entry and exit timestamps taken in the callbacks, on CUPTI's
 * clock) instead of CUPTI's API activity records.
 */
#define KPROF_GHOST_API		1
#define KPROF_GHOST_QUEUED	2
#define KPROF_GHOST_CALLBACK	3
/* not an agent's: the report's name for host times from kprofctl's libcuda
 * uprobes (raw/cuda-uprobes.kspool), the agent then recording kernels only
 */
#define KPROF_GHOST_UPROBE	4

/* kprof_grec_agent.clock: what CUPTI timestamps are */
#define KPROF_GCLOCK_MONOTONIC	1	/* host CLOCK_MONOTONIC ns */
#define KPROF_GCLOCK_CUPTI	2	/* CUPTI's clock; SYNC triples map it */

/*
 * Agent life and problems. START: pid, ppid, comm, clock, value = CUPTI
 * version, value2 = agent buffer size. STOP (at exit; absent when the
 * process was killed): value = records written, value2 = fork() calls
 * (a child of fork() without exec gets no records: CUDA does not work
 * there; one that execs a CUDA program gets its own spool). ERROR: code
 * = CUptiResult (or -errno), text = the call that failed; code
 * KPROF_GERR_MULTIPLE_SUBSCRIBERS means another CUPTI client (a
 * profiler) held the process. NO_BUFFER: value = buffer requests refused
 * since the last one (CUPTI dropped those records: DROPPED).
 */
struct kprof_grec_agent {
	__u16 type;			/* KPROF_GREC_AGENT */
	__u16 size;
	__u32 flags;
	__u64 host_ns;			/* CLOCK_MONOTONIC when written */
	__u32 event;			/* KPROF_GAGENT_* */
	__u32 pid;
	__u32 ppid;
	__s32 code;
	__u32 clock;			/* KPROF_GCLOCK_* (START) */
	__u32 host_times;		/* KPROF_GHOST_* (START); 0: API records */
	__u64 value;
	__u64 value2;
	char comm[16];
	char text[64];			/* NUL-terminated */
};

/*
 * Counters (KPROF_AGENT_COUNTERS, kprofctl capture --counters): CUPTI's
 * range profiler, one range per kernel. COUNTERS (once, when the first
 * kernel's context is set up): code = replay mode (KPROF_GREPLAY_*),
 * value = passes per kernel, value2 = metrics. COUNTERS_END (at exit):
 * value = kernels profiled (a METRICS record each), value2 = kernel
 * launches not profiled (the profiler failed or was off for them: an
 * ERROR says why), code = ranges CUPTI dropped or that could not be
 * matched to a launch. METRIC_REFUSED: value = the metric's index, code
 * = the CUptiResult. The metrics' names: KPROF_GREC_NAME records of kind
 * KPROF_GNAME_METRIC, id = index, written at the agent's start.
 */
#define KPROF_GREPLAY_KERNEL	1	/* CUPTI_KernelReplay: each kernel re-run per pass */

/* CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED */
#define KPROF_GERR_MULTIPLE_SUBSCRIBERS	39

/* A kernel that ran (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL). */
struct kprof_grec_kernel {
	__u16 type;			/* KPROF_GREC_KERNEL */
	__u16 size;
	__u32 flags;
	__u64 start_ns;
	__u64 end_ns;
	__u32 correlation;		/* = the launching API record's */
	__u32 device;			/* CUDA device ordinal in the process */
	__u32 context;
	__u32 stream;
	__s32 grid[3];
	__s32 block[3];
	__u32 static_smem;		/* bytes per block */
	__u32 dynamic_smem;
	__u16 registers;		/* per thread */
	__u16 reserved0;
	__u32 name_id;			/* KPROF_GREC_NAME id (kind KERNEL) */
	/*
	 * CUPTI's latency timestamps (host clock, as start_ns), 0 unknown:
	 * the launch put in the command buffer, the buffer submitted to the
	 * GPU. Absent from records of older agents (size:
	 * KPROF_GREC_KERNEL_V1_SIZE).
	 */
	__u64 queued_ns;
	__u64 submitted_ns;
};

#define KPROF_GREC_KERNEL_V1_SIZE	80	/* without queued_ns, submitted_ns */

/* kprof_grec_copy.kind */
#define KPROF_GCOPY_MEMCPY	1
#define KPROF_GCOPY_MEMSET	2

/* A memcpy or memset that ran (CUPTI_ACTIVITY_KIND_MEMCPY / _MEMSET). */
struct kprof_grec_copy {
	__u16 type;			/* KPROF_GREC_COPY */
	__u16 size;
	__u32 flags;
	__u64 start_ns;
	__u64 end_ns;
	__u64 bytes;
	__u32 correlation;
	__u32 device;
	__u32 context;
	__u32 stream;
	__u8 kind;			/* KPROF_GCOPY_* */
	__u8 copy_kind;			/* memcpy: CUPTI's CUpti_ActivityMemcpyKind */
	__u8 src_kind;			/* memcpy: CUpti_ActivityMemoryKind */
	__u8 dst_kind;			/* memcpy: same; memset: the memory's */
	__u32 value;			/* memset: the byte value */
};

/* CUpti_ActivityMemcpyKind values the report names (others: "other") */
#define KPROF_GMEMCPY_HTOD	1
#define KPROF_GMEMCPY_DTOH	2
#define KPROF_GMEMCPY_DTOD	8
#define KPROF_GMEMCPY_HTOH	9
#define KPROF_GMEMCPY_PTOP	10

/* kprof_grec_api.role */
#define KPROF_GROLE_LAUNCH	1	/* puts work on the GPU: kernel, memcpy, memset, graph */
#define KPROF_GROLE_SYNC	2	/* waits for the GPU */

/* kprof_grec_api.domain */
#define KPROF_GDOMAIN_DRIVER	1	/* CUPTI_CB_DOMAIN_DRIVER_API */
#define KPROF_GDOMAIN_RUNTIME	2	/* CUPTI_CB_DOMAIN_RUNTIME_API */
/*
 * host events made from a kernel's queued/submitted times (the report's
 * host view): cmd = KPROF_GDOMAIN_QUEUED << 16
 */
#define KPROF_GDOMAIN_QUEUED	3

/* A CUDA API call the agent asked CUPTI to record (CUPTI_ACTIVITY_KIND_
 * DRIVER / _RUNTIME): host entry and exit, on the launching thread.
 */
struct kprof_grec_api {
	__u16 type;			/* KPROF_GREC_API */
	__u16 size;
	__u32 flags;
	__u64 start_ns;
	__u64 end_ns;
	__u32 correlation;
	__u32 cbid;			/* CUPTI callback id in its domain */
	__u32 pid;
	__u32 tid;
	__u32 ret;			/* CUresult / cudaError_t */
	__u8 domain;			/* KPROF_GDOMAIN_* */
	__u8 role;			/* KPROF_GROLE_* */
	__u16 reserved0;
};

/* kprof_grec_name.kind */
#define KPROF_GNAME_KERNEL	1	/* id: slot kernel records name */
#define KPROF_GNAME_API		2	/* id: domain << 16 | cbid */
#define KPROF_GNAME_METRIC	3	/* id: the counter metric's index */

/*
 * A name, before the first record that uses it. Kernel names live in
 * KPROF_GNAME_SLOTS slots: a NAME record for a slot replaces what the
 * slot held, so a reader keeps at most that many names. Text: len bytes,
 * then a NUL, then zeros to the record's size (a multiple of 8).
 */
struct kprof_grec_name {
	__u16 type;			/* KPROF_GREC_NAME */
	__u16 size;
	__u32 flags;
	__u32 id;
	__u16 kind;			/* KPROF_GNAME_* */
	__u16 len;			/* bytes of text, without the NUL */
	char text[];
};

#define KPROF_GNAME_SLOTS	4096
#define KPROF_GNAME_MAX		2048	/* longer names are cut (flags: KPROF_GNAMEF_CUT) */
#define KPROF_GNAMEF_CUT	(1U << 0)

/* CUPTI dropped records of a buffer (cuptiActivityGetNumDroppedRecords):
 * its buffers were full, or the agent refused a buffer (memory bound).
 */
struct kprof_grec_dropped {
	__u16 type;			/* KPROF_GREC_DROPPED */
	__u16 size;
	__u32 flags;
	__u64 host_ns;			/* CLOCK_MONOTONIC when seen */
	__u64 count;
	__u32 context;
	__u32 stream;
};

/*
 * One kernel's counter values (the range profiler's range of the kernel
 * launched by the call with this correlation id): count doubles after
 * the record, in metric index order, as CUPTI evaluated them. cost_ns:
 * host time the agent spent in the profiler for this kernel (stop,
 * decode, evaluate, restart), the kernel's replay passes not included.
 */
struct kprof_grec_metrics {
	__u16 type;			/* KPROF_GREC_METRICS */
	__u16 size;
	__u32 flags;
	__u32 correlation;
	__u32 count;
	__u64 cost_ns;
	/* double values[count] */
};

#define KPROF_GPU_MAX_METRICS	27	/* KPROF_MAX_COUNTERS less the 5 of kprof_gpu.h */

/*
 * A CUDA device the process sees (cuDeviceGetCount): its ordinal, the
 * device field of KERNEL and COPY records (CUDA_VISIBLE_DEVICES renumbers
 * them), and its UUID (cuDeviceGetUuid: the bytes nvidia-smi and NVML
 * print as GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx). Written before the
 * first converted buffer; a capture of several GPUs routes each op to
 * its GPU by it (kprof_gpu_route.h). code: the CUresult of the query (0:
 * uuid is valid).
 */
struct kprof_grec_device {
	__u16 type;			/* KPROF_GREC_DEVICE */
	__u16 size;
	__u32 flags;
	__u32 ordinal;
	__s32 code;
	__u8 uuid[16];
};

#endif /* _KPROF_GPU_REC_H */
