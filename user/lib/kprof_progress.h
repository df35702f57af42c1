/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progress line for long captures and reports: ops seen, markers per
 * second, lost markers (capture) or records and MB read (report), at most
 * every 500 ms. It never shares a line with other output:
 * - on a terminal (stderr is a tty whose size is known and TERM is not
 *   "dumb") it has the terminal's last row to itself: a scroll region keeps
 *   the workload's and kprofctl's own output above it, and done() (or
 *   exit) erases it and gives the row back;
 * - when forced on a non-terminal (--progress, for CI logs) each redraw is
 *   a whole line ending in '\n';
 * - otherwise (pipes, files, dumb terminals) nothing at all.
 */
#ifndef KPROF_PROGRESS_H
#define KPROF_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KPROF_PROGRESS_PERIOD_NS	(500ULL * 1000 * 1000)	/* ~2 redraws/s */

enum kprof_progress_mode {
	KPROF_PROGRESS_OFF,
	KPROF_PROGRESS_TTY,		/* pinned to the terminal's last row */
	KPROF_PROGRESS_LINES,		/* one '\n'-ended line per redraw */
};

struct kprof_progress {
	FILE *f;			/* NULL: off */
	enum kprof_progress_mode mode;
	unsigned int rows;		/* TTY: terminal rows when set up */
	const char *what;		/* "capture" or "report" */
	uint64_t start_ns, last_ns;
	uint64_t ops, markers, lost, records, bytes;
	uint64_t rate_markers;		/* markers at the last redraw */
	double rate;			/* markers per second at the last redraw */
	unsigned int lines;		/* redraws done */
};

/*
 * TTY mode if f is a usable terminal; force > 0 (--progress) gives LINES
 * mode where f is not one; force < 0 turns it off.
 */
void kprof_progress_init(struct kprof_progress *p, FILE *f, const char *what, int force);
/* Counts OP, MARKER and LOST records in a buffer of device records. */
void kprof_progress_count(struct kprof_progress *p, const void *buf, size_t len);
/* Redraws if on and the period has passed since the last redraw (now:
 * CLOCK_MONOTONIC ns; 0 = read it). Returns 1 if it drew.
 */
int kprof_progress_tick(struct kprof_progress *p, uint64_t now_ns);
/* Formats the line (no \r); pure, for tests. */
size_t kprof_progress_format(const struct kprof_progress *p, char *buf, size_t len);
/* kprof_report_opts.progress callback; ctx is a struct kprof_progress. */
void kprof_progress_report_cb(void *ctx, uint64_t records, uint64_t bytes, uint64_t total);
/* Erases the line and gives the terminal row back (TTY mode). */
void kprof_progress_done(struct kprof_progress *p);

#endif /* KPROF_PROGRESS_H */
