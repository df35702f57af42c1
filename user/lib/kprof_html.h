/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.html: one self-contained page (inline CSS, JS and SVG; nothing
 * fetched) made from the output files already in a report directory:
 * ops.csv (required), host_events.csv, counters.csv, trace.json, and, if
 * present, report.md and bubbles.csv. Same inputs give the same bytes.
 * Format: docs/formats.md, "report.html".
 */
#ifndef KPROF_HTML_H
#define KPROF_HTML_H

#include <stdio.h>

#include "kprof_err.h"

/* trace.json bigger than this is not read (timeline: one device lane) */
#define KPROF_HTML_TRACE_MAX	(32u << 20)
/* at most this many device / host lanes (device tracks are grouped) */
#define KPROF_HTML_DEV_LANES	16
#define KPROF_HTML_HOST_LANES	8

/* Writes DIR/report.html from the files in DIR. 0 or -errno with err set. */
int kprof_html_write(const char *dir, struct kprof_err *err);

/* HTML-escapes s (& < > " ') to f. */
void kprof_html_escape(FILE *f, const char *s);
/* s as a JSON string literal safe inside <script> (< > & escaped). */
void kprof_html_json_str(FILE *f, const char *s);

#endif /* KPROF_HTML_H */
