/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Several devices' trace.json files (kprof_trace.h, one event per line)
 * into one, streamed: device k's device process (pid 1) becomes pid
 * 2k + 1, its host process (pid 2, the ioctls traced for that device)
 * pid 2k + 2, named "host (device NAME)"; flow ids (launch arrows, numbered
 * by op sequence on each device) become id * n + k, so that no arrow joins
 * two devices. Timestamps are kept: every trace is on the host's
 * CLOCK_MONOTONIC, so the devices share one timeline.
 */
#ifndef KPROF_TRACE_MERGE_H
#define KPROF_TRACE_MERGE_H

#include <stdio.h>

#include "kprof_err.h"

struct kprof_trace_merge {
	FILE *out;
	unsigned int n;		/* devices */
	int first;		/* no event written yet */
};

/* Starts the merged trace of n devices on out (the header). */
void kprof_trace_merge_begin(struct kprof_trace_merge *m, FILE *out, unsigned int n);
/*
 * Adds trace.json of device k (0..n-1, named name) read from in; path
 * names it in messages. 0, or -EPROTO with err set on a line that is not
 * one event of kprof's trace.json.
 */
int kprof_trace_merge_add(struct kprof_trace_merge *m, FILE *in, const char *path,
			  unsigned int k, const char *name, struct kprof_err *err);
/* Ends the JSON (write errors show at the file's commit). */
void kprof_trace_merge_end(struct kprof_trace_merge *m);

#endif /* KPROF_TRACE_MERGE_H */
