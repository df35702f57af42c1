// SPDX-License-Identifier: GPL-2.0
/*
 * Names from foreign input in what people open: control characters and
 * bad UTF-8 (kprof_text.h), Markdown in report.md, spreadsheet formulas
 * in CSV cells (docs/formats.md, "Names in text outputs" and CSV
 * conventions). A capture whose op codes, device name, counter name,
 * RISC name and process comm are hostile is reported; every text output
 * is then checked.
 */
#include "kt.h"
#include "kprof_report_out.h"
#include "kprof_array_size.h"
#include "kprof_diff.h"
#include "kprof_report.h"
#include "kprof_spool.h"
#include "kprof_text.h"
#include "kprof_outdir.h"
#include "kprof_writers.h"

#include <math.h>

#define ESC "\x1b"
#define C1_CSI "\xc2\x9b"		/* U+009B in UTF-8 */
#define RLO "\xe2\x80\xae"	/* U+202E, right-to-left override */

/* op codes: a terminal title + bell, a formula, Markdown and HTML, C1 CSI,
 * invalid UTF-8 and a bidi override
 */
static const char *const ops[] = {
	ESC "]0;pwned\x07x",
	"=cmd|' /C calc'!A0",
	"+1|a_b`c*d<b>&[e](f)~\\",
	"c1" C1_CSI "31m\xff\xfe|" RLO "evil",
};

#define NOPS_KINDS	4

static void put(struct kprof_spool_writer *w, const void *r, size_t n)
{
	struct kprof_err err;

	KT_CHECK(kprof_spool_append(w, r, n, &err) == 0, "append: %s", err.msg);
}

static void make_capture(const char *dir)
{
	struct kprof_device_info info = { .size = sizeof(info), .version = 1,
		.num_cores = 2, .grid_x = 2, .grid_y = 1, .riscs_per_core = 1,
		.num_counters = 2, .ref_clock_hz = 1000000000ULL, .clock_mhz = 1000 };
	struct kprof_counter_info ci = { .size = sizeof(ci), .num_counters = 2 };
	struct kprof_spool_writer *d, *h;
	struct kprof_outdir *od;
	struct kprof_err err;

	snprintf(info.name, sizeof(info.name), "dev" ESC "[2J|_x_");
	strcpy(info.backend, "sim");
	strcpy(info.risc_names[0], "=B");
	strcpy(ci.desc[0].name, "-flops");
	strcpy(ci.desc[1].name, "bytes_read");
	od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	d = od ? kprof_spool_create(od, KPROF_SPOOL_DEVICE, &info, &ci, &err) : NULL;
	h = d ? kprof_spool_create(od, KPROF_SPOOL_HOST, NULL, NULL, &err) : NULL;
	kprof_outdir_close(od);
	KT_CHECK(d && h, "create: %s", err.msg);
	if (!d || !h)
		exit(1);
	for (int i = 1; i <= 8; i++) {
		uint64_t t = 1000000 * (uint64_t)i;
		struct kprof_rec_op op = { .hdr = { KPROF_REC_OP, sizeof(op), 0 },
			.op_seq = (uint64_t)i, .timestamp = t, .num_cores = 1, .clock_mhz = 1000 };
		struct kprof_host_event ev = { .type = KPROF_HREC_IOCTL, .size = sizeof(ev),
			.enter_ns = t - 1000, .exit_ns = t - 500, .pid = 1, .tid = 1,
			.role = KPROF_ROLE_LAUNCH, .seq = (uint64_t)i };
		struct { struct kprof_rec_counters c; uint64_t v[2]; } cr = {
			.c = { .hdr = { KPROF_REC_COUNTERS, sizeof(cr), 0 },
			       .op_seq = (uint64_t)i, .counter_mask = 3, .core = 0 },
			.v = { 1000, 64 } };

		snprintf(op.name, sizeof(op.name), "%s", ops[i % NOPS_KINDS]);
		put(d, &op, sizeof(op));
		for (uint8_t k = KPROF_MARK_FW_START; k <= KPROF_MARK_KERNEL_END; k++) {
			struct kprof_rec_marker m = { .hdr = { KPROF_REC_MARKER, sizeof(m), 0 },
				.core = 0, .risc = 0, .kind = k, .op_seq = (uint32_t)i,
				.timestamp = t + 100 * k };

			put(d, &m, sizeof(m));
		}
		put(d, &cr, sizeof(cr));
		snprintf(ev.comm, sizeof(ev.comm), "%s", i % 2 ? "@SUM(1+1)" : ESC "[31mw");
		put(h, &ev, sizeof(ev));
	}
	KT_CHECK(kprof_spool_close(d, &err) == 0, "close d");
	KT_CHECK(kprof_spool_close(h, &err) == 0, "close h");
}

/*
 * No byte a terminal acts on but line breaks: each line is its own safe
 * form (kprof_text.h: C0, DEL, C1, bidi, bad UTF-8 would become '?').
 */
static int clean_text(const char *s)
{
	size_t n = strlen(s);
	char *copy = strdup(s), *safe = malloc(n + 1), *save = NULL;
	int ok = 1;

	if (!copy || !safe)
		exit(2);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		kprof_text_safe(safe, n + 1, l);
		if (strcmp(safe, l))
			ok = 0;
	}
	free(copy);
	free(safe);
	return ok;
}

static void test_report_outputs(void)
{
	char *dir = kt_tmpdir(), path[256], peaks[256];
	struct kprof_report_opts opts = { .version = "test", .config_json = "{}",
					  .peaks_file = peaks };
	struct kprof_err err = { 0 };
	char *s;
	FILE *f;

	snprintf(peaks, sizeof(peaks), "%s/peaks.json", dir);
	f = fopen(peaks, "w");
	KT_CHECK(f, "peaks");
	fputs("{\"device\": \"<img src=x>|" ESC "[5m\", \"peak_gflops\": 1, \"peak_gb_per_s\": 1,\n"
	      " \"flops_counter\": \"-flops\", \"bytes_counters\": [\"bytes_read\"]}\n", f);
	fclose(f);
	make_capture(dir);
	KT_CHECK(kprof_report_build(dir, NULL, &opts, NULL, &err) == 0, "report: %s", err.msg);

	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	s = kt_slurp(path, NULL);
	KT_CHECK(s && clean_text(s), "summary.txt has no control characters or bad UTF-8");
	KT_CHECK(s && strstr(s, "?]0;pwned?x") && strstr(s, "dev?[2J|_x_"),
		 "summary.txt: '?' in their place");
	free(s);

	snprintf(path, sizeof(path), "%s/report.md", dir);
	s = kt_slurp(path, NULL);
	KT_CHECK(s && clean_text(s), "report.md has no control characters or bad UTF-8");
	KT_CHECK(s && strstr(s, "| +1\\|a\\_b\\`c\\*d\\<b\\>\\&\\[e\\](f)\\~\\\\ |"),
		 "report.md: table cell escaped:\n%s", s ? s : "");
	KT_CHECK(s && strstr(s, "Peaks: \\<img src=x\\>\\|?\\[5m,"), "report.md: peaks device");
	KT_CHECK(s && strstr(s, "dev?\\[2J\\|\\_x\\_"), "report.md: device name");
	KT_CHECK(s && strstr(s, "| c1?31m??\\|?evil |"), "report.md: C1, bad UTF-8, bidi");
	free(s);

	/* CSV: names that are formulas get a ' and quotes; numbers stay */
	snprintf(path, sizeof(path), "%s/ops.csv", dir);
	s = kt_slurp(path, NULL);
	KT_CHECK(s && strstr(s, "\n\"'=cmd|' /C calc'!A0\",") &&
		 strstr(s, "\n\"'+1|a_b`c*d<b>&[e](f)~\\\","), "ops.csv: formulas neutralised");
	KT_CHECK(s && strstr(s, ",DEVICE =B KERNEL DURATION [ns],"), "ops.csv: RISC column");
	free(s);
	snprintf(path, sizeof(path), "%s/counters.csv", dir);
	s = kt_slurp(path, NULL);
	KT_CHECK(s && strstr(s, ",\"'-flops\",") && !strstr(s, ",-flops"), "counters.csv");
	free(s);
	snprintf(path, sizeof(path), "%s/host_events.csv", dir);
	s = kt_slurp(path, NULL);
	KT_CHECK(s && strstr(s, ",\"'@SUM(1+1)\",") && !strstr(s, ",@SUM"), "host_events.csv");
	free(s);
	snprintf(path, sizeof(path), "%s/device_log.csv", dir);
	s = kt_slurp(path, NULL);
	KT_CHECK(s && strstr(s, ",\"'=B\",") && !strstr(s, ",=B"), "device_log.csv");
	free(s);
	snprintf(path, sizeof(path), "%s/roofline.csv", dir);
	s = kt_slurp(path, NULL);
	KT_CHECK(s && strstr(s, ",\"'=cmd|' /C calc'!A0\","), "roofline.csv");
	free(s);

	/* diff of the capture with itself: the terminal table and the CSV */
	{
		struct kprof_diff *d = kprof_diff_new();
		const struct kprof_diff_row *rows;
		size_t n, len;
		char *buf = NULL;

		KT_CHECK(kprof_diff_add_capture(d, 0, dir, &err) == 0, "diff A: %s", err.msg);
		KT_CHECK(kprof_diff_add_capture(d, 1, dir, &err) == 0, "diff B: %s", err.msg);
		KT_CHECK(kprof_diff_compute(d, NULL, &rows, &n) == 0 && n > 0, "compute");
		f = open_memstream(&buf, &len);
		kprof_diff_print(f, rows, n);
		fclose(f);
		KT_CHECK(buf && clean_text(buf), "diff table has no control characters:\n%s", buf);
		free(buf);
		buf = NULL;
		f = open_memstream(&buf, &len);
		KT_CHECK(kprof_diff_write_csv(f, rows, n) == 0, "diff csv");
		fclose(f);
		/* read back from ops.csv with its ': no longer a formula, as it is */
		KT_CHECK(buf && strstr(buf, "\n'=cmd|' /C calc'!A0,") &&
			 strstr(buf, ",'-flops,"), "diff csv:\n%s", buf);
		free(buf);
		kprof_diff_free(d);
	}
	kt_rmrf(dir);
}

/* The cell helper alone: the rule of docs/formats.md. */
static void test_cells(void)
{
	static const char *const in[][2] = {
		{ "plain", "plain" },
		{ "=1+2", "\"'=1+2\"" },
		{ "+x", "\"'+x\"" },
		{ "-x", "\"'-x\"" },
		{ "@x", "\"'@x\"" },
		{ "\tx", "\"'\tx\"" },
		{ "\rx", "\"'\rx\"" },
		{ "=a,\"b\"", "\"'=a,\"\"b\"\"\"" },
		{ "a=1", "a=1" },
		{ "a,b", "\"a,b\"" },
		{ " lead", "\" lead\"" },
		{ "trail ", "\"trail \"" },
		{ "", "" },
	};
	char *buf = NULL;
	size_t len;

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		FILE *f = open_memstream(&buf, &len);

		kprof_csv_field(f, in[i][0]);
		fclose(f);
		KT_STR(buf, in[i][1]);
		free(buf);
		buf = NULL;
	}
}

/*
 * device_log.csv rows: each text field as kprof_csv_field writes it,
 * whether it fits the row's buffer as it is or needs quotes or is long,
 * given as text or checked once (kprof_devlog_text); all rows to one
 * stream, in order, across the writer's blocks of rows (a quoted field
 * writes the block so far).
 */
static void test_devlog_cells(void)
{
	char long1[200], long2[200];
	const char *const txt[] = {
		"BRISC", "=1+2", "a,b", "say \"hi\"", " lead", "", "TRISC-KERNEL", long1, long2,
	};
	size_t n = ARRAY_SIZE(txt), gl, wl, at = 0, parts = 0;
	char *got = NULL, *want = NULL;
	FILE *w = open_memstream(&want, &wl);
	struct kprof_out o;

	/* past the row buffer's field size: plain, and with a ',' at the end */
	memset(long1, 'z', sizeof(long1) - 1);
	long1[sizeof(long1) - 1] = '\0';
	memcpy(long2, long1, sizeof(long2));
	long2[sizeof(long2) - 2] = ',';
	memset(&o, 0, sizeof(o));
	KT_CHECK(!kprof_out_devlog_stream(&o, open_memstream(&got, &gl)), "stream");
	/* every pair, then plain rows only: several blocks' worth */
	for (size_t i = 0; i < n * n + 6000; i++) {
		const char *a = i < n * n ? txt[i % n] : "BRISC";
		const char *b = i < n * n ? txt[i / n] : "BRISC-FW";
		const char *c = i < n * n ? txt[(i + 3) % n] : "ZONE_START";

		struct kprof_devlog_text ta, tb, tc;
		struct kprof_devlog_part h, t;

		/* a row of three: fields checked once (kprof_devlog_text), or
		 * its parts made once where they can be (kprof_devlog_part)
		 */
		kprof_devlog_text_init(&ta, a);
		kprof_devlog_text_init(&tb, b);
		kprof_devlog_text_init(&tc, c);
		kprof_devlog_head(&h, 1, 22, 333, &ta);
		kprof_devlog_tail(&t, &tb, &tc);
		parts += h.n >= 0 && t.n >= 0;
		if (i % 3 == 2 && h.n >= 0 && t.n >= 0)
			kprof_out_devlog_row_p(&o, &h, 4444, 18446744073709551615ULL - i, 0, 7,
					       &t);
		else if (i % 3)
			kprof_out_devlog_row_t(&o, 1, 22, 333, &ta, 4444,
					       18446744073709551615ULL - i, 0, 7, &tb, &tc);
		else
			kprof_out_devlog_row(&o, 1, 22, 333, a, 4444,
					     18446744073709551615ULL - i, 0, 7, b, c);
		fprintf(w, "1,22,333,");
		kprof_csv_field(w, a);
		fprintf(w, ",4444,%llu,0,7,,,", 18446744073709551615ULL - i);
		kprof_csv_field(w, b);
		fputc(',', w);
		kprof_csv_field(w, c);
		fputs(",0,,\n", w);
	}
	kprof_out_devlog_flush(&o);
	fclose(o.devlog);
	kprof_out_discard(&o);
	fclose(w);
	while (got && want && got[at] && got[at] == want[at])
		at++;
	KT_CHECK(got && want && gl == wl && !strcmp(got, want),
		 "rows differ at byte %zu of %zu (want %zu): '%.60s', want '%.60s'", at, gl, wl,
		 got ? got + at : "", want ? want + at : "");
	/* parts only where all three texts are plain and short: 3 of the
	 * pairs ("BRISC", "", "TRISC-KERNEL"), and the plain rows
	 */
	KT_EQ_U64(parts, 3 + 6000);
	free(got);
	free(want);
}

/*
 * device_log.csv's numbers as printf writes them: every power of ten and
 * its neighbours, values whose last 8 digits are zeros, the largest one,
 * and random ones of every length, in each number column.
 */
static void test_devlog_numbers(void)
{
	struct kprof_out o;
	uint64_t vals[4096], x = 88172645463325252ULL, p10 = 1;
	char *got = NULL, *want = NULL;
	size_t n = 0, gl, wl;
	FILE *w = open_memstream(&want, &wl);

	for (int k = 0; k < 20; k++, p10 *= 10) {
		vals[n++] = p10 - 1;
		vals[n++] = p10;
		vals[n++] = p10 + 1;
		vals[n++] = p10 * 123;
	}
	vals[n++] = UINT64_MAX;
	vals[n++] = 12300000000ULL;
	vals[n++] = 100000000ULL * 99999 + 7;
	while (n < ARRAY_SIZE(vals)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		vals[n++] = x >> (x % 64);
	}
	memset(&o, 0, sizeof(o));
	KT_CHECK(!kprof_out_devlog_stream(&o, open_memstream(&got, &gl)), "stream");
	for (size_t i = 0; i < n; i++) {
		uint64_t v = vals[i], u = vals[(i + 1) % n];
		unsigned int slot = (unsigned int)(v >> (i % 33));

		kprof_out_devlog_row(&o, slot, (unsigned int)u, (unsigned int)(u >> 32), "BRISC",
				     v, u, v / 3, u / 7, "BRISC-FW", "ZONE_START");
		fprintf(w, "%u,%u,%u,BRISC,%llu,%llu,%llu,%llu,,,BRISC-FW,ZONE_START,0,,\n",
			slot, (unsigned int)u, (unsigned int)(u >> 32), (unsigned long long)v,
			(unsigned long long)u, (unsigned long long)(v / 3),
			(unsigned long long)(u / 7));
	}
	kprof_out_devlog_flush(&o);
	fclose(o.devlog);
	kprof_out_discard(&o);
	fclose(w);
	KT_CHECK(got && want && gl == wl && !strcmp(got, want),
		 "device_log.csv numbers differ from printf's (%zu bytes, want %zu)", gl, wl);
	free(got);
	free(want);
}

/* Numbers that are negative stay numbers in ops.csv. */
static const double ns_values[] = {
	0.0, 0.4, 0.5, 1.5, 2.5, 2.4999999, 123456789.5, 9007199254740993.0,
	1e17 + 0.5, 999999999999999999.0, 1e18, 1.5e19, 1e300, INFINITY, 4.2e-300,
};

/*
 * host_events.csv and counters.csv rows against the printf formats they
 * replace: ",%u,%u," / ",0x%08x,%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%"
 * PRId64 ",%" PRIu64 and "%" PRIu64 "," / ",%u,%" PRIu64 x 3, at the
 * edges (0, 2^32 - 1, INT64_MIN, UINT64_MAX, negative returns and
 * durations).
 */
static void test_host_counter_numbers(void)
{
	static const uint64_t u[] = {
		0, 1, 9, 10, 99, 100, 4294967295ULL, 99999999, 100000000,
		1000000000000000000ULL, 9223372036854775807ULL, 9223372036854775808ULL,
		18446744073709551615ULL,
	};
	char *dir = kt_tmpdir(), path[256], *hs, *cs;
	struct kprof_err err = { 0 };
	struct kprof_out o;
	struct kprof_op_row row;
	struct kprof_outdir *od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	size_t n = ARRAY_SIZE(u);

	memset(&o, 0, sizeof(o));
	KT_CHECK(od && kprof_out_open(&o, od, KPROF_OUT_HOST | KPROF_OUT_COUNTERS, 0, &err) == 0,
		 "open: %s", err.msg);
	for (size_t i = 0; i < n; i++) {
		struct kprof_host_event ev = { 0 };

		ev.role = i % 2 ? KPROF_ROLE_LAUNCH : KPROF_ROLE_SYNC;
		ev.pid = (uint32_t)u[i];
		ev.tid = (uint32_t)u[n - 1 - i];
		ev.cmd = (uint32_t)(u[i] * 2654435761ULL);
		ev.enter_ns = u[i];
		ev.exit_ns = u[n - 1 - i];
		ev.ret = (int64_t)u[(i + 3) % n];
		ev.seq = u[(i + 5) % n];
		memcpy(ev.comm, "c", 2);
		KT_CHECK(kprof_out_host_event(&o, &ev) == 0, "host event");
	}
	memset(&row, 0, sizeof(row));
	snprintf(row.op_code, sizeof(row.op_code), "k");
	for (size_t i = 0; i < n; i++) {
		row.seq = u[i];
		row.counter_mask = 1;
		row.counter_cores[0] = (uint32_t)u[(i + 1) % n];
		row.counter_min[0] = u[(i + 2) % n];
		row.counter_max[0] = u[(i + 3) % n];
		row.counter_sum[0] = u[(i + 4) % n];
		KT_CHECK(kprof_out_op(&o, &row) == 0, "counters row");
	}
	KT_CHECK(kprof_out_close(&o, &err) == 0, "close: %s", err.msg);
	kprof_outdir_close(od);
	kprof_report_out_free(&o);
	snprintf(path, sizeof(path), "%s/host_events.csv", dir);
	hs = kt_slurp(path, NULL);
	snprintf(path, sizeof(path), "%s/counters.csv", dir);
	cs = kt_slurp(path, NULL);
	for (size_t i = 0; hs && cs && i < n; i++) {
		uint64_t en = u[i], ex = u[n - 1 - i];
		char want[256];

		snprintf(want, sizeof(want), "\n%s,%u,%u,c,0x%08x,%" PRIu64 ",%" PRIu64 ",%" PRId64
			 ",%" PRId64 ",%" PRIu64 "\n", i % 2 ? "launch" : "sync", (uint32_t)u[i],
			 (uint32_t)u[n - 1 - i], (uint32_t)(u[i] * 2654435761ULL), en, ex,
			 (int64_t)(ex - en), (int64_t)u[(i + 3) % n], u[(i + 5) % n]);
		KT_CHECK(strstr(hs, want), "host_events.csv: no row '%s'", want + 1);
		snprintf(want, sizeof(want), "\n%" PRIu64 ",k,counter0,,%u,%" PRIu64 ",%" PRIu64
			 ",%" PRIu64 "\n", u[i], (uint32_t)u[(i + 1) % n], u[(i + 2) % n],
			 u[(i + 3) % n], u[(i + 4) % n]);
		KT_CHECK(strstr(cs, want), "counters.csv: no row '%s'", want + 1);
	}
	KT_CHECK(hs && cs, "outputs read");
	free(hs);
	free(cs);
	kt_rmrf(dir);
}

static void test_negative_numbers(void)
{
	char *dir = kt_tmpdir(), path[256], *s;
	struct kprof_out o;
	struct kprof_op_row row;
	struct kprof_err err = { 0 };

	memset(&o, 0, sizeof(o));
	memset(&row, 0, sizeof(row));
	struct kprof_outdir *od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);

	KT_CHECK(od && kprof_out_open(&o, od, KPROF_OUT_OPS, 0, &err) == 0, "open: %s", err.msg);
	snprintf(row.op_code, sizeof(row.op_code), "-neg");
	row.seq = 1;
	row.host_start_ns = KPROF_AGG_NONE;
	row.host_end_ns = KPROF_AGG_NONE;
	row.fw_start_cycle = KPROF_AGG_NONE;
	row.fw_end_cycle = KPROF_AGG_NONE;
	row.sync_end_ns = KPROF_AGG_NONE;
	row.op_to_op_ns = -5;
	row.fw_duration_ns = NAN;
	row.kernel_duration_ns = NAN;
	row.kernel_core_min_ns = NAN;
	row.kernel_core_max_ns = NAN;
	row.kernel_core_avg_ns = NAN;
	row.fw_start_ns = NAN;
	row.fw_end_ns = NAN;
	row.launch_to_start_ns = NAN;
	row.sync_wait_ns = NAN;
	for (int r = 0; r < KPROF_MAX_RISCS; r++)
		row.risc_kernel_ns[r] = NAN;
	KT_CHECK(kprof_out_op(&o, &row) == 0, "op");
	/* ns cells as "%.0f" writes them: ties to even, "-0", huge, infinite */
	for (size_t i = 0; i < ARRAY_SIZE(ns_values); i++) {
		row.seq = 2 + i;
		row.op_to_op_ns = ns_values[i];
		row.fw_duration_ns = -ns_values[i];
		KT_CHECK(kprof_out_op(&o, &row) == 0, "op");
	}
	KT_CHECK(kprof_out_close(&o, &err) == 0, "close: %s", err.msg);
	kprof_outdir_close(od);
	kprof_report_out_free(&o);
	snprintf(path, sizeof(path), "%s/ops.csv", dir);
	s = kt_slurp(path, NULL);
	KT_CHECK(s && strstr(s, "\n\"'-neg\",1,0,0,,,,,,-5,,"), "ops.csv row:\n%s", s ? s : "");
	for (size_t i = 0; s && i < ARRAY_SIZE(ns_values); i++) {
		char want[160];

		snprintf(want, sizeof(want), "\n\"'-neg\",%zu,0,0,,,,,,%.0f,%.0f,,", 2 + i,
			 ns_values[i], -ns_values[i]);
		KT_CHECK(strstr(s, want), "ops.csv: no row '%s'", want + 1);
	}
	free(s);
	kt_rmrf(dir);
}

/* The text rule piece by piece, and cutting without splitting a character. */
static void test_text(void)
{
	char out[64];
	char *buf = NULL;
	size_t len;
	FILE *f;

	KT_STR(kprof_text_safe(out, sizeof(out), "a" ESC "[1mb\x7f\x01\n\t"), "a?[1mb????");
	KT_STR(kprof_text_safe(out, sizeof(out), "\xc2\x85|\xc2\xa0|\xc3\xa9"),
	       "?|\xc2\xa0|\xc3\xa9");
	KT_STR(kprof_text_safe(out, sizeof(out), RLO "|\xe2\x81\xa6|\xe2\x82\xac"),
	       "?|?|\xe2\x82\xac");
	/* overlong, surrogate, truncated, stray continuation, > U+10FFFF */
	KT_STR(kprof_text_safe(out, sizeof(out),
			       "\xc0\xaf|\xed\xa0\x80|\xe2\x82|\x80|\xf4\x90\x80\x80"),
	       "??|???|??|?|????");
	KT_STR(kprof_text_safe(out, sizeof(out), "\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
	/* cut at 5 bytes: the 2-byte character at 4..5 does not fit */
	KT_EQ_U64(kprof_text_safen(out, 6, "abcd\xc3\xa9z", SIZE_MAX), 7);
	KT_STR(out, "abcd");
	KT_EQ_U64(kprof_text_safen(out, sizeof(out), "ab" ESC "cd", 3), 3);
	KT_STR(out, "ab?");
	f = open_memstream(&buf, &len);
	kprof_md_put(f, "a|b\\c`d*e_f[g]h<i>j&k~l" ESC "#!()");
	fclose(f);
	KT_STR(buf, "a\\|b\\\\c\\`d\\*e\\_f\\[g\\]h\\<i\\>j\\&k\\~l?#!()");
	free(buf);
}

/*
 * More op codes than the totals keep (summary.txt's op kinds): the first
 * KPROF_OUT_MAX_CODES in order of first appearance, each counted whatever
 * its place, the others' ops counted together.
 */
static void test_many_codes(void)
{
	char *dir = kt_tmpdir();
	struct kprof_out o;
	struct kprof_op_row row;
	struct kprof_err err = { 0 };
	const unsigned int ncodes = KPROF_OUT_MAX_CODES + 500, rounds = 3;
	unsigned int bad = 0;
	struct kprof_outdir *od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);

	memset(&o, 0, sizeof(o));
	memset(&row, 0, sizeof(row));
	KT_CHECK(od && kprof_out_open(&o, od, KPROF_OUT_OPS, 0, &err) == 0, "open: %s", err.msg);
	row.fw_duration_ns = 1000;
	row.kernel_duration_ns = NAN;
	for (unsigned int r = 0; r < rounds; r++)
		for (unsigned int i = 0; i < ncodes; i++) {
			/* codes that share long prefixes, as kernel names do */
			snprintf(row.op_code, sizeof(row.op_code),
				 "void at::native::kernel<%u, float>(%u)", i % 37, i);
			row.seq++;
			row.fw_duration_ns = 1000 + i;
			KT_CHECK(kprof_out_op(&o, &row) == 0, "op");
		}
	KT_CHECK(kprof_out_close(&o, &err) == 0, "close: %s", err.msg);
	kprof_outdir_close(od);
	KT_EQ_U64(o.ncodes, KPROF_OUT_MAX_CODES);
	KT_EQ_U64(o.other_codes, (uint64_t)(ncodes - KPROF_OUT_MAX_CODES) * rounds);
	for (unsigned int i = 0; i < o.ncodes; i++) {
		char want[128];

		snprintf(want, sizeof(want), "void at::native::kernel<%u, float>(%u)", i % 37, i);
		bad += strcmp(o.codes[i].op_code, want) || o.codes[i].count != rounds ||
		       o.codes[i].fw_min_ns != 1000 + i || o.codes[i].fw_max_ns != 1000 + i;
	}
	KT_EQ_U64(bad, 0);
	kprof_report_out_free(&o);
	kt_rmrf(dir);
}

int main(void)
{
	test_text();
	test_many_codes();
	test_cells();
	test_devlog_cells();
	test_devlog_numbers();
	test_negative_numbers();
	test_host_counter_numbers();
	test_report_outputs();
	return kt_done("test_foreign_names");
}
