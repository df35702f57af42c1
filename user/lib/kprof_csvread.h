/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one CSV reader of libkprof: a field splitter (used by the tt-metal
 * log parser line by line), a row-at-a-time reader and a whole-table
 * loader built on it, for kprof's own CSV outputs (ops.csv, counters.csv,
 * host_events.csv: docs/formats.md) read back by `kprofctl diff` and the
 * HTML report. The report streams rows so that its memory does not grow
 * with the capture.
 */
#ifndef KPROF_CSVREAD_H
#define KPROF_CSVREAD_H

#include <stddef.h>
#include <stdio.h>

#include "kprof_err.h"

/*
 * Splits a line in place into fields: commas separate, double quotes
 * group ("" is a quote), spaces and tabs around fields are dropped.
 * Stores at most max field pointers in f. Returns the field count (may
 * exceed max) or -1 for an unterminated quote.
 */
int kprof_csv_split(char *s, char **f, int max);

struct kprof_csv_reader {
	int ncols;
	char **header;		/* ncols names */
	char **row;		/* after kprof_csv_next() returned 1: ncols fields,
				 * missing trailing ones "", valid until the next call */
	/* private */
	FILE *f;
	char *path, *line, *rec, *hdrbuf;
	size_t linecap;
	int nf;
	unsigned long lineno, recline;
};

/*
 * Opens a CSV file (kprof_in_open rules: a regular file, not a link) and
 * reads its header line. Returns 0 or -errno with err set (r needs no
 * close then).
 */
int kprof_csv_open(const char *path, struct kprof_csv_reader *r, struct kprof_err *err);
/* Same on an fd opened by the caller (kprof_fs.h, kprof_outdir.h), which it
 * takes over (closed even on error); path names it in messages. */
int kprof_csv_open_fd(int fd, const char *path, struct kprof_csv_reader *r,
		      struct kprof_err *err);
/*
 * The next row: 1 (in r->row), 0 at the end, -errno with err set (a row
 * with more fields than the header, an unterminated quote, a NUL byte).
 * A quoted field may span lines; blank lines are skipped.
 */
int kprof_csv_next(struct kprof_csv_reader *r, struct kprof_err *err);
/* Column index of a header name, or -1. */
int kprof_csv_rcol(const struct kprof_csv_reader *r, const char *name);
void kprof_csv_close(struct kprof_csv_reader *r);

struct kprof_csv_table {
	int ncols;
	char **header;		/* ncols names */
	size_t nrows;
	char ***rows;		/* nrows x ncols fields; missing trailing fields are "" */
	char **bufs;		/* per-row storage (and bufs[nrows] for the header) */
};

/*
 * Loads a CSV file with a header line. A quoted field may span lines.
 * Rows with more fields than the header are an error naming the line.
 * Returns 0 or -errno with err set; t is empty on error.
 */
int kprof_csv_load(const char *path, struct kprof_csv_table *t, struct kprof_err *err);
/* Same on an fd it takes over (kprof_csv_open_fd). */
int kprof_csv_load_fd(int fd, const char *path, struct kprof_csv_table *t,
		      struct kprof_err *err);
/* Column index of a header name, or -1. */
int kprof_csv_col(const struct kprof_csv_table *t, const char *name);
void kprof_csv_free(struct kprof_csv_table *t);

#endif /* KPROF_CSVREAD_H */
