/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progress line for long captures and reports: ops seen, markers per
 * second, lost markers (capture) or records and MB read (report), redrawn
 * in place at most every 500 ms on a terminal; nothing at all when the
 * stream is not a terminal (scripts, CI logs, pipes).
 */
#ifndef KPROF_PROGRESS_H
#define KPROF_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KPROF_PROGRESS_PERIOD_NS	(500ULL * 1000 * 1000)	/* ~2 redraws/s */

struct kprof_progress {
	FILE *f;			/* NULL: off */
	const char *what;		/* "capture" or "report" */
	uint64_t start_ns, last_ns;
	uint64_t ops, markers, lost, records, bytes;
	uint64_t rate_markers;		/* markers at the last redraw */
	double rate;			/* markers per second at the last redraw */
	unsigned int lines;		/* redraws done */
	size_t width;			/* last line's length, to blank it */
};

/*
 * On only if f is a terminal (isatty); force > 0 turns it on anyway
 * (tests), force < 0 off.
 */
void kprof_progress_init(struct kprof_progress *p, FILE *f, const char *what, int force);
/* Counts OP, MARKER and LOST records in a buffer of device records. */
void kprof_progress_count(struct kprof_progress *p, const void *buf, size_t len);
/* Redraws if on and the period has passed since the last redraw (now:
 * CLOCK_MONOTONIC ns; 0 = read it). Returns 1 if it drew. */
int kprof_progress_tick(struct kprof_progress *p, uint64_t now_ns);
/* Formats the line (no \r); pure, for tests. */
size_t kprof_progress_format(const struct kprof_progress *p, char *buf, size_t len);
/* kprof_report_opts.progress callback; ctx is a struct kprof_progress. */
void kprof_progress_report_cb(void *ctx, uint64_t records, uint64_t bytes, uint64_t total);
/* Blanks the line if anything was drawn. */
void kprof_progress_done(struct kprof_progress *p);

#endif /* KPROF_PROGRESS_H */
