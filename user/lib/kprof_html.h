/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.html: one self-contained page (inline CSS, JS and SVG; nothing
 * fetched) made from the output files this report wrote before it:
 * ops.csv (required), host_events.csv, counters.csv, trace.json, and, if
 * present, report.md and bubbles.csv. Same inputs give the same bytes.
 * The inputs are streamed, so memory does not grow with the capture.
 * Format: docs/formats.md, "report.html".
 */
#ifndef KPROF_HTML_H
#define KPROF_HTML_H

#include <stdio.h>

#include "kprof_err.h"

/*
 * trace.json bigger than this is not read (timeline: one device lane):
 * it is parsed one event per line, once; this bounds time and its device
 * slices, kept for the timeline's two passes.
 */
#define KPROF_HTML_TRACE_MAX	(32u << 20)
/* at most this many device / host lanes (device tracks are grouped) */
#define KPROF_HTML_DEV_LANES	16
#define KPROF_HTML_HOST_LANES	8
/* kernel times held at once for the per-kind medians (more: more passes) */
#define KPROF_HTML_MEDIAN_BUDGET	(1u << 20)

struct kprof_outdir;

/*
 * Writes report.html in od from the outputs this report wrote there
 * before (kprof_outdir_reopen: nothing else in the directory is read).
 * 0 or -errno with err set.
 */
int kprof_html_write(struct kprof_outdir *od, struct kprof_err *err);

/* HTML-escapes s (& < > " ') to f. */
void kprof_html_escape(FILE *f, const char *s);
/* s as a JSON string literal safe inside <script> (< > & escaped). */
void kprof_html_json_str(FILE *f, const char *s);

#endif /* KPROF_HTML_H */
