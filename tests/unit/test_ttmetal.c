// SPDX-License-Identifier: GPL-2.0
/*
 * tt-metal device log parser and report, on the three real files in
 * /work/shared/data/ttmetal ($KPROF_TTMETAL_DATA) and on synthetic
 * 12/13/15-column variants and garbage. Expected figures were computed
 * independently with awk over the real files (see docs/formats.md).
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_outdir.h"
#include "kprof_report.h"
#include "kprof_ttmetal.h"

#include <unistd.h>

struct collect {
	uint64_t rows, sum_time, last_id;
	char first_risc[16], first_zone[32], first_type[16];
};

/* the 12-column layout's header row (grayskull era), without its line end */
#define TT12_COLS "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], stat value, Run ID, zone name, zone phase, source line, source file"
/* a 12-column log's first two lines */
#define TT12_HDR "ARCH: x, CHIP_FREQ[MHz]: 1000\n" TT12_COLS "\n"

/* the 13-column log of main's test of that layout (too wide to sit there) */
static const char t13[] =
	"ARCH: blackhole, CHIP_FREQ[MHz]: 1350, Max Compute Cores: 120\n"
	"PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], stat value, run ID, run host ID,  zone name, zone phase, source line, source file\n"
	"0, 2, 3, \"NCRISC\", 1, 500, 0, 1, 480, \"NCRISC-FW\", begin, 396, \"a,b.cc\"\n"
	"0, 2, 3, NCRISC, 1, 900, 0, 1, 480, NCRISC-FW, end, 396, \"say \"\"hi\"\"\"\n";

/* kprof_report_ttmetal into the directory out (created if missing) */
static int tt_report(const char *log, const char *out, struct kprof_report_result *res,
		     struct kprof_err *err)
{
	struct kprof_outdir *od = kprof_outdir_open(out, 0, (uid_t)-1, (gid_t)-1, err);
	int ret = od ? kprof_report_ttmetal(log, od, NULL, res, err) : -1;

	kprof_outdir_close(od);
	return ret;
}

static int on_row(void *ctx, const struct kprof_tt_info *info, const struct kprof_tt_row *r)
{
	struct collect *c = ctx;

	(void)info;
	if (!c->rows) {
		snprintf(c->first_risc, sizeof(c->first_risc), "%s", r->risc);
		snprintf(c->first_zone, sizeof(c->first_zone), "%s", r->zone_name);
		snprintf(c->first_type, sizeof(c->first_type), "%s", r->type);
	}
	c->rows++;
	c->sum_time += r->time % 1000;
	c->last_id = r->run_host_id;
	return 0;
}

static int parse_str(const char *text, struct collect *c, struct kprof_tt_info *info,
		     struct kprof_err *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	memset(c, 0, sizeof(*c));
	r = kprof_tt_parse(f, "t.csv", on_row, c, info, err);
	fclose(f);
	return r;
}

/* value of column `col` (header name) in the row whose first field is key */
static char *csv_cell(const char *csv, const char *key_col, const char *key,
		      const char *col, char *out, size_t len)
{
	char *dup = strdup(csv), *save = NULL, *line, *hdr;
	int kc = -1, cc = -1;

	out[0] = '\0';
	hdr = strtok_r(dup, "\n", &save);
	{
		char *s2 = NULL, *h = strdup(hdr), *tok;
		int i = 0;

		for (tok = strtok_r(h, ",", &s2); tok; tok = strtok_r(NULL, ",", &s2), i++) {
			if (!strcmp(tok, key_col))
				kc = i;
			if (!strcmp(tok, col))
				cc = i;
		}
		free(h);
	}
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *fields[64];
		int n = 0;
		char *p = line;

		fields[n++] = p;
		for (; *p && n < 64; p++)
			if (*p == ',') {
				*p = '\0';
				fields[n++] = p + 1;
			}
		if (kc >= 0 && cc >= 0 && kc < n && cc < n && !strcmp(fields[kc], key)) {
			snprintf(out, len, "%s", fields[cc]);
			break;
		}
	}
	free(dup);
	return out;
}

static void check_cell(const char *csv, const char *id, const char *col, const char *want)
{
	char got[64];

	csv_cell(csv, "GLOBAL CALL COUNT", id, col, got, sizeof(got));
	KT_CHECK(!strcmp(got, want), "op %s %s = '%s', expected '%s'", id, col, got, want);
}

/*
 * Numbers spelt every way a log may spell them: values of every length up
 * to UINT64_MAX, with and without leading zeros; each row's timer_id,
 * time, data and run host ID must be strtoull's value, and given as
 * digits to copy (dig, ndig) exactly when their text is how the value
 * prints. Then bytes that are not digits, at every place of a long one.
 */
#define NUM_ROWS 3000

struct num_want {
	uint64_t v[NUM_ROWS][4];
	char text[NUM_ROWS][4][32];
	unsigned long rows, bad;
};

static int on_num_row(void *ctx, const struct kprof_tt_info *info, const struct kprof_tt_row *r)
{
	struct num_want *w = ctx;
	const uint64_t got[4] = { r->timer_id, r->time, r->data, r->run_host_id };
	unsigned long i = w->rows++;

	(void)info;
	if (i >= NUM_ROWS)
		return -1;
	for (int k = 0; k < 4; k++) {
		char canon[32];
		int is_canon;

		snprintf(canon, sizeof(canon), "%" PRIu64, w->v[i][k]);
		is_canon = !strcmp(canon, w->text[i][k]);
		if (got[k] != w->v[i][k] || !!r->ndig[k] != is_canon ||
		    (is_canon && (r->ndig[k] != strlen(canon) ||
				  memcmp(r->dig[k], canon, r->ndig[k])))) {
			w->bad++;
			KT_CHECK(0, "row %lu number %d '%s': %" PRIu64 " ndig %u", i, k,
				 w->text[i][k], got[k], r->ndig[k]);
		}
	}
	return 0;
}

static void test_numbers(void)
{
	static struct num_want w;
	static const uint64_t edge[] = { 0, 9, 10, 99999999, 100000000, 9999999999999999999ULL,
					 10000000000000000000ULL, UINT64_MAX };
	uint64_t seed = 42;
	size_t cap = (size_t)NUM_ROWS * 200, len;
	char *text = malloc(cap);
	struct kprof_tt_info info;
	struct kprof_err err;
	FILE *f;
	int ret;

	if (!text)
		exit(2);
	len = (size_t)snprintf(text, cap, "ARCH: x, CHIP_FREQ[MHz]: 1000\n"
			       "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID, trace id, trace id counter, zone name, type, source line, source file, meta data\n");
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < NUM_ROWS; i++) {
		for (int k = 0; k < 4; k++) {
			uint64_t x = kt_xorshift(&seed), v;
			int zeros = x % 4 ? 0 : (int)(x >> 8) % 4;

			switch (x >> 16 & 7) {
			case 0:
				v = edge[(x >> 20) % ARRAY_SIZE(edge)];
				break;
			case 1:
				v = (x >> 24) % 100;
				break;
			case 2:
				v = kt_xorshift(&seed);
				break;
			default:
				/* any number of digits */
				v = kt_xorshift(&seed) >> (x >> 24) % 64;
			}
			w.v[i][k] = v;
			snprintf(w.text[i][k], sizeof(w.text[i][k]), "%.*s%" PRIu64, zeros,
				 "000", v);
		}
		len += (size_t)snprintf(text + len, cap - len,
					"0,1,1,BRISC,%s,%s,%s,%s,,,BRISC-FW,ZONE_START,1,a.cc,\n",
					w.text[i][0], w.text[i][1], w.text[i][2], w.text[i][3]);
	}
	f = fmemopen(text, len, "r");
	ret = kprof_tt_parse(f, "n.csv", on_num_row, &w, &info, &err);
	fclose(f);
	KT_CHECK(ret == 0, "numbers: %s", ret ? err.msg : "");
	KT_EQ_U64(w.rows, NUM_ROWS);
	KT_EQ_U64(w.bad, 0);
	/* a byte that is no digit, at each place of a time stamp (inside the
	 * first 8 and after them)
	 */
	for (int at = 0; at < 16; at++) {
		static const char not_digit[] = ":/ a\xff";

		for (size_t b = 0; b < sizeof(not_digit) - 1; b++) {
			char t[32] = "1234567890123456";

			if (not_digit[b] == ' ' && (at == 0 || at == 15))
				continue;	/* a blank around a field: dropped */
			t[at] = not_digit[b];
			len = (size_t)snprintf(text, cap, "ARCH: x, CHIP_FREQ[MHz]: 1000\n"
					       "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID, zone name, type\n"
					       "0,1,1,BRISC,1,%s,0,1,BRISC-FW,ZONE_START\n", t);
			memset(&w, 0, sizeof(w));
			f = fmemopen(text, len, "r");
			ret = kprof_tt_parse(f, "n.csv", on_num_row, &w, &info, &err);
			fclose(f);
			KT_CHECK(ret < 0 && strstr(err.msg, "n.csv:3: time"),
				 "time '%s': %d %s", t, ret, ret ? err.msg : "");
		}
	}
	free(text);
}

int main(void)
{
	const char *dd = kt_ttmetal_datadir();
	char path[1024], *dir = kt_tmpdir(), out[400], *csv;
	struct kprof_tt_info info;
	struct kprof_err err;
	struct kprof_report_result res;
	struct collect c;

	test_numbers();
	KT_CHECK(dd, "set KPROF_TTMETAL_DATA");
	if (!dd)
		return kt_done("test_ttmetal");

	/* 1. wormhole, 15 columns: figures from awk (first FW start to last
	 * FW end over all cores and RISCs per run host ID)
	 */
	snprintf(path, sizeof(path), "%s/wormhole_b0_profile_log_device.csv", dd);
	snprintf(out, sizeof(out), "%s/wh", dir);
	KT_CHECK(tt_report(path, out, &res, &err) == 0, "wormhole: %s", err.msg);
	KT_EQ_U64(res.ops, 4);
	KT_EQ_U64(res.markers, 2704);
	snprintf(path, sizeof(path), "%s/ops.csv", out);
	csv = kt_slurp(path, NULL);
	KT_CHECK(csv, "ops.csv");
	if (csv) {
		check_cell(csv, "1027", "DEVICE FW DURATION [ns]", "5356");
		check_cell(csv, "2051", "DEVICE FW DURATION [ns]", "610216");
		check_cell(csv, "3075", "DEVICE FW DURATION [ns]", "624944");
		check_cell(csv, "4099", "DEVICE FW DURATION [ns]", "169822");
		check_cell(csv, "1027", "DEVICE KERNEL DURATION [ns]", "4505");
		check_cell(csv, "2051", "DEVICE KERNEL DURATION [ns]", "608762");
		check_cell(csv, "3075", "DEVICE KERNEL DURATION [ns]", "624094");
		check_cell(csv, "4099", "DEVICE KERNEL DURATION [ns]", "169181");
		check_cell(csv, "2051", "DEVICE FW START CYCLE", "11018334781158");
		check_cell(csv, "2051", "DEVICE FW END CYCLE", "11018335391374");
		check_cell(csv, "2051", "OP TO OP LATENCY [ns]", "811889096");
		check_cell(csv, "1027", "CORE COUNT", "2");
		check_cell(csv, "2051", "CORE COUNT", "56");
		check_cell(csv, "2051", "DEVICE KERNEL DURATION PER CORE MIN [ns]", "504847");
		check_cell(csv, "2051", "DEVICE KERNEL DURATION PER CORE MAX [ns]", "608578");
		check_cell(csv, "2051", "DEVICE KERNEL DURATION PER CORE AVG [ns]", "565389");
		check_cell(csv, "4099", "DEVICE KERNEL DURATION PER CORE AVG [ns]", "164195");
		check_cell(csv, "2051", "DEVICE BRISC KERNEL DURATION [ns]", "608690");
		check_cell(csv, "2051", "DEVICE NCRISC KERNEL DURATION [ns]", "508134");
		check_cell(csv, "2051", "DEVICE TRISC0 KERNEL DURATION [ns]", "512928");
		check_cell(csv, "2051", "DEVICE TRISC1 KERNEL DURATION [ns]", "513714");
		check_cell(csv, "2051", "DEVICE TRISC2 KERNEL DURATION [ns]", "513845");
		check_cell(csv, "3075", "DEVICE TRISC0 KERNEL DURATION [ns]", "");
		check_cell(csv, "1027", "MARKERS", "16");
		free(csv);
	}
	/* trace.json: one slice per op per core: 2 + 56 + 56 + 56 */
	{
		char tp[1200], *tj, *q;
		int n = 0;

		snprintf(tp, sizeof(tp), "%s/trace.json", out);
		tj = kt_slurp(tp, NULL);
		for (q = tj; q && (q = strstr(q, "\"ph\":\"X\"")); q++)
			n++;
		KT_EQ_U64(n, 170);
		free(tj);
	}
	/* our device_log.csv re-parses and gives the same ops.csv */
	{
		char p2[1200], o2[600], *a, *b;

		snprintf(p2, sizeof(p2), "%s/device_log.csv", out);
		snprintf(o2, sizeof(o2), "%s/wh2", dir);
		KT_CHECK(tt_report(p2, o2, &res, &err) == 0, "re-read: %s", err.msg);
		snprintf(p2, sizeof(p2), "%s/ops.csv", out);
		a = kt_slurp(p2, NULL);
		snprintf(p2, sizeof(p2), "%s/ops.csv", o2);
		b = kt_slurp(p2, NULL);
		KT_CHECK(a && b && !strcmp(a, b), "device_log.csv round trip changes ops.csv");
		free(a);
		free(b);
	}

	/* 2. ttnn-visualizer fixture, 13 columns with TS_DATA rows. Its
	 * ops_perf_results.csv (same run) gives DEVICE FW DURATION 8608 for
	 * 2048 and 8533 for 4096 and BRISC kernel 7467 / 7380; those ops are
	 * complete in the trimmed log (others are not: one core only).
	 */
	snprintf(path, sizeof(path), "%s/ttnn_visualizer_smoke_profile_log_device.csv", dd);
	snprintf(out, sizeof(out), "%s/smoke", dir);
	KT_CHECK(tt_report(path, out, &res, &err) == 0, "smoke: %s", err.msg);
	KT_EQ_U64(res.ops, 5);
	KT_EQ_U64(res.markers, 18);
	snprintf(path, sizeof(path), "%s/ops.csv", out);
	csv = kt_slurp(path, NULL);
	if (csv) {
		check_cell(csv, "2048", "DEVICE FW DURATION [ns]", "8608");
		check_cell(csv, "4096", "DEVICE FW DURATION [ns]", "8533");
		check_cell(csv, "2048", "DEVICE BRISC KERNEL DURATION [ns]", "7467");
		check_cell(csv, "4096", "DEVICE BRISC KERNEL DURATION [ns]", "7380");
		/* last run: starts only, no ends -> no durations, not a crash */
		check_cell(csv, "5120", "DEVICE FW DURATION [ns]", "");
		free(csv);
	}
	KT_CHECK(kprof_tt_parse_file(path, on_row, &c, &info, &err) < 0 &&
		 strstr(err.msg, ":1:"), "ops.csv is not a device log: %s", err.msg);
	snprintf(path, sizeof(path), "%s/ttnn_visualizer_smoke_profile_log_device.csv", dd);
	memset(&c, 0, sizeof(c));
	KT_CHECK(kprof_tt_parse_file(path, on_row, &c, &info, &err) == 0, "smoke parse");
	KT_EQ_U64(info.ncols, 13);
	KT_EQ_U64(c.rows, 200);
	KT_NEAR(info.chip_freq_mhz, 1000, 0);
	KT_STR(info.arch, "wormhole_b0");

	/* 3. the ops_perf CSV (CRLF, 109 columns) is not a device log */
	snprintf(path, sizeof(path), "%s/ttnn_visualizer_smoke_ops_perf_results.csv", dd);
	KT_CHECK(kprof_tt_parse_file(path, on_row, &c, &info, &err) < 0 &&
		 strstr(err.msg, "CHIP_FREQ"), "ops_perf rejected: %s", err.msg);

	/* 4. 12-column layout (grayskull era): begin/end, padded fields, CRLF */
	{
		static const char t12[] =
			"ARCH: grayskull, CHIP_FREQ[MHz]: 1202\r\n"
			TT12_COLS "\r\n"
			"0,1,1,BRISC,53427 ,11233712278980,0,7,BRISC-FW    ,begin,315,brisc.cc\r\n"
			"0,1,1,BRISC,25255 ,11233712280182,0,7,BRISC-KERNEL,begin,315,brisc.cc\r\n"
			"0,1,1,BRISC,25255 ,11233712290000,0,7,BRISC-KERNEL,end  ,315,brisc.cc\r\n"
			"0,1,1,BRISC,118963,11233712334431,0,7,BRISC-FW    ,end  ,315,brisc.cc\r\n";
		char p12[600];
		FILE *f;

		KT_CHECK(parse_str(t12, &c, &info, &err) == 0, "12: %s", err.msg);
		KT_EQ_U64(info.ncols, 12);
		KT_EQ_U64(c.rows, 4);
		KT_EQ_U64(c.last_id, 7);
		KT_STR(c.first_zone, "BRISC-FW");
		KT_STR(c.first_type, "begin");
		KT_NEAR(info.chip_freq_mhz, 1202, 0);
		snprintf(p12, sizeof(p12), "%s/t12.csv", dir);
		f = fopen(p12, "w");
		fputs(t12, f);
		fclose(f);
		snprintf(out, sizeof(out), "%s/o12", dir);
		KT_CHECK(tt_report(p12, out, &res, &err) == 0, "12 report: %s", err.msg);
		snprintf(path, sizeof(path), "%s/ops.csv", out);
		csv = kt_slurp(path, NULL);
		if (csv) {
			/*
			 * (11233712334431 - 11233712278980) = 55451 cycles
			 * / 1.202 GHz = 46132.3 ns
			 */
			check_cell(csv, "7", "DEVICE FW DURATION [ns]", "46132");
			/* 9818 cycles / 1.202 = 8168.05 ns */
			check_cell(csv, "7", "DEVICE KERNEL DURATION [ns]", "8168");
			free(csv);
		}
	}
	/* the report's RISC types: at most KPROF_MAX_RISCS, names kept whole */
	{
		static const char *const logs[][2] = {
			{ TT12_HDR "0,1,1,A_RISC_NAME_OF_20C,1,100,0,7,Z,begin,1,x\n",
			  "/t.csv:3: RISC processor type 'A_RISC_NAME_OF_20C' is longer than 15" },
			{ TT12_HDR "0,1,1,BRISC,1,100,0,7,Z,begin,1,x\n"
			  "0,1,1,X1,1,100,0,7,Z,begin,1,x\n0,1,1,X2,1,100,0,7,Z,begin,1,x\n"
			  "0,1,1,X3,1,100,0,7,Z,begin,1,x\n",
			  "/t.csv:6: more than 8 RISC processor types" },
		};
		char p[600];

		snprintf(p, sizeof(p), "%s/t.csv", dir);
		snprintf(out, sizeof(out), "%s/orisc", dir);
		for (size_t i = 0; i < ARRAY_SIZE(logs); i++) {
			FILE *f = fopen(p, "w");

			if (!f)
				exit(2);
			fputs(logs[i][0], f);
			fclose(f);
			memset(&err, 0, sizeof(err));
			KT_CHECK(tt_report(p, out, &res, &err) < 0 && strstr(err.msg, logs[i][1]) &&
				 !strncmp(err.msg, p, strlen(p)),
				 "risc[%zu]: %s", i, err.msg);
		}
	}
	/* 13-column variant with run ID and run host ID: run host ID wins;
	 * quoted fields with commas; Max Compute Cores
	 */
	{
		KT_CHECK(parse_str(t13, &c, &info, &err) == 0, "13: %s", err.msg);
		KT_EQ_U64(info.ncols, 13);
		KT_EQ_U64(info.max_compute_cores, 120);
		KT_EQ_U64(c.last_id, 480);
		KT_STR(c.first_risc, "NCRISC");
		KT_EQ_U64(c.rows, 2);
	}
	/* 15 columns, extra commas in the free-text last column are tolerated */
	{
		static const char t15[] =
			"ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000\n"
			"PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID, trace id, trace id counter, zone name, type, source line, source file, meta data\n"
			"3,1,1,BRISC,61457,100,0,1027,,,BRISC-FW,ZONE_START,412,b.cc,{'a': 1, 'b': 2}\n"
			"\n"
			"3,1,1,BRISC,61457,200,0,1027,,,BRISC-FW,ZONE_END,412,b.cc,\n";

		KT_CHECK(parse_str(t15, &c, &info, &err) == 0, "15: %s", err.msg);
		KT_EQ_U64(info.ncols, 15);
		KT_EQ_U64(c.rows, 2);
	}
	/* garbage: each must fail with the right line number, never crash */
	{
		static const struct { const char *text, *want; } bad[] = {
			{ "", "empty file" },
			{ "hello\n", ":1:" },
			{ "ARCH: x, CHIP_FREQ[MHz]: fast\n", ":1:" },
			{ "ARCH: x, CHIP_FREQ[MHz]: -5\n", ":1:" },
			{ "ARCH: x, CHIP_FREQ[MHz]: 1000\n", "only one line" },
			{ "ARCH: x, CHIP_FREQ[MHz]: 1000\na,b,c\n", ":2:" },
			{ TT12_HDR "0,1,1,BRISC,1,100,0,7,BRISC-FW,begin,1,x\n"
			  "0,1,1,BRISC,1,1e5,0,7,BRISC-FW,end,1,x\n", ":4:" },
			{ TT12_HDR
			  "0,1,1,BRISC,1,100,0,7\n", ":3:" },
			{ TT12_HDR
			  "0,1,1,BRISC,1,100,0,7,\"BRISC-FW,begin,1,x\n", ":3:" },
			{ TT12_HDR
			  "0,-1,1,BRISC,1,100,0,7,BRISC-FW,begin,1,x\n", ":3:" },
			{ TT12_HDR
			  "0,1,1,BRISC,1,99999999999999999999999,0,7,BRISC-FW,begin,1,x\n", ":3:" },
			{ TT12_HDR
			  "0,1,1,,1,100,0,7,BRISC-FW,begin,1,x\n", ":3:" },
		};
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			int r = parse_str(bad[i].text, &c, &info, &err);

			KT_CHECK(r < 0 && strstr(err.msg, bad[i].want),
				 "bad[%zu]: ret %d msg '%s', want '%s'", i, r, err.msg,
				 bad[i].want);
		}
		/* random bytes after a valid header: error or rows, never a crash */
		uint64_t x = 12345;

		for (int round = 0; round < 2000; round++) {
			char buf[600];
			size_t n = strlen(TT12_HDR);

			memcpy(buf, TT12_HDR, n);
			for (size_t i = n; i < sizeof(buf) - 1; i++) {
				static const char alpha[] = "0123456789,,,,\"\n\r ab-FW";

				x ^= x << 13; x ^= x >> 7; x ^= x << 17;
				buf[i] = alpha[x % (sizeof(alpha) - 1)];
			}
			buf[sizeof(buf) - 1] = '\0';
			(void)parse_str(buf, &c, &info, &err);
		}
	}
	/* quoted and blank-padded leading fields; a bad number, a short row */
	{
		static const char ok[] = TT12_HDR
			"0, 2, 3, \"NCRISC\", 1, 500, 0, 480, \"NCRISC-FW\", begin, 396, \"a,b.cc\"\n"
			"1, 4, 5, BRISC, 1, 5x0, 0, 480, BRISC-FW, end, 396, b.cc\n";
		static const char few[] = TT12_HDR "0, 2, 3, BRISC, 1, 500, 0, 480\n";
		static const char badx[] = TT12_HDR
			"0, x, 3, BRISC, 1, 500, 0, 480, Z, begin, 1, a\n";

		KT_CHECK(parse_str(ok, &c, &info, &err) < 0 && strstr(err.msg, "t.csv:4: time"),
			 "parse finds the bad time: %s", err.msg);
		KT_EQ_U64(c.rows, 1);
		KT_CHECK(parse_str(few, &c, &info, &err) < 0 &&
			 strstr(err.msg, "t.csv:3: 8 fields"), "field check: %s", err.msg);
		KT_CHECK(parse_str(badx, &c, &info, &err) < 0 &&
			 strstr(err.msg, "t.csv:3: core_x 'x'"), "core check: %s", err.msg);
	}
	kt_rmrf(dir);
	return kt_done("test_ttmetal");
}
