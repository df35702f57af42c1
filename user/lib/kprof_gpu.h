/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVIDIA captures: the CUPTI agent's spool (raw/gpu-PID.kspool,
 * <kprof/gpu_rec.h>) read as kprof's own records, so that the one
 * aggregation (kprof_agg) and every writer make the outputs.
 *
 * A spool is opened twice, as two views, the way a kprof.ko capture has
 * a device spool and a host spool:
 *   - the device view gives, per kernel / memcpy / memset, an OP record
 *     (op seq = CUPTI correlation id, name = kernel name, or "[memcpy
 *     HtoD]" / "[memset]"; a name longer than the OP record's 32 bytes
 *     follows the record, kprof_agg.h), FW_START + KERNEL_START markers at
 *     its start and KERNEL_END + FW_END at its end on the "core" of its
 *     (device, stream) track, RISC 0, and a COUNTERS record
 *     (KPROF_GPU_CNT_*); the SYNC triples as they are; STATE records for
 *     the agent's start and stop;
 *   - the host view gives a struct kprof_host_event per recorded API call
 *     (role launch or sync, seq = correlation id, enter / exit = the
 *     call's start / end, cmd = domain << 16 | cbid, ret = -(CUDA error)).
 * Memory: a name per slot (KPROF_GNAME_SLOTS), a track table
 * (KPROF_GPU_MAX_TRACKS) and a ring of recent launch times: bounded.
 */
#ifndef KPROF_GPU_H
#define KPROF_GPU_H

#include <stdint.h>
#include <linux/kprof.h>
#include <kprof/gpu_rec.h>

#include "kprof_cudajoin.h"
#include "kprof_err.h"
#include "kprof_spool.h"
#include "kprof_timesync.h"

#define KPROF_GPU_BACKEND	"nvidia"

/*
 * The least time a report holds a GPU op for its late inputs (the
 * measured lateness, kprof_lag.h, can make it more). A CUPTI record is a
 * whole op, and its launch's and sync's records sit next to it in the
 * same spool, so little is late; at a launch every 2-5 us the 200 ms of
 * kprof.ko captures would hold 40k-100k ops (~1.8 KB each).
 */
#define KPROF_GPU_SLACK_NS	(50ULL * 1000 * 1000)

/* counters of GPU ops (struct kprof_counter_info of the capture) */
#define KPROF_GPU_CNT_BYTES	0	/* memcpy / memset bytes */
#define KPROF_GPU_CNT_BLOCKS	1	/* kernel grid: blocks */
#define KPROF_GPU_CNT_THREADS	2	/* kernel: threads per block */
#define KPROF_GPU_CNT_REGS	3	/* kernel: registers per thread */
#define KPROF_GPU_CNT_SMEM	4	/* kernel: shared memory per block, bytes */
#define KPROF_GPU_NCOUNTERS	5

/* (device, stream) tracks; streams past this share the last one */
#define KPROF_GPU_MAX_TRACKS	1024

#define KPROF_GPU_VIEW_DEVICE	1
#define KPROF_GPU_VIEW_HOST	2

#define KPROF_GPU_MAX_ERRORS	16	/* agent ERROR records kept for the summary */

/* a metric CUPTI refused (capture --counters) */
struct kprof_gpu_refused {
	uint32_t index;			/* the metric's */
	int32_t code;			/* CUptiResult */
};

/* What the agent said about itself (either view collects it). */
struct kprof_gpu_stats {
	uint32_t pid, ppid;
	char comm[17];
	uint32_t clock;			/* KPROF_GCLOCK_*, 0 before START */
	uint32_t host_times;		/* KPROF_GHOST_* (an older agent: API) */
	uint32_t cupti_version;
	int started, stopped;		/* START / STOP records seen */
	uint64_t records_written;	/* the STOP record's count */
	uint64_t forks;
	uint64_t dropped;		/* CUPTI records dropped (DROPPED) */
	uint64_t no_buffer;		/* buffer requests the agent refused */
	uint64_t kernels, memcpys, memsets, api_launches, api_syncs;
	uint64_t queued_launches;	/* kernels with a queued timestamp */
	uint64_t bad_names;		/* NAME records that do not hold their text */
	uint64_t unnamed;		/* kernels whose name slot was empty */
	uint64_t tracks_over;		/* ops on streams past KPROF_GPU_MAX_TRACKS */
	uint64_t multiple_subscribers;	/* another CUPTI client held the process */
	struct {			/* counters (capture --counters) */
		int set_up;		/* the COUNTERS record: profiling began */
		int ended;		/* COUNTERS_END seen */
		int32_t replay;		/* KPROF_GREPLAY_* */
		uint64_t passes;	/* per kernel */
		uint64_t profiled, not_profiled, bad_ranges;	/* COUNTERS_END's */
		uint64_t records;	/* METRICS records read (device view) */
		uint64_t bad_records;	/* ... that do not hold their values */
		uint64_t cost_ns;	/* their cost_ns, summed */
		uint32_t nrefused;
		struct kprof_gpu_refused refused[KPROF_GPU_MAX_METRICS];
	} cnt;
	uint32_t nerrors;		/* ERROR records, the first few kept: */
	struct {
		int32_t code;
		char text[65];
	} errors[KPROF_GPU_MAX_ERRORS];
};

/*
 * Host times from the libcuda uprobes (capture --host-times uprobe):
 * kprofctl writes every traced call to raw/cuda-uprobes.kspool
 * (KPROF_SPOOL_CUDA_FILE, kprof_spool.h: KPROF_HREC_CUDA records, then one
 * KPROF_HREC_CUDA_STATS), the agent
 * records kernels only, and the host view joins the two
 * (kprof_cudajoin.h) in place of the agent's API records.
 */
/* kprof_host_event.cmd of a call seen by the uprobes: domain << 16 | fn */
#define KPROF_GDOMAIN_UPROBE	4

struct kprof_gpu_uprobes {
	int used;			/* the host view's calls are the uprobes' */
	uint64_t calls;			/* calls of the process read */
	uint64_t other_pids;		/* calls of other processes (not joined) */
	uint64_t launches, failed_launches, syncs;
	int have_bpf_stats;		/* the capture's closing record was there */
	struct kprof_cuda_bpf_stats bpf;
	struct kprof_cj_stats join;
};

struct kprof_gpu_src;

/* The spool at rel in dirfd (kprof_spool_openat rules: no links, a regular
 * file; shown names it in messages); kprof_gpu_open: a path.
 */
struct kprof_gpu_src *kprof_gpu_openat(int dirfd, const char *rel, const char *shown,
				       int view, struct kprof_err *err);
struct kprof_gpu_src *kprof_gpu_open(const char *path, int view, struct kprof_err *err);
void kprof_gpu_free(struct kprof_gpu_src *s);
/* Like kprof_spool_next(): KPROF_REC_OK with *rec valid until the next
 * call, KPROF_REC_END, or KPROF_REC_BAD with err set.
 */
int kprof_gpu_next(struct kprof_gpu_src *s, const struct kprof_rec_hdr **rec,
		   struct kprof_err *err);
/* Back to the start; tracks keep the numbers they got (a second pass
 * gives the same records).
 */
int kprof_gpu_rewind(struct kprof_gpu_src *s, struct kprof_err *err);
const struct kprof_spool_stats *kprof_gpu_spool_stats(const struct kprof_gpu_src *s);
const struct kprof_gpu_stats *kprof_gpu_stats(const struct kprof_gpu_src *s);
/* Host view: CUPTI timestamps -> host ns through fit (NULL: they are
 * host CLOCK_MONOTONIC already).
 */
void kprof_gpu_set_fit(struct kprof_gpu_src *s, const struct kprof_tsfit *fit);
/*
 * Host view: take the launch and sync calls from the uprobe spool rel
 * (in dirfd; shown names it in messages) instead of the agent's API
 * records. The join is made on the first kprof_gpu_next() (after
 * kprof_gpu_set_fit), and holds every call and kernel of the process in
 * memory until kprof_gpu_free (about 70 bytes a kernel).
 */
int kprof_gpu_use_uprobes(struct kprof_gpu_src *s, int dirfd, const char *rel,
			  const char *shown, struct kprof_err *err);
/* What the uprobe source gave (used = 0 when it is not in use). */
const struct kprof_gpu_uprobes *kprof_gpu_uprobe_stats(const struct kprof_gpu_src *s);
/* Tracks seen so far and the name of one: "GPU D stream S". */
uint32_t kprof_gpu_ntracks(const struct kprof_gpu_src *s);
/*
 * Counters (capture --counters): how many metrics the agent named (0:
 * none asked for), metric i's name (NULL if its NAME record was bad),
 * and the join of their values to kernels (device view; after the last
 * kprof_gpu_next, unjoined includes values no kernel came for). Metric i
 * is counter KPROF_GPU_NCOUNTERS + i of the op rows.
 */
uint32_t kprof_gpu_nmetrics(const struct kprof_gpu_src *s);
const char *kprof_gpu_metric_name(const struct kprof_gpu_src *s, uint32_t i);
struct kprof_gpucnt_join;
const struct kprof_gpucnt_join *kprof_gpu_metric_join(const struct kprof_gpu_src *s);
void kprof_gpu_track_name(const struct kprof_gpu_src *s, uint32_t track, char *buf,
			  size_t len);
/* "api", "callback", "queued" or "uprobe" (KPROF_GHOST_UPROBE): for the outputs */
const char *kprof_gpu_host_times_name(uint32_t host_times);
/* ... and what that means, in a phrase */
const char *kprof_gpu_host_times_desc(uint32_t host_times);
/* OP CODE of a memcpy / memset: "[memcpy HtoD]", "[memset]". */
const char *kprof_gpu_copy_name(uint8_t kind, uint8_t copy_kind);

/* The device description kprofctl writes in raw/device.kspool for
 * nvidia:index: backend "nvidia", no RISCs, timestamps in ns
 * (ref_clock_hz 1e9), the GPU counters.
 */
void kprof_gpu_device_info(uint32_t index, struct kprof_device_info *d,
			   struct kprof_counter_info *c);

/* The agent spools of a capture (DIR/raw/gpu-*.kspool), by pid. */
struct kprof_gpu_spool {
	uint32_t pid;
	uint64_t bytes;
};

/* The raw/ of the capture directory capfd (capture_dir names it in
 * messages): fills up to max entries sorted by pid; returns how many
 * there are (may be > max), or -errno. Links and non-files are left out.
 */
int kprof_gpu_list(int capfd, const char *capture_dir, struct kprof_gpu_spool *out, int max,
		   struct kprof_err *err);
/* The one a report aggregates: the largest (most records), ties: lowest pid. */
int kprof_gpu_pick(const struct kprof_gpu_spool *sp, int n);

#endif /* KPROF_GPU_H */
