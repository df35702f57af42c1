/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregation engine: markers, op records, counters, LOST records and host
 * ioctl events in; one row per op out, in op-sequence order, through a
 * callback. Fed from spools (kprof_report_build) or from a tt-metal device
 * log (kprof_report_ttmetal): both go through the same code.
 *
 * Memory is bounded by ops in flight, not by capture length. Retirement
 * rule (docs/formats.md): an op is written out once
 *   (a) every core that delivered markers for it has since delivered a
 *       marker for a later op, and the stream watermark (the latest host
 *       time seen on any record) is more than slack_ns past the op's last
 *       activity; or
 *   (b) the watermark is more than timeout_ns past its last activity
 *       (an op whose cores went quiet); or
 *   (c) the input ends (kprof_agg_finish).
 * Ops are written in sequence order: an op waits for earlier ones.
 * Data for an op that has already been written is counted in
 * kprof_agg_stats.late_* and otherwise dropped (never silently).
 */
#ifndef KPROF_AGG_H
#define KPROF_AGG_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kprof.h>
#include <kprof/host_event.h>

#include "kprof_err.h"
#include "kprof_timesync.h"

#define KPROF_AGG_SLACK_NS_DEFAULT	(200ULL * 1000 * 1000)	/* 200 ms */
#define KPROF_AGG_TIMEOUT_NS_DEFAULT	(5ULL * 1000 * 1000 * 1000)	/* 5 s */
/* slack_ns: retire only at kprof_agg_finish(), not on timeout either (inputs
 * not in time order)
 */
#define KPROF_AGG_NEVER			UINT64_MAX

/* One marker, whatever its source. kind: KPROF_MARK_*. */
struct kprof_agg_marker {
	uint64_t op_seq;
	uint64_t timestamp;	/* device cycles */
	uint32_t core;
	uint8_t risc;
	uint8_t kind;
	uint16_t reserved;
	uint32_t zone_id;
};

#define KPROF_AGG_NONE	UINT64_MAX	/* "no value" in op rows */

/*
 * OP CODE bytes kept per op, NUL included: an OP record's own name
 * (KPROF_NAME_LEN), or the longer name that follows the record when the
 * record is bigger than struct kprof_rec_op (GPU kernel names: the
 * NVIDIA path, kprof_gpu.h). Longer names are cut.
 */
#define KPROF_OP_CODE_LEN	512

/* One core's FW span within an op, host ns. */
struct kprof_core_time {
	uint32_t core;
	uint32_t reserved;
	double fw_start_ns, fw_end_ns;
};

/* One custom zone of one RISC within an op (a ZONE_START paired with the
 * next ZONE_END of the same core, RISC and zone id), host ns.
 */
struct kprof_zone_time {
	uint32_t core;
	uint32_t zone_id;
	uint8_t risc;
	uint8_t reserved[7];
	double start_ns, end_ns;
};

/* One retired op. Times in ns are host CLOCK_MONOTONIC (kprof captures)
 * or cycles / CHIP_FREQ (tt-metal logs); KPROF_AGG_NONE / NAN = absent.
 */
struct kprof_op_row {
	uint64_t seq;
	char op_code[KPROF_OP_CODE_LEN];
	uint32_t device_id;
	uint32_t core_count;		/* cores with markers */
	uint32_t clock_mhz;		/* from the OP record, 0 if none */
	uint64_t host_start_ns, host_end_ns;	/* launch ioctl enter/exit */
	uint64_t fw_start_cycle, fw_end_cycle;
	uint64_t kernel_start_cycle, kernel_end_cycle;
	double fw_start_ns;		/* fw_start_cycle in host time */
	double fw_end_ns;		/* fw_end_cycle in host time */
	double fw_duration_ns;
	double kernel_duration_ns;
	double kernel_core_min_ns, kernel_core_max_ns, kernel_core_avg_ns;
	double risc_kernel_ns[KPROF_MAX_RISCS];	/* NAN if the RISC had none */
	double op_to_op_ns;		/* this FW start - previous op FW end */
	double launch_to_start_ns;	/* FW start (host time) - launch enter */
	double sync_wait_ns;		/* covering sync ioctl exit - enter: the
					 * first sync naming this op or a later
					 * one, or with seq 0 (all) entered after
					 * the op's launch
					 */
	uint64_t sync_end_ns;		/* that sync's exit */
	uint64_t markers;		/* markers received for this op */
	uint64_t markers_lost;		/* from LOST records covering this op */
	uint64_t zones;			/* custom zone markers */
	/* counters: per-core min / max / sum over cores that reported */
	uint64_t counter_mask;		/* counters present */
	uint32_t counter_cores[KPROF_MAX_COUNTERS];
	uint64_t counter_min[KPROF_MAX_COUNTERS];
	uint64_t counter_max[KPROF_MAX_COUNTERS];
	uint64_t counter_sum[KPROF_MAX_COUNTERS];
	/* cores with a FW span, ascending; valid during the callback only */
	const struct kprof_core_time *cores;
	uint32_t ncores;
	/* paired zones, by core, RISC, start (outer zone first); valid
	 * during the callback only
	 */
	const struct kprof_zone_time *zone_spans;
	uint32_t nzone_spans;
};

struct kprof_agg_stats {
	uint64_t markers, ops_records, counter_records, lost_records;
	uint64_t lost_markers;		/* sum of LOST counts (markers) */
	/* device records (OP, COUNTERS) its record queue dropped: LOST
	 * records with core KPROF_LOST_CORE_RECORDS; not markers, not in
	 * lost_markers or any op's markers_lost. first/last: the op range
	 * they covered (valid when device_records_lost > 0).
	 */
	uint64_t device_records_lost;
	uint64_t device_records_lost_first, device_records_lost_last;
	uint64_t corrupt_records;	/* KPROF_RECF_CORRUPT, not aggregated */
	uint64_t host_events, launches, syncs;
	uint64_t late_markers;		/* for ops already written */
	uint64_t late_host_events;
	uint64_t late_lost_markers;
	uint64_t ops_emitted;
	uint64_t max_in_flight;		/* peak ops held */
	uint64_t bad_markers;		/* core/risc/kind out of range */
	uint64_t bad_seqs;		/* records whose 64-bit op seq jumps
					 * more than 2^31 ahead: corrupt
					 */
	uint64_t zone_unpaired;		/* ZONE_START / ZONE_END markers with
					 * no partner in their op, core and
					 * RISC: no zone span
					 */
	uint64_t zone_over_cap;		/* zone markers past 262144 in one
					 * op: counted, not paired
					 */
};

typedef int (*kprof_agg_emit_fn)(void *ctx, const struct kprof_op_row *row);

struct kprof_agg_config {
	const struct kprof_tsfit *fit;	/* cycles -> ns; required */
	uint32_t device_id;
	uint32_t num_riscs;		/* <= KPROF_MAX_RISCS */
	uint32_t num_cores;		/* markers for cores >= this are invalid;
					 * 0 = up to 65536
					 */
	uint64_t slack_ns;		/* 0 = default */
	uint64_t timeout_ns;		/* 0 = default */
	/* hold and pair zone markers for kprof_op_row.zone_spans (trace.json
	 * zone slices); 0: only count them (cheaper)
	 */
	int zone_spans;
	kprof_agg_emit_fn emit;
	void *ctx;
};

struct kprof_agg;

struct kprof_agg *kprof_agg_new(const struct kprof_agg_config *cfg,
				struct kprof_err *err);
void kprof_agg_free(struct kprof_agg *a);

/* Device records (validated by kprof_rec_next). Returns 0 or -errno
 * (allocation failure, or the emit callback's error).
 */
int kprof_agg_device_rec(struct kprof_agg *a, const struct kprof_rec_hdr *rec,
			 struct kprof_err *err);
/* Same, with the record's device timestamp already converted to host ns
 * by the caller (MARKER, OP, LOST records; ignored for others).
 */
int kprof_agg_device_rec_at(struct kprof_agg *a, const struct kprof_rec_hdr *rec,
			    double host_ns, struct kprof_err *err);
int kprof_agg_marker(struct kprof_agg *a, const struct kprof_agg_marker *m,
		     struct kprof_err *err);
/*
 * A run of markers fed at once: the longest prefix of recs (n whole
 * MARKER records, back to back, as a spool holds them) that the
 * per-marker path would take alike with no retirement check due between
 * them: markers that continue the op of the marker fed before (op_lo: its
 * low 32 bits), then of other ops in flight (a RISC's ring holds the
 * markers of every op since the last drain). The rest (an op to make, a
 * late or corrupt or invalid marker, a new core that cannot be added, a
 * held zone marker, the check's input) is for kprof_agg_device_rec_at().
 * seg converts the markers' timestamps; those at xlen (<= 2^63) or more
 * cycles past seg->dev0 are not taken. Returns how many were taken, 0 when
 * none; ops[] lists the run's parts, one per change of op in order (its
 * op, markers and latest timestamp as cycles past seg->dev0), and xlast is
 * the last marker's. The result is the same as the records given one by
 * one with seg's times.
 */
#define KPROF_AGG_RUN_OPS	64

struct kprof_agg_run_op {
	uint32_t op_lo, n;
	uint64_t xmax;
};

struct kprof_agg_run {
	const struct kprof_ts_seg *seg;
	uint64_t xlen;
	uint32_t op_lo;
	/* out */
	uint32_t nops;
	struct kprof_agg_run_op ops[KPROF_AGG_RUN_OPS];
	uint64_t xlast;
};

size_t kprof_agg_marker_run(struct kprof_agg *a, const void *recs, size_t n,
			    struct kprof_agg_run *run);
/* Sets the op name (tt-metal logs have no OP records). */
int kprof_agg_op_name(struct kprof_agg *a, uint64_t seq, const char *name,
		      struct kprof_err *err);
int kprof_agg_host_event(struct kprof_agg *a, const struct kprof_host_event *ev,
			 struct kprof_err *err);
/*
 * From now on, an op's core c is written as rank[c] (rank: one entry per
 * core id given so far, distinct values; kept, not copied): for inputs
 * whose core ids are known only at their end (a tt-metal log: cores are
 * numbered by their place in the sorted list). Only for slack_ns
 * KPROF_AGG_NEVER, before kprof_agg_finish, so that no op was written
 * with the ids given.
 */
void kprof_agg_core_rank(struct kprof_agg *a, const uint32_t *rank);
/* Retires everything left, in order. */
int kprof_agg_finish(struct kprof_agg *a, struct kprof_err *err);
const struct kprof_agg_stats *kprof_agg_stats(const struct kprof_agg *a);

#endif /* KPROF_AGG_H */
