// SPDX-License-Identifier: GPL-2.0
/*
 * CSV writers: ops.csv, counters.csv, device_log.csv, host_events.csv.
 */
#include "kprof_writers.h"
#include "kprof_fmt.h"
#include "kprof_gpucnt.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEVLOG_HEADER "PCIe slot, core_x, core_y, RISC processor type, timer_id, " \
	"time[cycles since reset], data, run host ID, trace id, trace id counter, " \
	"zone name, type, source line, source file, meta data"

static FILE *open_out(struct kprof_out *o, struct kprof_outdir *od, int i, const char *name,
		      struct kprof_err *err)
{
	return kprof_outfile_create(od, name, &o->files[i], err) ? NULL : o->files[i].f;
}

static int counter_cells(struct kprof_out *o);

/* longest plain text field put in a device_log.csv row's buffer */
#define DEVLOG_FIELD	128
/* the most one row puts in it: 7 numbers, 3 text fields, the fixed parts */
#define DEVLOG_ROW	(7 * 21 + 3 * (DEVLOG_FIELD + 1) + 16)

int kprof_out_open(struct kprof_out *o, struct kprof_outdir *od, unsigned int which,
		   unsigned int top_n, struct kprof_err *err)
{
	int nr = o->nriscs, nc = o->ncounters, no_cycles = o->no_cycles;
	const char *filter = o->op_filter;
	char names[KPROF_MAX_RISCS][16];
	struct kprof_counter_desc cd[KPROF_MAX_COUNTERS];
	const char *cname[KPROF_MAX_COUNTERS];
	uint64_t real_mask = o->real_mask;

	/* keep what the caller filled in: names of RISCs and counters */
	memcpy(names, o->risc_names, sizeof(names));
	memcpy(cd, o->cdesc, sizeof(cd));
	memcpy(cname, o->cname, sizeof(cname));
	memset(o, 0, sizeof(*o));
	o->nriscs = nr;
	o->ncounters = nc;
	o->no_cycles = no_cycles;
	o->op_filter = filter;
	memcpy(o->risc_names, names, sizeof(names));
	memcpy(o->cdesc, cd, sizeof(cd));
	memcpy(o->cname, cname, sizeof(cname));
	o->real_mask = real_mask;
	o->top_n = top_n ? top_n : 10;
	o->top = calloc(o->top_n, sizeof(*o->top));
	o->codes = calloc(KPROF_OUT_MAX_CODES, sizeof(*o->codes));
	o->code_idx.cap = 2 * KPROF_OUT_MAX_CODES;
	o->code_idx.slot = calloc(o->code_idx.cap, sizeof(*o->code_idx.slot));
	o->first_fw_ns = NAN;
	o->last_fw_end_ns = NAN;
	if (!o->top || !o->codes || !o->code_idx.slot)
		goto nomem;
	if (which & KPROF_OUT_OPS) {
		o->ops = open_out(o, od, 0, "ops.csv", err);
		if (!o->ops)
			goto fail;
		o->ops_buf = malloc(KPROF_OUT_ROWS_BUF);
		if (!o->ops_buf)
			goto nomem;
	}
	if (which & KPROF_OUT_COUNTERS) {
		o->counters = open_out(o, od, 1, "counters.csv", err);
		if (!o->counters)
			goto fail;
		o->cnt_buf = malloc(KPROF_OUT_ROWS_BUF);
		if (!o->cnt_buf)
			goto nomem;
		if (counter_cells(o))
			goto nomem;
	}
	if (which & KPROF_OUT_DEVLOG) {
		FILE *f = open_out(o, od, 2, "device_log.csv", err);

		if (!f)
			goto fail;
		if (kprof_out_devlog_stream(o, f))
			goto nomem;
	}
	if (which & KPROF_OUT_HOST) {
		o->host = open_out(o, od, 3, "host_events.csv", err);
		if (!o->host)
			goto fail;
	}
	if (o->counters)
		fputs("GLOBAL CALL COUNT,OP CODE,COUNTER,UNIT,CORES,MIN,MAX,SUM\n", o->counters);
	if (o->host)
		fputs("ROLE,PID,TID,COMM,CMD,ENTER TS [ns],EXIT TS [ns],DURATION [ns],RET,SEQ\n",
		      o->host);
	return 0;
nomem:
	kprof_err_set(err, ENOMEM, "out of memory");
fail:
	kprof_out_discard(o);
	return -(err ? err->code : ENOMEM);
}

/* bytes that make a field need quotes anywhere in it */
static const unsigned char csv_special[256] = {
	[','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1,
};

/*
 * s (n bytes) written as it is: not what spreadsheets evaluate as a
 * formula, even quoted (OWASP), no separator, quote or line break, and no
 * blanks at its ends (the reader drops those around unquoted fields)
 */
static int csv_plain_ends(const char *s, size_t n)
{
	if (!n)
		return 1;
	switch (s[0]) {
	case '=': case '+': case '-': case '@': case '\t': case '\r': case ' ':
		return 0;
	default:
		return s[n - 1] != ' ' && s[n - 1] != '\t';
	}
}

static int csv_plain(const char *s, size_t n)
{
	if (!csv_plain_ends(s, n))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (csv_special[(unsigned char)s[i]])
			return 0;
	return 1;
}

/* the most a cell of n bytes of text takes: quotes, a ' and each byte doubled */
#define CSV_CELL(n)	(2 * (size_t)(n) + 3)

/* a quoted cell's start at p: its quote, and a ' when s would be a formula */
static char *csv_quote_open(char *p, const char *s, size_t n)
{
	*p++ = '"';
	if (n && memchr("=+-@\t\r", s[0], 6))
		*p++ = '\'';
	return p;
}

/* s (n bytes) inside quotes at p: each '"' doubled */
static char *csv_escape(char *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			*p++ = '"';
		*p++ = s[i];
	}
	return p;
}

/*
 * n bytes of s at p, reading no byte outside them; returns the end. The
 * cells of a row (op codes, counter names) are short: a few fixed-size
 * (inlined) copies, overlapping, cost less than a call of memcpy.
 */
static inline char *copy_short(char *p, const char *s, size_t n)
{
	if (n > 32) {
		memcpy(p, s, n);
	} else if (n >= 16) {
		memcpy(p, s, 16);
		memcpy(p + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else if (n) {
		p[0] = s[0];
		p[n / 2] = s[n / 2];
		p[n - 1] = s[n - 1];
	}
	return p + n;
}

/* s (n bytes) as a cell at p, at most CSV_CELL(n) bytes; returns the end */
static char *csv_cell(char *p, const char *s, size_t n)
{
	if (csv_plain(s, n))
		return copy_short(p, s, n);
	p = csv_escape(csv_quote_open(p, s, n), s, n);
	*p++ = '"';
	return p;
}

/* a quoted cell's text goes through a buffer this long at a time */
#define CSV_PIECE	256

void kprof_csv_field(FILE *f, const char *s)
{
	char b[CSV_CELL(CSV_PIECE)], *p;
	size_t n = strlen(s);

	if (csv_plain(s, n)) {
		fwrite(s, 1, n, f);
		return;
	}
	/* csv_cell in pieces: text of any length */
	p = csv_quote_open(b, s, n);
	for (;;) {
		size_t k = n < CSV_PIECE ? n : CSV_PIECE;

		p = csv_escape(p, s, k);
		s += k;
		n -= k;
		if (!n)
			break;
		fwrite(b, 1, (size_t)(p - b), f);
		p = b;
	}
	*p++ = '"';
	fwrite(b, 1, (size_t)(p - b), f);
}

/*
 * ",v" in decimal at p; returns the end. device_log.csv has a row per
 * marker, and fprintf's format parsing was a third of a report's
 * instructions (callgrind), so its numbers (and ops.csv's) are formatted
 * here.
 */
static char *devlog_num(char *p, uint64_t v)
{
	*p++ = ',';
	return kprof_fmt_u64(p, v);
}

/*
 * The cells of ops.csv, counters.csv and host_events.csv rows are made
 * at p, each returning the end: a row goes to its file in one piece (an
 * fwrite per cell was half of an op's cost).
 */

/* the most one number cell takes: ",", a "-" or not, 20 digits */
#define CSV_NUM		22

/* ",v", or "," when unknown */
static char *csv_u64(char *p, uint64_t v)
{
	if (v == KPROF_AGG_NONE) {
		*p++ = ',';
		return p;
	}
	return devlog_num(p, v);
}

/* ",-m" */
static char *csv_neg(char *p, uint64_t m)
{
	/* ",digits" one further, then ",-" before */
	char *e = devlog_num(p + 1, m);

	p[0] = ',';
	p[1] = '-';
	return e;
}

/* ",v" for a signed v, as ",%" PRId64 */
static char *csv_i64(char *p, int64_t v)
{
	/* |v| as unsigned: INT64_MIN too */
	return v >= 0 ? devlog_num(p, (uint64_t)v) : csv_neg(p, 0 - (uint64_t)v);
}

/* the most csv_ns writes: ",%.0f" of -DBL_MAX is 311 bytes, and its NUL */
#define CSV_NS		320

/*
 * ns values: rounded to whole ns; empty when unknown. What "%.0f" writes:
 * nearbyint rounds as printf does (to nearest, ties to even, in the
 * current rounding mode), and a negative value that rounds to zero
 * keeps its "-".
 */
static char *csv_ns(char *p, double v)
{
	double r;

	if (isnan(v)) {
		*p++ = ',';
		return p;
	}
	r = nearbyint(v);
	if (!(fabs(r) < 1e18))
		return p + snprintf(p, CSV_NS, ",%.0f", v);
	/* signbit: -0 too */
	return signbit(r) ? csv_neg(p, (uint64_t)-r) : devlog_num(p, (uint64_t)r);
}

static void ops_header(struct kprof_out *o)
{
	FILE *f = o->ops;

	/* one header line, written in parts */
	fputs("OP CODE,GLOBAL CALL COUNT,DEVICE ID,CORE COUNT,HOST START TS,HOST END TS,", f);
	fputs("HOST DURATION [ns],DEVICE FW START CYCLE,DEVICE FW END CYCLE,", f);
	fputs("OP TO OP LATENCY [ns],DEVICE FW DURATION [ns],DEVICE KERNEL DURATION [ns],", f);
	fputs("DEVICE KERNEL DURATION PER CORE MIN [ns],", f);
	fputs("DEVICE KERNEL DURATION PER CORE MAX [ns],", f);
	fputs("DEVICE KERNEL DURATION PER CORE AVG [ns]", f);
	for (unsigned int r = 0; r < o->nriscs; r++) {
		char name[16], col[64];
		size_t k = 0;

		/* tt-metal's column names drop the underscore: TRISC_0 -> TRISC0 */
		for (const char *s = o->risc_names[r]; *s && k + 1 < sizeof(name); s++)
			if (*s != '_')
				name[k++] = *s;
		name[k] = '\0';
		/* the whole name is one cell: a RISC name may need quotes */
		snprintf(col, sizeof(col), "DEVICE %s KERNEL DURATION [ns]", name);
		fputc(',', f);
		kprof_csv_field(f, col);
	}
	fputs(",DEVICE FW START TS [ns],DEVICE FW END TS [ns],LAUNCH TO START [ns],", f);
	fputs("SYNC WAIT [ns],SYNC END TS [ns],DEVICE CLOCK [MHz],MARKERS,MARKERS LOST,", f);
	fputs("ZONE MARKERS\n", f);
}

static void top_sift_down(struct kprof_out_top *h, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;
		struct kprof_out_top t;

		if (l < n && h[l].fw_ns < h[m].fw_ns)
			m = l;
		if (r < n && h[r].fw_ns < h[m].fw_ns)
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void account(struct kprof_out *o, const struct kprof_op_row *row)
{
	double dur = !isnan(row->fw_duration_ns) ? row->fw_duration_ns : row->kernel_duration_ns;
	struct kprof_out_code *c = NULL;
	struct kprof_hidx_str key = { o->codes, sizeof(*o->codes),
				      offsetof(struct kprof_out_code, op_code), row->op_code };
	size_t pos;

	o->nops++;
	o->markers += row->markers;
	o->markers_lost += row->markers_lost;
	if (!isnan(row->fw_duration_ns)) {
		o->ops_with_fw++;
		o->fw_sum_ns += row->fw_duration_ns;
		if (isnan(o->first_fw_ns))
			o->first_fw_ns = row->fw_start_ns;
		o->last_fw_end_ns = row->fw_end_ns;
	}
	if (!isnan(row->kernel_duration_ns))
		o->kernel_sum_ns += row->kernel_duration_ns;
	/* an entry (its 512-byte op code) made only when it goes in the list */
	if (!isnan(dur) && (o->ntop < o->top_n || dur > o->top[0].fw_ns)) {
		struct kprof_out_top t = { .seq = row->seq, .fw_ns = dur,
					   .kernel_ns = row->kernel_duration_ns };

		memcpy(t.op_code, row->op_code, sizeof(t.op_code));
		if (o->ntop < o->top_n) {
			unsigned int i = o->ntop++;

			o->top[i] = t;
			while (i && o->top[(i - 1) / 2].fw_ns > o->top[i].fw_ns) {
				struct kprof_out_top x = o->top[i];

				o->top[i] = o->top[(i - 1) / 2];
				o->top[(i - 1) / 2] = x;
				i = (i - 1) / 2;
			}
		} else {
			o->top[0] = t;
			top_sift_down(o->top, o->ntop, 0);
		}
	}
	/* by hash: a GPU capture may have hundreds of kernel names */
	pos = kprof_hidx_slot(&o->code_idx, kprof_hash_str(row->op_code), kprof_hidx_str_eq, &key);
	if (o->code_idx.slot[pos]) {
		c = &o->codes[o->code_idx.slot[pos] - 1];
	} else if (o->ncodes < KPROF_OUT_MAX_CODES) {
		c = &o->codes[o->ncodes++];
		o->code_idx.slot[pos] = o->ncodes;
		memcpy(c->op_code, row->op_code, sizeof(c->op_code));
		c->fw_min_ns = NAN;
		c->fw_max_ns = NAN;
	}
	if (!c) {
		o->other_codes++;
		return;
	}
	c->count++;
	if (!isnan(row->fw_duration_ns)) {
		c->fw_sum_ns += row->fw_duration_ns;
		if (isnan(c->fw_min_ns) || row->fw_duration_ns < c->fw_min_ns)
			c->fw_min_ns = row->fw_duration_ns;
		if (isnan(c->fw_max_ns) || row->fw_duration_ns > c->fw_max_ns)
			c->fw_max_ns = row->fw_duration_ns;
	}
	if (!isnan(row->kernel_duration_ns))
		c->kernel_sum_ns += row->kernel_duration_ns;
}

/* the most an op code's cell takes (row->op_code: a C string of its array) */
#define CSV_CODE	CSV_CELL(KPROF_OP_CODE_LEN - 1)
/* the most an ops.csv row takes: its code, 13 numbers, 18 ns cells, "\n" */
#define OPS_ROW		(CSV_CODE + 13 * CSV_NUM + (10 + KPROF_MAX_RISCS) * CSV_NS + 1)
_Static_assert(OPS_ROW <= KPROF_OUT_ROWS_BUF, "an ops.csv row fits in the rows' buffer");
/* counters_rows' mask of every counter, (1 << KPROF_MAX_COUNTERS) - 1, in 64 bits */
_Static_assert(KPROF_MAX_COUNTERS < 64, "a counter mask is 64 bits");
/* the most ",%.17g" of a double takes, and its NUL */
#define CSV_REAL	26
/* the most the numbers of a counters.csv row take, either kind, and "\n" */
#define COUNTERS_TAIL	(4 * CSV_NUM + 3 * CSV_REAL + 1)

/*
 * left bytes at p to f, after what its stream holds: to its descriptor,
 * not through the stream's buffer (a copy of every byte). *err: the errno
 * of a failure; once set, nothing more is written.
 */
static void block_write(FILE *f, const char *p, size_t left, int *err)
{
	int fd = fileno(f);

	if (!left || *err)
		return;
	if (fd < 0) {
		/* a stream of no file (a memory stream) */
		fwrite(p, 1, left, f);
		return;
	}
	/* what the stream holds comes first (the header, a quoted cell) */
	if (fflush(f)) {
		*err = errno ? errno : EIO;
		return;
	}
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = n < 0 ? errno : EIO;
			return;
		}
		p += n;
		left -= (size_t)n;
	}
}

/* rows gathered in buf (up to end) and written to f when it is full */
struct csv_rows {
	FILE *f;
	char *buf, *end;
	int *err;		/* block_write's */
};

/* p, or buf once the rows up to p are written: room for n bytes there */
static char *rows_room(const struct csv_rows *w, char *p, size_t n)
{
	if ((size_t)(w->end - p) >= n)
		return p;
	block_write(w->f, w->buf, (size_t)(p - w->buf), w->err);
	return w->buf;
}

/* n bytes of s after the rows at p; more than buf holds go to f themselves */
static char *rows_put(const struct csv_rows *w, char *p, const char *s, size_t n)
{
	if (n <= (size_t)(w->end - w->buf)) {
		p = rows_room(w, p, n);
		memcpy(p, s, n);
		return p + n;
	}
	block_write(w->f, w->buf, (size_t)(p - w->buf), w->err);
	block_write(w->f, s, n, w->err);
	return w->buf;
}

#define UNNAMED_LEN	24

/* counter i's name and unit: one with no name is "counterI", of no unit */
static const char *counter_name(const struct kprof_out *o, unsigned int i,
				char unnamed[UNNAMED_LEN], const char **unit)
{
	const char *name = o->cname[i] ? o->cname[i] : o->cdesc[i].name;

	*unit = o->cdesc[i].unit;
	if (i >= o->ncounters || !name[0]) {
		snprintf(unnamed, UNNAMED_LEN, "counter%u", i);
		*unit = "";
		return unnamed;
	}
	return name;
}

/* o->ccells: the same two cells in every row of a counter, made once */
static int counter_cells(struct kprof_out *o)
{
	char unnamed[UNNAMED_LEN], *p;
	const char *name, *unit;
	size_t size = 0;

	for (unsigned int i = 0; i < KPROF_MAX_COUNTERS; i++) {
		name = counter_name(o, i, unnamed, &unit);
		size += CSV_CELL(strlen(name)) + 1 + CSV_CELL(strlen(unit));
	}
	o->ccells = malloc(size);
	if (!o->ccells)
		return -ENOMEM;
	p = o->ccells;
	for (unsigned int i = 0; i < KPROF_MAX_COUNTERS; i++) {
		o->ccell_at[i] = (size_t)(p - o->ccells);
		name = counter_name(o, i, unnamed, &unit);
		p = csv_cell(p, name, strlen(name));
		*p++ = ',';
		p = csv_cell(p, unit, strlen(unit));
	}
	o->ccell_at[KPROF_MAX_COUNTERS] = (size_t)(p - o->ccells);
	return 0;
}

/* the rows gathered in buf (*len bytes) to f */
static void rows_flush(FILE *f, const char *buf, size_t *len, int *err)
{
	block_write(f, buf, *len, err);
	*len = 0;
}

/* the ops.csv row of an op whose code's cell is code (ncode bytes) */
static void ops_row(struct kprof_out *o, const struct kprof_op_row *row, const char *code,
		    size_t ncode)
{
	char *buf, *p;

	/* the first op counted (account): the file has nothing yet */
	if (o->nops == 1)
		ops_header(o);
	if (KPROF_OUT_ROWS_BUF - o->ops_len < OPS_ROW)
		rows_flush(o->ops, o->ops_buf, &o->ops_len, &o->ops_err);
	buf = o->ops_buf + o->ops_len;
	p = copy_short(buf, code, ncode);
	p = devlog_num(p, row->seq);
	p = devlog_num(p, row->device_id);
	p = devlog_num(p, row->core_count);
	p = csv_u64(p, row->host_start_ns);
	p = csv_u64(p, row->host_end_ns);
	p = csv_u64(p, row->host_start_ns != KPROF_AGG_NONE ?
		       row->host_end_ns - row->host_start_ns : KPROF_AGG_NONE);
	p = csv_u64(p, o->no_cycles ? KPROF_AGG_NONE : row->fw_start_cycle);
	p = csv_u64(p, o->no_cycles ? KPROF_AGG_NONE : row->fw_end_cycle);
	p = csv_ns(p, row->op_to_op_ns);
	p = csv_ns(p, row->fw_duration_ns);
	p = csv_ns(p, row->kernel_duration_ns);
	p = csv_ns(p, row->kernel_core_min_ns);
	p = csv_ns(p, row->kernel_core_max_ns);
	p = csv_ns(p, row->kernel_core_avg_ns);
	for (unsigned int r = 0; r < o->nriscs; r++)
		p = csv_ns(p, row->risc_kernel_ns[r]);
	p = csv_ns(p, row->fw_start_ns);
	p = csv_ns(p, row->fw_end_ns);
	p = csv_ns(p, row->launch_to_start_ns);
	p = csv_ns(p, row->sync_wait_ns);
	p = csv_u64(p, row->sync_end_ns);
	if (row->clock_mhz)
		p = devlog_num(p, row->clock_mhz);
	else
		*p++ = ',';
	p = devlog_num(p, row->markers);
	p = devlog_num(p, row->markers_lost);
	p = devlog_num(p, row->zones);
	*p++ = '\n';
	o->ops_len = (size_t)(p - o->ops_buf);
}

/* the counters.csv rows of an op, gathered after those in o->cnt_buf */
static void counters_rows(struct kprof_out *o, const struct kprof_op_row *row,
			  const char *code, size_t ncode)
{
	const size_t size = KPROF_OUT_ROWS_BUF;
	const struct csv_rows w = { .f = o->counters, .buf = o->cnt_buf,
				    .end = o->cnt_buf + size, .err = &o->cnt_err };
	char head[CSV_NUM + CSV_CODE + 1], *p;
	size_t nhead;
	uint64_t m;

	/* "seq,CODE,", each row's start: the number without its comma */
	p = devlog_num(head, row->seq);
	*p++ = ',';
	p = copy_short(p, code, ncode);
	*p++ = ',';
	nhead = (size_t)(p - head - 1);
	p = o->cnt_buf + o->cnt_len;
	/* the counters present, lowest first */
	m = row->counter_mask & ((1ULL << KPROF_MAX_COUNTERS) - 1);
	for (; m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctzll(m);
		const size_t *at = &o->ccell_at[i];
		size_t ncell = at[1] - at[0], nrow = nhead + ncell + COUNTERS_TAIL;

		if (nrow <= size) {
			/* the row's room made once */
			p = rows_room(&w, p, nrow);
			p = copy_short(p, head + 1, nhead);
			p = copy_short(p, o->ccells + at[0], ncell);
		} else {
			p = rows_put(&w, p, head + 1, nhead);
			p = rows_put(&w, p, o->ccells + at[0], ncell);
			p = rows_room(&w, p, COUNTERS_TAIL);
		}
		p = devlog_num(p, row->counter_cores[i]);
		if (o->real_mask & (1ULL << i)) {
			/* MIN, MAX and SUM: the one value, formatted once */
			double v = kprof_gpucnt_from_u64(row->counter_sum[i]);
			size_t k = (size_t)snprintf(p, CSV_REAL, ",%.17g", v);

			memcpy(p + k, p, k);
			memcpy(p + 2 * k, p, k);
			p += 3 * k;
		} else {
			p = devlog_num(p, row->counter_min[i]);
			p = devlog_num(p, row->counter_max[i]);
			p = devlog_num(p, row->counter_sum[i]);
		}
		*p++ = '\n';
	}
	o->cnt_len = (size_t)(p - o->cnt_buf);
}

int kprof_out_op(void *ctx, const struct kprof_op_row *row)
{
	struct kprof_out *o = ctx;
	FILE *f = o->ops;
	char code[CSV_CODE];
	size_t ncode;

	if (o->op_filter && fnmatch(o->op_filter, row->op_code, 0)) {
		o->ops_filtered++;
		return 0;
	}
	account(o, row);
	if (o->trace)
		kprof_trace_op(o->trace, row);
	if (!f && !o->counters)
		return 0;
	/* the op code's cell: made once for the op's rows in both files */
	ncode = (size_t)(csv_cell(code, row->op_code,
				  strnlen(row->op_code, KPROF_OP_CODE_LEN - 1)) - code);
	if (f)
		ops_row(o, row, code, ncode);
	if (o->counters)
		counters_rows(o, row, code, ncode);
	/* the blocks' errno says why (a full disk), a stream's error not */
	if (o->ops_err || o->cnt_err)
		return -(o->ops_err ? o->ops_err : o->cnt_err);
	if ((f && ferror(f)) || (o->counters && ferror(o->counters)))
		return -EIO;
	return 0;
}

/*
 * s as the row's next text field: copied into the row at p when plain,
 * else the block of rows from blk up to p and s (kprof_csv_field) go to
 * f. Returns where the row goes on.
 */
static char *devlog_text(FILE *f, char *blk, char *p, const char *s)
{
	size_t n = 0;

	/* copied while it is looked at: one pass over the bytes */
	while (n <= DEVLOG_FIELD && s[n] && !csv_special[(unsigned char)s[n]]) {
		p[n] = s[n];
		n++;
	}
	if (!s[n] && csv_plain_ends(s, n))
		return p + n;
	fwrite(blk, 1, (size_t)(p - blk), f);
	kprof_csv_field(f, s);
	return blk;
}

int kprof_out_devlog_stream(struct kprof_out *o, FILE *f)
{
	o->dl_buf = malloc(KPROF_OUT_DEVLOG_BUF);
	if (!o->dl_buf)
		return -ENOMEM;
	o->dl_len = 0;
	o->dl_err = 0;
	o->devlog = f;
	return 0;
}

void kprof_out_devlog_flush(struct kprof_out *o)
{
	size_t left = o->dl_len;

	o->dl_len = 0;
	block_write(o->devlog, o->dl_buf, left, &o->dl_err);
}

int kprof_out_devlog_header(struct kprof_out *o, const char *arch,
			    const char *freq_mhz, unsigned int max_cores)
{
	char cell[96];

	if (!o->devlog)
		return 0;
	kprof_out_devlog_flush(o);	/* (no rows come before it) */
	/* arch comes from a tt-metal log: a cell like any name */
	snprintf(cell, sizeof(cell), "ARCH: %s", arch);
	kprof_csv_field(o->devlog, cell);
	snprintf(cell, sizeof(cell), "CHIP_FREQ[MHz]: %s", freq_mhz);
	fputs(", ", o->devlog);
	kprof_csv_field(o->devlog, cell);
	if (max_cores)
		fprintf(o->devlog, ", Max Compute Cores: %u", max_cores);
	fputs("\n" DEVLOG_HEADER "\n", o->devlog);
	return ferror(o->devlog) ? -EIO : 0;
}

void kprof_devlog_text_init(struct kprof_devlog_text *t, const char *s)
{
	size_t n = strlen(s);

	t->s = s;
	t->n = n <= DEVLOG_FIELD && csv_plain(s, n) ? (int)n : -1;
	memset(t->pad, 0, sizeof(t->pad));
	if (t->n >= 0 && (size_t)t->n <= sizeof(t->pad))
		memcpy(t->pad, s, n);
}

/* t as the row's next text field (devlog_text when not known plain) */
static inline char *devlog_cell(FILE *f, char *blk, char *p, const struct kprof_devlog_text *t)
{
	if (t->n < 0)
		return devlog_text(f, blk, p, t->s);
	/* a short one by a fixed-size copy (the row has room for a whole
	 * field; what follows it is written over)
	 */
	if ((size_t)t->n <= sizeof(t->pad))
		memcpy(p, t->pad, sizeof(t->pad));
	else
		memcpy(p, t->s, (size_t)t->n);
	return p + t->n;
}

int kprof_out_devlog_row(struct kprof_out *o, unsigned int slot, unsigned int x,
			 unsigned int y, const char *risc, uint64_t timer_id,
			 uint64_t time, uint64_t data, uint64_t run_id,
			 const char *zone, const char *type)
{
	const struct kprof_devlog_text r = { .s = risc, .n = -1 }, z = { .s = zone, .n = -1 },
				       t = { .s = type, .n = -1 };

	return kprof_out_devlog_row_t(o, slot, x, y, &r, timer_id, time, data, run_id, &z, &t);
}

int kprof_out_devlog_row_t(struct kprof_out *o, unsigned int slot, unsigned int x,
			   unsigned int y, const struct kprof_devlog_text *risc,
			   uint64_t timer_id, uint64_t time, uint64_t data, uint64_t run_id,
			   const struct kprof_devlog_text *zone,
			   const struct kprof_devlog_text *type)
{
	FILE *f = o->devlog;
	char first[24] = { 0 }, *blk = o->dl_buf, *p;
	size_t n;

	if (!f)
		return 0;
	if (KPROF_OUT_DEVLOG_BUF - o->dl_len < DEVLOG_ROW)
		kprof_out_devlog_flush(o);
	/*
	 * the row goes after the rows the block holds (a text field that
	 * needs quotes writes the block so far and the row goes on from the
	 * block's start); the first number without its comma
	 */
	n = (size_t)(devlog_num(first, slot) - first) - 1;
	p = blk + o->dl_len;
	/* at most 10 digits: a fixed-size copy, the rest written over */
	memcpy(p, first + 1, 16);
	p += n;
	p = devlog_num(devlog_num(p, x), y);
	*p++ = ',';
	p = devlog_cell(f, blk, p, risc);
	p = devlog_num(devlog_num(p, timer_id), time);
	p = devlog_num(devlog_num(p, data), run_id);
	memcpy(p, ",,,", 3);
	p = devlog_cell(f, blk, p + 3, zone);
	*p++ = ',';
	p = devlog_cell(f, blk, p, type);
	memcpy(p, ",0,,\n", 5);
	o->dl_len = (size_t)(p + 5 - blk);
	return 0;
}

/* text at p, ending at p + t->n; not for text that needs quotes */
static char *devlog_part_text(char *p, const struct kprof_devlog_text *t)
{
	memcpy(p, t->s, (size_t)t->n);
	return p + t->n;
}

/* s (length n) as part pt; unusable (n -1) when longer than a part */
static void devlog_part_set(struct kprof_devlog_part *pt, const char *s, size_t n)
{
	memset(pt, 0, sizeof(*pt));
	pt->n = -1;
	if (n > sizeof(pt->s))
		return;
	memcpy(pt->s, s, n);
	pt->n = (int)n;
}

void kprof_devlog_head(struct kprof_devlog_part *h, unsigned int slot, unsigned int x,
		       unsigned int y, const struct kprof_devlog_text *risc)
{
	char b[3 * 21 + DEVLOG_FIELD + 2], *p;

	if (risc->n < 0) {
		devlog_part_set(h, NULL, SIZE_MAX);
		return;
	}
	/* as kprof_out_devlog_row_t starts a row */
	p = devlog_num(b, slot);
	p = devlog_num(devlog_num(p, x), y);
	*p++ = ',';
	p = devlog_part_text(p, risc);
	devlog_part_set(h, b + 1, (size_t)(p - b - 1));
}

void kprof_devlog_tail(struct kprof_devlog_part *t, const struct kprof_devlog_text *zone,
		       const struct kprof_devlog_text *type)
{
	char b[2 * DEVLOG_FIELD + 16], *p = b;

	if (zone->n < 0 || type->n < 0) {
		devlog_part_set(t, NULL, SIZE_MAX);
		return;
	}
	/* as kprof_out_devlog_row_t ends a row */
	memcpy(p, ",,,", 3);
	p = devlog_part_text(p + 3, zone);
	*p++ = ',';
	p = devlog_part_text(p, type);
	memcpy(p, ",0,,\n", 5);
	devlog_part_set(t, b, (size_t)(p + 5 - b));
}

/* A row from parts: room made, head copied; where its numbers go. */
static inline char *devlog_row_begin(struct kprof_out *o, const struct kprof_devlog_part *head)
{
	char *p;

	if (KPROF_OUT_DEVLOG_BUF - o->dl_len < DEVLOG_ROW)
		kprof_out_devlog_flush(o);
	/* whole parts: what follows each is written over */
	p = o->dl_buf + o->dl_len;
	memcpy(p, head->s, sizeof(head->s));
	return p + head->n;
}

/* ... and its tail after the numbers, which end at p */
static inline void devlog_row_end(struct kprof_out *o, char *p,
				  const struct kprof_devlog_part *tail)
{
	memcpy(p, tail->s, sizeof(tail->s));
	o->dl_len = (size_t)(p + tail->n - o->dl_buf);
}

int kprof_out_devlog_row_p(struct kprof_out *o, const struct kprof_devlog_part *head,
			   uint64_t timer_id, uint64_t time, uint64_t data, uint64_t run_id,
			   const struct kprof_devlog_part *tail)
{
	char *p;

	if (!o->devlog)
		return 0;
	p = devlog_row_begin(o, head);
	p = devlog_num(devlog_num(p, timer_id), time);
	p = devlog_num(devlog_num(p, data), run_id);
	devlog_row_end(o, p, tail);
	return 0;
}

/*
 * ",digits" at p: the n (1..20) bytes at s, read from no byte outside
 * them, by a few overlapping fixed-size copies
 */
static inline char *devlog_digits(char *p, const char *s, size_t n)
{
	*p++ = ',';
	if (n >= 8) {
		memcpy(p, s, 8);
		if (n > 16)
			memcpy(p + 8, s + 8, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else {
		p[0] = s[0];
		p[n / 2] = s[n / 2];
		p[n - 1] = s[n - 1];
	}
	return p + n;
}

/* v, or its digits as given (ndig > 0: what devlog_num would write) */
static inline char *devlog_num_or(char *p, uint64_t v, const char *dig, unsigned int ndig)
{
	return ndig ? devlog_digits(p, dig, ndig) : devlog_num(p, v);
}

int kprof_out_devlog_row_pd(struct kprof_out *o, const struct kprof_devlog_part *head,
			    const uint64_t v[4], const char *const dig[4],
			    const unsigned char ndig[4], const struct kprof_devlog_part *tail)
{
	char *p;

	if (!o->devlog)
		return 0;
	p = devlog_row_begin(o, head);
	for (int i = 0; i < 4; i++)
		p = devlog_num_or(p, v[i], dig[i], ndig[i]);
	devlog_row_end(o, p, tail);
	return 0;
}

int kprof_out_host_event(struct kprof_out *o, const struct kprof_host_event *ev)
{
	static const char hex[] = "0123456789abcdef";
	FILE *f = o->host;
	/* role, comm, ",0x%08x" and 7 numbers at most, and "\n" */
	char b[8 + CSV_CELL(sizeof(ev->comm)) + 11 + 7 * CSV_NUM + 1], *p;
	const char *role = ev->role == KPROF_ROLE_LAUNCH ? "launch" :
			   ev->role == KPROF_ROLE_SYNC ? "sync" : "other";
	size_t n = strlen(role);

	o->host_events++;
	if (o->trace)
		kprof_trace_host(o->trace, ev);
	if (!f)
		return 0;
	memcpy(b, role, n);
	p = devlog_num(b + n, ev->pid);
	p = devlog_num(p, ev->tid);
	*p++ = ',';
	/* comm: not always NUL-terminated */
	p = csv_cell(p, ev->comm, strnlen(ev->comm, sizeof(ev->comm)));
	memcpy(p, ",0x", 3);
	for (int k = 0; k < 8; k++)
		p[3 + k] = hex[(ev->cmd >> (4 * (7 - k))) & 0xf];
	p = devlog_num(p + 11, (uint64_t)ev->enter_ns);
	p = devlog_num(p, (uint64_t)ev->exit_ns);
	p = csv_i64(p, (int64_t)(ev->exit_ns - ev->enter_ns));
	p = csv_i64(p, (int64_t)ev->ret);
	p = devlog_num(p, (uint64_t)ev->seq);
	*p++ = '\n';
	fwrite_unlocked(b, 1, (size_t)(p - b), f);
	return ferror(f) ? -EIO : 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct kprof_out_top *x = a, *y = b;

	if (x->fw_ns != y->fw_ns)
		return x->fw_ns < y->fw_ns ? 1 : -1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

void kprof_out_top_sorted(struct kprof_out *o)
{
	qsort(o->top, o->ntop, sizeof(*o->top), cmp_top);
}

/* the buffers and streams, after the files were committed or discarded */
static void out_release(struct kprof_out *o)
{
	free(o->dl_buf);
	o->dl_buf = NULL;
	free(o->ccells);
	o->ccells = NULL;
	free(o->ops_buf);
	o->ops_buf = NULL;
	free(o->cnt_buf);
	o->cnt_buf = NULL;
	o->ops_len = 0;
	o->cnt_len = 0;
	o->ops_err = 0;
	o->cnt_err = 0;
	o->ops = NULL;
	o->counters = NULL;
	o->devlog = NULL;
	o->host = NULL;
}

int kprof_out_close(struct kprof_out *o, struct kprof_err *err)
{
	int ret = 0;

	if (o->ops)
		rows_flush(o->ops, o->ops_buf, &o->ops_len, &o->ops_err);
	if (o->counters)
		rows_flush(o->counters, o->cnt_buf, &o->cnt_len, &o->cnt_err);
	/* an ops.csv with no op still gets its header */
	if (o->ops && ftell(o->ops) == 0)
		ops_header(o);
	if (o->devlog)
		kprof_out_devlog_flush(o);
	/* the first failure is the one told */
	for (int i = 0; i < 3; i++) {
		int e = i == 0 ? o->ops_err : i == 1 ? o->cnt_err : o->dl_err;

		if (e) {
			int r = kprof_outfile_fail(&o->files[i], e, ret ? NULL : err);

			ret = ret ? ret : r;
		}
	}
	for (int i = 0; i < 4; i++)
		if (o->files[i].f) {
			int r = kprof_outfile_commit(&o->files[i], 0, ret ? NULL : err);

			ret = ret ? ret : r;
		}
	out_release(o);
	return ret;
}

void kprof_out_discard(struct kprof_out *o)
{
	for (int i = 0; i < 4; i++)
		kprof_outfile_discard(&o->files[i]);
	o->dl_len = 0;
	out_release(o);
}
