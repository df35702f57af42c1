/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one CSV reader of libkprof: a field splitter (used by the tt-metal
 * log parser line by line) and a whole-table loader for kprof's own CSV
 * outputs (ops.csv, counters.csv, host_events.csv: docs/formats.md),
 * read back by `kprofctl diff` and the HTML report.
 */
#ifndef KPROF_CSVREAD_H
#define KPROF_CSVREAD_H

#include <stddef.h>

#include "kprof_err.h"

/*
 * Splits a line in place into fields: commas separate, double quotes
 * group ("" is a quote), spaces and tabs around fields are dropped.
 * Stores at most max field pointers in f. Returns the field count (may
 * exceed max) or -1 for an unterminated quote.
 */
int kprof_csv_split(char *s, char **f, int max);

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
/* Column index of a header name, or -1. */
int kprof_csv_col(const struct kprof_csv_table *t, const char *name);
void kprof_csv_free(struct kprof_csv_table *t);

#endif /* KPROF_CSVREAD_H */
