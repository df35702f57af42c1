/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.json: Chrome trace event format (opens in Perfetto and
 * chrome://tracing). Written as a stream while the report runs: one
 * slice per op per core (or per group of cores), one slice per custom
 * zone on a track per core and RISC (per core only), host launch/sync
 * slices per thread, a flow arrow from each launch to the op's first
 * core, a clock MHz counter track and a busy counter track (share of
 * the device's cores which are inside an op slice, from the op
 * slices themselves, written at close). Layout: docs/formats.md.
 */
#ifndef KPROF_TRACE_H
#define KPROF_TRACE_H

#include <stdint.h>
#include <kprof/host_event.h>

#include "kprof_agg.h"
#include "kprof_err.h"

struct kprof_trace;

/* The trace's two processes (kprof_trace_merge.h renumbers them). */
#define KPROF_TRACE_PID_DEVICE	1
#define KPROF_TRACE_PID_HOST	2

/* Device tids from this on are zone tracks (KPROF_TRACE_ZONE_TID + core *
 * 10 + RISC), not core tracks: readers that want core tracks skip them.
 */
#define KPROF_TRACE_ZONE_TID	1000000U

struct kprof_trace_cfg {
	const char *device_label;	/* the device process's name */
	/* cores per row, to name tracks "core N (x,y)" (0: "core N") */
	uint32_t grid_x;
	/* cores per device track (0 or 1: one track per core); a bigger
	 * group bounds the file for devices with many cores, and leaves the
	 * zone slices out (trace metadata "zone_slices" says so)
	 */
	uint32_t group;
	/* the device's cores: busy % is of these (0, or fewer than ran
	 * ops: of the cores that ran ops)
	 */
	uint32_t num_cores;
	/* RISC names for the zone tracks "core N (x,y) NAME"; NULL or
	 * empty: "RISC<r>"
	 */
	const char (*risc_names)[16];
	uint32_t nriscs;
	/* names a core's track and its zone tracks (a GPU's streams:
	 * kprof_gpu.h); NULL: "core N (x,y)"
	 */
	void (*core_label)(const void *ctx, uint32_t core, char *buf, size_t len);
	const void *core_label_ctx;
	/* busy counter: slice edges sorted in memory before a run goes to
	 * disk beside the file (0: KPROF_TRACE_BUSY_RUN)
	 */
	uint32_t busy_run;
};

#define KPROF_TRACE_BUSY_RUN	(1u << 18)	/* 16-byte edges: 4 MiB */

struct kprof_outdir;

/* Starts od/name (kprof_outfile_create: in place at kprof_trace_close). */
struct kprof_trace *kprof_trace_open(struct kprof_outdir *od, const char *name,
				     const struct kprof_trace_cfg *cfg, struct kprof_err *err);
/*
 * cfg's num_cores, risc_names and nriscs taken again (the rest is not
 * read), before the first op: a tt-metal log's cores and RISC types are
 * known at its end.
 */
void kprof_trace_set_device(struct kprof_trace *t, const struct kprof_trace_cfg *cfg);
/* Names zone slices of zone_id (default "ZONE-<id>", as device_log.csv);
 * the first name given for an id stays.
 */
void kprof_trace_zone_name(struct kprof_trace *t, uint32_t zone_id, const char *name);
void kprof_trace_op(struct kprof_trace *t, const struct kprof_op_row *row);
void kprof_trace_host(struct kprof_trace *t, const struct kprof_host_event *ev);
void kprof_trace_clock(struct kprof_trace *t, uint64_t host_ns, uint32_t mhz);
/* Writes the busy counter, finishes the JSON and closes; frees t even on
 * error. The busy counter needs 32 bytes per op slice until then.
 */
int kprof_trace_close(struct kprof_trace *t, struct kprof_err *err);
/* Drops an unfinished trace (nothing is left in the directory); NULL ok. */
void kprof_trace_free(struct kprof_trace *t);

#endif /* KPROF_TRACE_H */
