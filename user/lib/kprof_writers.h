/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CSV writers of a report (internal to libkprof): ops.csv, counters.csv,
 * device_log.csv, host_events.csv, plus the running totals summary.txt
 * and params.json are made from. Columns: docs/formats.md.
 */
#ifndef KPROF_WRITERS_H
#define KPROF_WRITERS_H

#include <stdio.h>
#include <linux/kprof.h>
#include <kprof/host_event.h>

#include "kprof_agg.h"
#include "kprof_err.h"
#include "kprof_hash.h"
#include "kprof_outdir.h"
#include "kprof_trace.h"

#define KPROF_OUT_OPS		(1U << 0)
#define KPROF_OUT_COUNTERS	(1U << 1)
#define KPROF_OUT_DEVLOG	(1U << 2)
#define KPROF_OUT_HOST		(1U << 3)

#define KPROF_OUT_MAX_CODES	1024	/* distinct op codes in the totals */

struct kprof_out_top {
	uint64_t seq;
	double fw_ns, kernel_ns;
	char op_code[KPROF_OP_CODE_LEN];
};

struct kprof_out_code {
	char op_code[KPROF_OP_CODE_LEN];
	uint64_t count;
	double fw_sum_ns, fw_min_ns, fw_max_ns, kernel_sum_ns;
};

#define KPROF_OUT_DEVLOG_BUF	(128 * 1024)
#define KPROF_OUT_ROWS_BUF	(64 * 1024)

struct kprof_out {
	FILE *ops, *counters, *devlog, *host;	/* the files' streams, or NULL */
	struct kprof_outfile files[4];		/* in that order */
	int err_code;			/* first write error */
	const char *op_filter;		/* fnmatch pattern or NULL */
	struct kprof_trace *trace;	/* trace.json, or NULL; set after open */
	uint64_t ops_filtered;
	unsigned int nriscs;
	char risc_names[KPROF_MAX_RISCS][16];
	/* device timestamps are host ns, not cycles (NVIDIA): the CYCLE
	 * columns of ops.csv are left empty
	 */
	int no_cycles;
	unsigned int ncounters;
	struct kprof_counter_desc cdesc[KPROF_MAX_COUNTERS];
	/* a longer name than cdesc holds (CUPTI metrics), or NULL */
	const char *cname[KPROF_MAX_COUNTERS];
	/* counters whose values are doubles' bits (kprof_gpucnt_to_u64): one
	 * value per op, written as a decimal in MIN, MAX and SUM
	 */
	uint64_t real_mask;
	/* each counter's "NAME,UNIT" cells in counters.csv, made once by
	 * kprof_out_open from the names above: ccell_at[i + 1] - ccell_at[i]
	 * bytes at ccells + ccell_at[i]
	 */
	char *ccells;
	size_t ccell_at[KPROF_MAX_COUNTERS + 1];
	/* totals */
	uint64_t nops, ops_with_fw, markers, markers_lost, host_events;
	double fw_sum_ns, kernel_sum_ns;
	double first_fw_ns, last_fw_end_ns;
	unsigned int top_n, ntop;
	struct kprof_out_top *top;	/* min-heap on fw_ns, top_n entries */
	unsigned int ncodes;
	uint64_t other_codes;		/* ops beyond KPROF_OUT_MAX_CODES codes */
	struct kprof_out_code *codes;
	/* codes by name: room for KPROF_OUT_MAX_CODES, made with them */
	struct kprof_hidx code_idx;
	/* device_log.csv rows gathered here, written a block at a time
	 * (kprof_out_devlog_flush): one fwrite per row was a tenth of that
	 * output's cost; a block goes to the file's descriptor, not through
	 * its stream's buffer (a copy of every byte)
	 */
	size_t dl_len;
	int dl_err;		/* errno of the blocks' writing, or 0 */
	char *dl_buf;		/* KPROF_OUT_DEVLOG_BUF bytes */
	/* ops.csv's and counters.csv's rows gathered here, KPROF_OUT_ROWS_BUF
	 * bytes each, and written a block at a time as device_log.csv's are
	 * (two fwrites an op were a tenth of an op's rows' cost)
	 */
	char *ops_buf, *cnt_buf;
	size_t ops_len, cnt_len;
	int ops_err, cnt_err;	/* errno of their blocks' writing, or 0 */
};

/* Starts the files of which in od (kprof_outfile_create). */
int kprof_out_open(struct kprof_out *o, struct kprof_outdir *od, unsigned int which,
		   unsigned int top_n, struct kprof_err *err);
/* kprof_agg_emit_fn: ops.csv (header on first call) and counters.csv rows. */
int kprof_out_op(void *ctx, const struct kprof_op_row *row);
int kprof_out_devlog_header(struct kprof_out *o, const char *arch,
			    const char *freq_mhz, unsigned int max_cores);
int kprof_out_devlog_row(struct kprof_out *o, unsigned int slot, unsigned int x,
			 unsigned int y, const char *risc, uint64_t timer_id,
			 uint64_t time, uint64_t data, uint64_t run_id,
			 const char *zone, const char *type);
/*
 * A device_log.csv text field checked once for the rows that repeat it
 * (RISC and zone names): n is its length when it goes into a row as it
 * is, -1 when each row checks it (kprof_csv_field's rules).
 */
struct kprof_devlog_text {
	const char *s;
	int n;
	char pad[32];	/* s when n <= 32, zero-filled: copied 32 bytes at once */
};

void kprof_devlog_text_init(struct kprof_devlog_text *t, const char *s);
/* kprof_out_devlog_row() with checked text fields */
int kprof_out_devlog_row_t(struct kprof_out *o, unsigned int slot, unsigned int x,
			   unsigned int y, const struct kprof_devlog_text *risc,
			   uint64_t timer_id, uint64_t time, uint64_t data, uint64_t run_id,
			   const struct kprof_devlog_text *zone,
			   const struct kprof_devlog_text *type);
/*
 * The parts of device_log.csv rows that repeat, made once: a head
 * "slot,x,y,RISC" for one RISC of one core, a tail ",,,ZONE,TYPE,0,,\n"
 * for one zone and type. A row is then its head, its four numbers and
 * its tail, each part copied at a fixed size. n is the part's length,
 * -1 when its text needs quotes or it is longer than a part holds: such
 * rows go through kprof_out_devlog_row_t().
 */
#define KPROF_DEVLOG_PART	64
struct kprof_devlog_part {
	char s[KPROF_DEVLOG_PART];	/* zero-filled past n */
	int n;
};

void kprof_devlog_head(struct kprof_devlog_part *h, unsigned int slot, unsigned int x,
		       unsigned int y, const struct kprof_devlog_text *risc);
void kprof_devlog_tail(struct kprof_devlog_part *t, const struct kprof_devlog_text *zone,
		       const struct kprof_devlog_text *type);
/* A row of two parts whose n >= 0: what kprof_out_devlog_row_t() writes. */
int kprof_out_devlog_row_p(struct kprof_out *o, const struct kprof_devlog_part *head,
			   uint64_t timer_id, uint64_t time, uint64_t data, uint64_t run_id,
			   const struct kprof_devlog_part *tail);
/*
 * The same with timer_id, time, data and run ID in v[0..3], each written
 * as the ndig[i] bytes at dig[i] instead where ndig[i] > 0: the digits
 * the caller read, when they are what formatting v[i] gives (a tt-metal
 * log's, copied rather than parsed and printed again).
 */
int kprof_out_devlog_row_pd(struct kprof_out *o, const struct kprof_devlog_part *head,
			    const uint64_t v[4], const char *const dig[4],
			    const unsigned char ndig[4], const struct kprof_devlog_part *tail);
/*
 * device_log.csv's rows to f (kprof_out_open does it for the file it
 * makes): 0, or -ENOMEM for its block of rows. kprof_out_discard() frees
 * the block, f stays the caller's.
 */
int kprof_out_devlog_stream(struct kprof_out *o, FILE *f);
/* The rows kprof_out_devlog_row() gathered to the stream (kprof_out_close does it). */
void kprof_out_devlog_flush(struct kprof_out *o);
int kprof_out_host_event(struct kprof_out *o, const struct kprof_host_event *ev);
/* Ops in the top list, sorted by FW (else kernel) duration, longest first. */
void kprof_out_top_sorted(struct kprof_out *o);
/* Finishes the files and puts them in place (kprof_outfile_commit). */
int kprof_out_close(struct kprof_out *o, struct kprof_err *err);
/* Drops the files of a failed report: nothing is put in place. */
void kprof_out_discard(struct kprof_out *o);
/*
 * One CSV text cell (docs/formats.md, CSV conventions): quoted when it
 * needs it; one a spreadsheet would evaluate (= + - @ TAB CR first) gets
 * a leading ' inside quotes. Not for number columns.
 */
void kprof_csv_field(FILE *f, const char *s);

#endif /* KPROF_WRITERS_H */
