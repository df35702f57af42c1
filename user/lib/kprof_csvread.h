/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one CSV reader of libkprof: a record reader on a stream (used by
 * the tt-metal log parser), a row-at-a-time reader with a header and a
 * whole-table loader built on it, for kprof's own CSV outputs (ops.csv,
 * counters.csv, host_events.csv: docs/formats.md) read back by `kprofctl
 * diff` and the HTML report. The report streams rows so that its memory
 * does not grow with the capture.
 *
 * The input may come from another machine: one state machine both counts
 * and splits fields (RFC 4180: a field that starts with `"` is quoted, ""
 * inside it is a quote, a line break inside it is data; a `"` anywhere
 * else is an ordinary character), in one pass over the bytes, with the
 * record length capped while reading. Spaces and tabs around fields are
 * dropped, CR LF line ends and blank lines accepted.
 */
#ifndef KPROF_CSVREAD_H
#define KPROF_CSVREAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kprof_err.h"

/* Longest record (bytes of its fields) unless the caller sets another. */
#define KPROF_CSV_MAX_RECORD	(1 << 20)
/* Most columns of a header line (kprof_csv_open). */
#define KPROF_CSV_MAX_COLS	4096

/* Records of an open stream, one at a time. */
struct kprof_csv_src {
	FILE *f;
	const char *name;	/* in messages: "name:line: what" */
	size_t max_record;	/* 0: KPROF_CSV_MAX_RECORD */
	/*
	 * > 0: fields from this index on are not stored, only counted
	 * (nskip): in a line split in place, their commas; in one the state
	 * machine reads, the rest is passed over with memchr unless it
	 * holds a '"' (then the state machine reads it too, same result)
	 */
	int skip_from;
	/*
	 * With skip_from > 0, its length: of the fields before skip_from only
	 * those with sel[i] set are stored, for readers of a few columns of
	 * many; the others are counted in nf, their fld entries not written
	 */
	const unsigned char *sel;
	/* tests: every record through the state machine, none split in place */
	int slow_only;
	/* tests: the in-place split's portable scan, not its SSE2 one */
	int scalar_scan;
	/* after kprof_csv_record() returned 1: */
	int nf;			/* fields in fld */
	int nskip;		/* fields after those, not stored (skip_from) */
	char **fld;		/* nf NUL-terminated fields, writable, valid until
				 * the next call (in the read-ahead or a copy)
				 */
	size_t *flen;		/* their lengths */
	unsigned long line;	/* the line the record starts on (1-based) */
	/* private */
	unsigned char *in;	/* read ahead from f */
	size_t inpos, inlen;
	char *buf;
	size_t len, cap, *off, offcap, fldcap;
	uint64_t *cmask;	/* the in-place split's commas, a mask per 64 bytes */
	size_t cmaskcap;
	unsigned long lines;	/* line breaks read */
};

/* Sets up s to read f; name is kept (not copied) for messages. */
void kprof_csv_src_init(struct kprof_csv_src *s, FILE *f, const char *name);
/*
 * The next non-blank record: 1, 0 at the end, -errno with err set
 * ("name:line: what": an unterminated quoted field, text after a closing
 * quote, a NUL byte, a record over max_record bytes, a read error).
 */
int kprof_csv_record(struct kprof_csv_src *s, struct kprof_err *err);
/* Frees the buffers (not f, which was read ahead: not for other use). */
void kprof_csv_src_free(struct kprof_csv_src *s);

struct kprof_csv_reader {
	int ncols;
	char **header;		/* ncols names */
	char **row;		/* after kprof_csv_next() returned 1: ncols fields,
				 * valid until the next call
				 */
	size_t *len;		/* their lengths */
	/* private */
	struct kprof_csv_src src;
	char *path, *hdrbuf;
	unsigned char *sel;
};

/*
 * Opens a CSV file (kprof_in_open rules: a regular file, not a link) and
 * reads its header line. Returns 0 or -errno with err set (r needs no
 * close then).
 */
int kprof_csv_open(const char *path, struct kprof_csv_reader *r, struct kprof_err *err);
/* Same on an fd opened by the caller (kprof_fs.h, kprof_outdir.h), which it
 * takes over (closed even on error); path names it in messages.
 */
int kprof_csv_open_fd(int fd, const char *path, struct kprof_csv_reader *r,
		      struct kprof_err *err);
/*
 * The next row: 1 (in r->row), 0 at the end, -errno with err set (a row
 * whose field count is not the header's, or a kprof_csv_record() error;
 * "file:line: what"). A quoted field may span lines; blank lines are
 * skipped.
 */
int kprof_csv_next(struct kprof_csv_reader *r, struct kprof_err *err);
/* Column index of a header name, or -1. */
int kprof_csv_rcol(const struct kprof_csv_reader *r, const char *name);
/*
 * Only the n columns cols (indices; -1 entries ignored) of the rows read
 * after this are split out, the others are NULL in row: a row is counted,
 * not stored, past the last of them (the field count is checked all the
 * same).
 */
void kprof_csv_select(struct kprof_csv_reader *r, const int *cols, int n);
void kprof_csv_close(struct kprof_csv_reader *r);

struct kprof_csv_table {
	int ncols;
	char **header;		/* ncols names */
	size_t nrows;
	char ***rows;		/* nrows x ncols fields */
	/* private */
	char *hdrbuf;
};

/*
 * Loads a CSV file with a header line (kprof_csv_next's rules: every row
 * has the header's field count). Returns 0 or -errno with err set; t is
 * empty on error.
 */
int kprof_csv_load(const char *path, struct kprof_csv_table *t, struct kprof_err *err);
/* Same on an fd it takes over (kprof_csv_open_fd). */
int kprof_csv_load_fd(int fd, const char *path, struct kprof_csv_table *t,
		      struct kprof_err *err);
/* Column index of a header name, or -1. */
int kprof_csv_col(const struct kprof_csv_table *t, const char *name);
void kprof_csv_free(struct kprof_csv_table *t);

#endif /* KPROF_CSVREAD_H */
