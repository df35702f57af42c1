/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both report inputs (a capture's spools: kprof_report_spool.c; a
 * tt-metal device log: kprof_report_ttmetal.c) write alike: summary.txt's
 * op tables, params.json's common parts, and the report's last steps.
 * Internal to libkprof.
 */
#ifndef KPROF_REPORT_OUT_H
#define KPROF_REPORT_OUT_H

#include <stddef.h>
#include <stdio.h>

#include <json.h>

#include "kprof_agg.h"
#include "kprof_err.h"
#include "kprof_outdir.h"
#include "kprof_writers.h"

/* Makes room for one more element in *arr (doubling from init). */
int kprof_report_grow(void *arr, size_t *cap, size_t n, size_t elem, size_t init,
		      struct kprof_err *err);

/* summary.txt: op count, sums, top ops and the per op code table */
void kprof_report_summary_ops(FILE *f, struct kprof_out *o);

/* params.json parts: the config text as JSON (NULL: none), the stats */
json_object *kprof_report_config_json(const char *text);
json_object *kprof_report_stats_json(const struct kprof_agg_stats *as,
				     const struct kprof_out *o);

/* text + tail as the whole file od/name, synced */
int kprof_report_write_text(struct kprof_outdir *od, const char *name, const char *text,
			    const char *tail, struct kprof_err *err);
/* root as params.json (pretty, with a trailing newline) */
int kprof_report_write_params(struct kprof_outdir *od, json_object *root,
			      struct kprof_err *err);

/* Closes trace.json (if open) and the CSV files: all put in place. */
int kprof_report_close_streams(struct kprof_out *out, struct kprof_err *err);
/*
 * Last: report.html from the files written, then every output of the set
 * this report did not write is removed.
 */
int kprof_report_finish(struct kprof_outdir *od, struct kprof_err *err);
/* Frees what out holds; files not yet closed are dropped. */
void kprof_report_out_free(struct kprof_out *out);

#endif /* KPROF_REPORT_OUT_H */
