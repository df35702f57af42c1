/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.json: Chrome trace event format (opens in Perfetto and
 * chrome://tracing). Written as a stream while the report runs: one
 * slice per op per core (or per group of cores), host launch/sync
 * slices per thread, a flow arrow from each launch to the op's first
 * core, a clock MHz counter track and a busy counter track (share of
 * the cores that ran ops which are inside an op slice, from the op
 * slices themselves, written at close). Layout: docs/formats.md.
 */
#ifndef KPROF_TRACE_H
#define KPROF_TRACE_H

#include <stdint.h>
#include <kprof/host_event.h>

#include "kprof_agg.h"
#include "kprof_err.h"

struct kprof_trace;

/*
 * grid_x: cores per row, to name tracks "core N (x,y)" (0: "core N").
 * group: cores per device track (0 or 1: one track per core); a bigger
 * group bounds the file for devices with many cores.
 */
struct kprof_trace *kprof_trace_open(const char *path, const char *device_label,
				     uint32_t grid_x, uint32_t group,
				     struct kprof_err *err);
void kprof_trace_op(struct kprof_trace *t, const struct kprof_op_row *row);
void kprof_trace_host(struct kprof_trace *t, const struct kprof_host_event *ev);
void kprof_trace_clock(struct kprof_trace *t, uint64_t host_ns, uint32_t mhz);
/* Writes the busy counter, finishes the JSON and closes; frees t even on
 * error. The busy counter needs 32 bytes per op slice until then. */
int kprof_trace_close(struct kprof_trace *t, struct kprof_err *err);

#endif /* KPROF_TRACE_H */
