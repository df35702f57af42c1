// SPDX-License-Identifier: GPL-2.0
/*
 * trace.json writer (kprof_trace.c) on hand-made op rows: the busy
 * counter's exact samples per core and per core group, of the cores seen
 * or of the device's cores, op slices, the flow arrow, the clock counter,
 * and byte-identical output when re-made. Zone slices from markers through
 * the aggregation engine (kprof_agg.c pairs ZONE_START / ZONE_END): exact
 * events per core and RISC track, nested and back-to-back zones, unpaired
 * markers counted, none with core groups.
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_outdir.h"
#include "kprof_trace.h"

#include <float.h>
#include <json.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprof_timesync.h"

#define NCORE_MAX	4

static struct kprof_outdir *tod;	/* the test directory, as outputs */

struct op {
	uint64_t seq;
	const char *name;
	uint32_t ncores;
	struct kprof_core_time c[NCORE_MAX];
};

/*
 * Four cores. Op 3 overlaps op 1 on core 0 (2500..3000): core 0 counts
 * once. Per core the busy share is 50% from 1 us (cores 0, 1), 75% from
 * 2.5 us (0, 2, 3; core 1 ended at 2 us as core 2 started), 50% from
 * 3.5 us, 25% from 4 us (core 0 in op 3), 0% from 5 us.
 */
static const struct op ops4[] = {
	{ 1, "a", 2, { { 0, 0, 1000, 3000 }, { 1, 0, 1000, 2000 } } },
	{ 2, "b", 2, { { 2, 0, 2000, 4000 }, { 3, 0, 2500, 3500 } } },
	{ 3, "c", 1, { { 0, 0, 2500, 5000 } } },
};

static void feed(struct kprof_trace *t, const struct op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct kprof_op_row row;

		memset(&row, 0, sizeof(row));
		row.seq = ops[i].seq;
		snprintf(row.op_code, sizeof(row.op_code), "%s", ops[i].name);
		row.host_start_ns = ops[i].seq == 1 ? 500 : KPROF_AGG_NONE;
		row.cores = ops[i].c;
		row.ncores = ops[i].ncores;
		kprof_trace_op(t, &row);
	}
}

struct sample {
	double ts, v;
};

/* The "busy" counter samples of a trace.json, in file order. */
static size_t busy_samples(const char *path, struct sample *s, size_t max, int *nclock,
			   int *nflow)
{
	json_object *root = json_object_from_file(path), *evs;
	size_t n = 0;

	*nclock = *nflow = 0;
	KT_CHECK(root && json_object_object_get_ex(root, "traceEvents", &evs),
		 "%s parses", path);
	if (!root)
		return 0;
	json_object_object_get_ex(root, "traceEvents", &evs);
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		json_object *e = json_object_array_get_idx(evs, i), *v, *a;
		const char *ph, *name;

		json_object_object_get_ex(e, "ph", &v);
		ph = json_object_get_string(v);
		if (!strcmp(ph, "s") || !strcmp(ph, "f"))
			(*nflow)++;
		if (strcmp(ph, "C"))
			continue;
		json_object_object_get_ex(e, "name", &v);
		name = json_object_get_string(v);
		if (!strcmp(name, "clock MHz")) {
			(*nclock)++;
			continue;
		}
		KT_STR(name, "busy");
		json_object_object_get_ex(e, "args", &a);
		if (n < max && json_object_object_get_ex(e, "ts", &v)) {
			s[n].ts = json_object_get_double(v);
			json_object_object_get_ex(a, "%", &v);
			s[n].v = v ? json_object_get_double(v) : NAN;
		}
		n++;
	}
	json_object_put(root);
	return n;
}

static void expect(const struct sample *got, size_t ngot, const struct sample *want,
		   size_t nwant, const char *what)
{
	KT_CHECK(ngot == nwant, "%s: %zu busy samples, expected %zu", what, ngot, nwant);
	for (size_t i = 0; i < ngot && i < nwant; i++) {
		KT_CHECK(got[i].ts == want[i].ts && got[i].v == want[i].v,
			 "%s: sample %zu is (%g us, %g %%), expected (%g us, %g %%)", what, i,
			 got[i].ts, got[i].v, want[i].ts, want[i].v);
	}
}

static char *write_trace(const char *dir, const char *name, uint32_t group,
			 uint32_t num_cores, const struct op *ops, size_t n)
{
	static char path[256];
	struct kprof_err err = { 0 };
	struct kprof_trace_cfg cfg = { .device_label = "device 0: test", .grid_x = 2,
				       .group = group, .num_cores = num_cores };
	struct kprof_trace *t;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	t = kprof_trace_open(tod, name, &cfg, &err);
	KT_CHECK(t, "open %s: %s", path, err.msg);
	if (!t)
		return path;
	kprof_trace_clock(t, 0, 1000);
	feed(t, ops, n);
	KT_CHECK(kprof_trace_close(t, &err) == 0, "close %s: %s", path, err.msg);
	return path;
}

/* ---- zone slices: markers -> kprof_agg -> kprof_trace ------------------ */

struct zrun {
	struct kprof_trace *t;
};

static int zemit(void *ctx, const struct kprof_op_row *row)
{
	kprof_trace_op(((struct zrun *)ctx)->t, row);
	return 0;
}

struct mk {
	uint64_t seq, ts;
	uint32_t core;
	uint8_t risc, kind;
	uint32_t zone;
};

#define FS	KPROF_MARK_FW_START
#define FE	KPROF_MARK_FW_END
#define KS	KPROF_MARK_KERNEL_START
#define KE	KPROF_MARK_KERNEL_END
#define ZS	KPROF_MARK_ZONE_START
#define ZE	KPROF_MARK_ZONE_END

/*
 * 1 cycle = 1 ns. Op 1 on cores 0 and 1 (core 1 arrives first), op 2 on
 * core 0. Core 0 RISC 0: zones 0 [1100,1500] and 1 [1500,1900] back to
 * back, zone 1's START arriving before zone 0's END at the same cycle.
 * Core 0 RISC 2: zone 7 [1200,1800] holding zone 8 [1300,1400] (named
 * "inner"), and a ZONE_END of zone 9 with no start. Core 1 RISC 1: zone 3
 * [1050,1250], and a ZONE_START of zone 4 that never ends. Op 2, core 0
 * RISC 0: zone 0 [3100,3200].
 */
static const struct mk zmarks[] = {
	{ 1, 1000, 1, 1, FS, 0 }, { 1, 1050, 1, 1, ZS, 3 }, { 1, 1250, 1, 1, ZE, 3 },
	{ 1, 1260, 1, 1, ZS, 4 }, { 1, 1300, 1, 1, FE, 0 },
	{ 1, 1000, 0, 0, FS, 0 }, { 1, 1050, 0, 0, KS, 0 },
	{ 1, 1100, 0, 0, ZS, 0 }, { 1, 1500, 0, 0, ZS, 1 }, { 1, 1500, 0, 0, ZE, 0 },
	{ 1, 1900, 0, 0, ZE, 1 }, { 1, 1950, 0, 0, KE, 0 }, { 1, 2000, 0, 0, FE, 0 },
	{ 1, 1010, 0, 2, FS, 0 }, { 1, 1200, 0, 2, ZS, 7 }, { 1, 1300, 0, 2, ZS, 8 },
	{ 1, 1400, 0, 2, ZE, 8 }, { 1, 1800, 0, 2, ZE, 7 }, { 1, 1850, 0, 2, ZE, 9 },
	{ 1, 1990, 0, 2, FE, 0 },
	{ 2, 3000, 0, 0, FS, 0 }, { 2, 3100, 0, 0, ZS, 0 }, { 2, 3200, 0, 0, ZE, 0 },
	{ 2, 3300, 0, 0, FE, 0 },
};

/* Every line of path that contains "\"cat\":\"zone\"" or names a zone
 * track, concatenated.
 */
static char *zone_lines(const char *path)
{
	char *a = kt_slurp(path, NULL), *out, *o, *line, *save = NULL;

	if (!a)
		return NULL;
	out = calloc(1, strlen(a) + 1);
	o = out;
	for (line = strtok_r(a, "\n", &save); line && out; line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, "\"cat\":\"zone\"") && !strstr(line, "\"tid\":10000"))
			continue;
		o += sprintf(o, "%s\n", line);
	}
	free(a);
	return out;
}

static char *zone_trace(const char *dir, const char *name, uint32_t group,
			uint64_t *unpaired)
{
	static char path[256];
	static const char risc[3][16] = { "BRISC", "NCRISC", "TRISC_0" };
	struct kprof_trace_cfg cfg = { .device_label = "device 0: test", .grid_x = 2,
				       .group = group, .num_cores = 2,
				       .risc_names = risc, .nriscs = 3 };
	struct kprof_err err = { 0 };
	struct kprof_tsfit fit;
	struct kprof_agg_config ac;
	struct kprof_agg *a;
	struct zrun zr;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	kprof_tsfit_linear(&fit, 1.0, 0);
	zr.t = kprof_trace_open(tod, name, &cfg, &err);
	KT_CHECK(zr.t, "open %s: %s", path, err.msg);
	if (!zr.t)
		return path;
	kprof_trace_zone_name(zr.t, 8, "inner");
	kprof_trace_zone_name(zr.t, 8, "not this one");
	memset(&ac, 0, sizeof(ac));
	ac.fit = &fit;
	ac.num_riscs = 3;
	ac.num_cores = 2;
	ac.slack_ns = KPROF_AGG_NEVER;
	ac.zone_spans = 1;
	ac.emit = zemit;
	ac.ctx = &zr;
	a = kprof_agg_new(&ac, &err);
	KT_CHECK(a, "agg: %s", err.msg);
	for (size_t i = 0; a && i < ARRAY_SIZE(zmarks); i++) {
		const struct mk *k = &zmarks[i];
		struct kprof_agg_marker m = { .op_seq = k->seq, .timestamp = k->ts,
					      .core = k->core, .risc = k->risc,
					      .kind = k->kind, .zone_id = k->zone };

		KT_CHECK(kprof_agg_marker(a, &m, &err) == 0, "marker %zu: %s", i, err.msg);
	}
	KT_CHECK(a && kprof_agg_finish(a, &err) == 0, "finish: %s", err.msg);
	*unpaired = a ? kprof_agg_stats(a)->zone_unpaired : 0;
	kprof_agg_free(a);
	KT_CHECK(kprof_trace_close(zr.t, &err) == 0, "close %s: %s", path, err.msg);
	kprof_tsfit_free(&fit);
	return path;
}

static void check_zone_tracks(const char *dir)
{
	/* op 1's slices (core 0, then its zones by core, RISC, start; outer
	 * first), then op 2's; each zone track named and sorted below its
	 * core the first time
	 */
	static const char want[] =
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1000000,\"name\":\"thread_name\",\"args\":{\"name\":\"core 0 (0,0) BRISC\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1000000,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":1}},\n"
		"{\"ph\":\"X\",\"cat\":\"zone\",\"pid\":1,\"tid\":1000000,\"name\":\"ZONE-0\",\"ts\":1.100,\"dur\":0.400,\"args\":{\"seq\":1}},\n"
		"{\"ph\":\"X\",\"cat\":\"zone\",\"pid\":1,\"tid\":1000000,\"name\":\"ZONE-1\",\"ts\":1.500,\"dur\":0.400,\"args\":{\"seq\":1}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1000002,\"name\":\"thread_name\",\"args\":{\"name\":\"core 0 (0,0) TRISC_0\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1000002,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":3}},\n"
		"{\"ph\":\"X\",\"cat\":\"zone\",\"pid\":1,\"tid\":1000002,\"name\":\"ZONE-7\",\"ts\":1.200,\"dur\":0.600,\"args\":{\"seq\":1}},\n"
		"{\"ph\":\"X\",\"cat\":\"zone\",\"pid\":1,\"tid\":1000002,\"name\":\"inner\",\"ts\":1.300,\"dur\":0.100,\"args\":{\"seq\":1}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1000011,\"name\":\"thread_name\",\"args\":{\"name\":\"core 1 (1,0) NCRISC\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1000011,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":12}},\n"
		"{\"ph\":\"X\",\"cat\":\"zone\",\"pid\":1,\"tid\":1000011,\"name\":\"ZONE-3\",\"ts\":1.050,\"dur\":0.200,\"args\":{\"seq\":1}},\n"
		"{\"ph\":\"X\",\"cat\":\"zone\",\"pid\":1,\"tid\":1000000,\"name\":\"ZONE-0\",\"ts\":3.100,\"dur\":0.100,\"args\":{"
		"\"seq\":2}},\n";
	static const char head[] =
		"{\"displayTimeUnit\":\"ns\",\"otherData\":{"
		"\"zone_slices\":\"per core and RISC\"},\"traceEvents\":[\n";
	uint64_t unpaired = 0;
	char *p, *got, *a, *b;

	p = zone_trace(dir, "zones.json", 1, &unpaired);
	got = zone_lines(p);
	KT_CHECK(got && !strcmp(got, want), "zone slices and tracks:\n%s\nexpected:\n%s",
		 got ? got : "(none)", want);
	free(got);
	KT_EQ_U64(unpaired, 2);		/* zone 9's END, zone 4's START */
	a = kt_slurp(p, NULL);
	KT_CHECK(a && !strncmp(a, head, strlen(head)), "head says zones are per core and RISC");
	KT_CHECK(a &&
		 strstr(a, "\"tid\":0,\"name\":\"thread_sort_index\",\"args\":{"
			"\"sort_index\":0}") &&
		 strstr(a, "\"tid\":1,\"name\":\"thread_sort_index\",\"args\":{"
			"\"sort_index\":10}"),
		 "core tracks sort at core * 10");
	p = zone_trace(dir, "zones2.json", 1, &unpaired);
	b = kt_slurp(p, NULL);
	KT_CHECK(a && b && !strcmp(a, b), "re-made zone trace is byte-identical");
	free(a);
	free(b);
	/* core groups: no zone slices, and the head says so */
	p = zone_trace(dir, "zones-g2.json", 2, &unpaired);
	got = zone_lines(p);
	KT_CHECK(got && !strcmp(got, ""), "no zone slices with groups: %s", got ? got : "?");
	free(got);
	a = kt_slurp(p, NULL);
	KT_CHECK(a && strstr(a, "\"otherData\":{\"zone_slices\":\"omitted: cores grouped by 2\"}"),
		 "grouped head says zones are omitted");
	KT_CHECK(a && strstr(a, "\"cat\":\"op\",\"pid\":1,\"tid\":0,\"name\":\"op 2\""),
		 "grouped trace still has op slices");
	free(a);
}

/*
 * More slice edges than one in-memory sort run (1000 here, busy_run):
 * the busy counter spills to disk beside trace.json and still gives
 * every sample; where the spill cannot be written the file is kept and
 * the error says what to do.
 */
#define SPILL_OPS	3000

static struct kprof_trace *spill_feed(const char *name, struct kprof_err *err)
{
	struct kprof_trace_cfg cfg = { .device_label = "device 0: test", .num_cores = 1,
				       .busy_run = 1000 };

	return kprof_trace_open(tod, name, &cfg, err);
}

static void spill_ops(struct kprof_trace *t)
{
	/* one core, back to back: 100 % from i us, 0 % from i + 0.5 us */
	for (uint64_t i = 1; i <= SPILL_OPS; i++) {
		struct kprof_core_time c = { 0, 0, 1000.0 * (double)i, 1000.0 * (double)i + 500 };
		struct kprof_op_row row;

		memset(&row, 0, sizeof(row));
		row.seq = i;
		snprintf(row.op_code, sizeof(row.op_code), "op");
		row.host_start_ns = KPROF_AGG_NONE;
		row.cores = &c;
		row.ncores = 1;
		kprof_trace_op(t, &row);
	}
}

static void spilled(const char *dir)
{
	struct kprof_err err = { 0 };
	char path[600], *text;
	static const char busy[] = "\"name\":\"busy\"";
	struct kprof_trace *t;
	struct rlimit old, none;
	size_t n = 0, len = 0;
	int probe;

	snprintf(path, sizeof(path), "%s/spill.json", dir);
	t = spill_feed("spill.json", &err);
	KT_CHECK(t, "open %s: %s", path, err.msg);
	if (!t)
		return;
	spill_ops(t);
	KT_CHECK(kprof_trace_close(t, &err) == 0, "close %s: %s", path, err.msg);
	text = kt_slurp(path, &len);
	/* memmem: ASan's strstr measures the whole rest each call */
	for (const char *q = text, *end = text + (text ? len : 0);
	     q && (q = memmem(q, (size_t)(end - q), busy, strlen(busy))); q++)
		n++;
	KT_EQ_U64(n, 2 * SPILL_OPS);
	free(text);

	/* no file can be opened any more (the lowest free fd is the limit):
	 * no run can be written, the file itself still is
	 */
	snprintf(path, sizeof(path), "%s/spill2.json", dir);
	t = spill_feed("spill2.json", &err);
	KT_CHECK(t, "open %s: %s", path, err.msg);
	if (!t)
		return;
	probe = dup(0);
	getrlimit(RLIMIT_NOFILE, &old);
	none = old;
	none.rlim_cur = (rlim_t)probe;
	close(probe);
	KT_CHECK(probe > 0 && setrlimit(RLIMIT_NOFILE, &none) == 0, "fd limit");
	spill_ops(t);
	KT_CHECK(kprof_trace_close(t, &err) < 0 && strstr(err.msg, "busy counter left out") &&
		 strstr(err.msg, "--trace-group"), "spill fails: %s", err.msg);
	setrlimit(RLIMIT_NOFILE, &old);
	text = kt_slurp(path, &len);
	KT_CHECK(text && len > 2 && !strcmp(text + len - 3, "]}\n"), "complete file kept");
	free(text);
}

/*
 * The host's call slices and flow starts, as written (without printf):
 * against the printf formats they replace, for negative returns,
 * large seqs and tids and every hex digit of cmd.
 */
static void host_lines(const char *dir)
{
	static const struct {
		uint32_t tid, cmd;
		int64_t ret;
		uint64_t seq, enter, exit;
		int role;
	} ev[] = {
		{ 1, 0xc0186444, 0, 1, 1000, 3000, KPROF_ROLE_LAUNCH },
		{ 4294967295U, 0x0123abcd, -16, 18446744073709551615ULL, 4000, 5000,
		  KPROF_ROLE_SYNC },
		{ 77, 0, INT64_MIN, 0, 0, 0, KPROF_ROLE_LAUNCH },
		{ 77, 0xffffffff, INT64_MAX, 9, 123456789012, 123456789013, KPROF_ROLE_LAUNCH },
	};
	struct kprof_trace_cfg cfg = { .device_label = "device 0: test", .num_cores = 1 };
	struct kprof_err err = { 0 };
	struct kprof_trace *t = kprof_trace_open(tod, "host.json", &cfg, &err);
	char path[256], want[512], *a;

	KT_CHECK(t, "open: %s", err.msg);
	if (!t)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(ev); i++) {
		struct kprof_host_event e = { 0 };

		e.tid = ev[i].tid;
		e.pid = 5;
		e.cmd = ev[i].cmd;
		e.ret = ev[i].ret;
		e.seq = ev[i].seq;
		e.enter_ns = ev[i].enter;
		e.exit_ns = ev[i].exit;
		e.role = ev[i].role;
		memcpy(e.comm, "w", 2);
		kprof_trace_host(t, &e);
	}
	KT_CHECK(kprof_trace_close(t, &err) == 0, "close: %s", err.msg);
	snprintf(path, sizeof(path), "%s/host.json", dir);
	a = kt_slurp(path, NULL);
	for (size_t i = 0; a && i < ARRAY_SIZE(ev); i++) {
		double dur = (double)(ev[i].exit - ev[i].enter);
		int k = snprintf(want, sizeof(want),
				 "{\"ph\":\"X\",\"cat\":\"ioctl\",\"pid\":2,\"tid\":%u,\"name\":\"%s\",",
				 ev[i].tid, ev[i].role == KPROF_ROLE_LAUNCH ? "launch" : "sync");

		k += snprintf(want + k, sizeof(want) - (size_t)k, "\"ts\":%.3f,\"dur\":%.3f,",
			      (double)ev[i].enter / 1e3, dur / 1e3);
		snprintf(want + k, sizeof(want) - (size_t)k,
			 "\"args\":{\"seq\":%" PRIu64 ",\"ret\":%" PRId64 ",\"cmd\":\"0x%08x\"}}",
			 ev[i].seq, ev[i].ret, ev[i].cmd);
		KT_CHECK(strstr(a, want), "no line %s", want);
		if (ev[i].role != KPROF_ROLE_LAUNCH || ev[i].ret < 0)
			continue;
		snprintf(want, sizeof(want),
			 "{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":%" PRIu64
			 ",\"pid\":2,\"tid\":%u,\"ts\":%.3f}", ev[i].seq, ev[i].tid,
			 (double)ev[i].enter / 1e3);
		KT_CHECK(strstr(a, want), "no line %s", want);
	}
	KT_CHECK(a, "read %s", path);
	free(a);
}

/* ---- text of the slices and flow ends, against the printf formats ------ */

/* put_ts as it was: llround, then "%s%" PRIu64 ".%03u" of the magnitude */
static void old_ts(char *out, size_t len, double ns)
{
	int64_t v = llround(ns);
	uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	snprintf(out, len, "%s%" PRIu64 ".%03u", v < 0 ? "-" : "", a / 1000,
		 (unsigned int)(a % 1000));
}

/* a JSON string as put_str wrote it, with fprintf's "\\%c" and "\\u%04x" */
static void old_str(char *out, size_t len, const char *s)
{
	size_t k = (size_t)snprintf(out, len, "\"");

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			k += (size_t)snprintf(out + k, len - k, "\\%c", c);
		else if (c < 0x20)
			k += (size_t)snprintf(out + k, len - k, "\\u%04x", c);
		else
			k += (size_t)snprintf(out + k, len - k, "%c", c);
	}
	snprintf(out + k, len - k, "\"");
}

/* an X event on the device as the printf formats wrote it */
static void old_slice(char *out, size_t len, const char *cat, uint32_t tid, const char *name,
		      const char *ts, const char *dur, uint64_t seq)
{
	int k = snprintf(out, len, "{\"ph\":\"X\",\"cat\":\"%s\",\"pid\":1,\"tid\":%u,", cat, tid);

	snprintf(out + k, len - (size_t)k,
		 "\"name\":%s,\"ts\":%s,\"dur\":%s,\"args\":{\"seq\":%" PRIu64 "}}",
		 name, ts, dur, seq);
}

/*
 * Op and zone slices and the flow ends, written without printf: against
 * the formats they replace, for halfway and negative times, times past
 * int64 (llround's own result), NaN and infinities, names with every
 * kind of escape, the "op <seq>" and "ZONE-<id>" names at their largest.
 */
static void slice_lines(const char *dir)
{
	static const double at[] = {
		0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 999.4999999999999, 123456789.5,
		4503599627370497.0, 9007199254740993.0, -4611686018427387904.0,
		9223372036854774784.0, -9223372036854775808.0, 9223372036854775808.0,
		1e300, -1e300, INFINITY, -INFINITY, NAN, -0.0, DBL_MIN,
	};
	static const char *const names[] = {
		"q\"b\\s/\x01\x0a\x1f\x7f\xc3\xa9", "", "plain",
	};
	struct kprof_trace_cfg cfg = { .device_label = "device 0: test", .num_cores = 1 };
	struct kprof_err err = { 0 };
	struct kprof_trace *t = kprof_trace_open(tod, "lines.json", &cfg, &err);
	char path[256], want[1024], ts[64], dur[64], name[256], *a;
	struct kprof_zone_time z[2] = {
		{ .core = 0, .zone_id = 7, .risc = 1 },
		{ .core = 0, .zone_id = UINT32_MAX, .risc = 2 },
	};

	KT_CHECK(t, "open: %s", err.msg);
	if (!t)
		return;
	kprof_trace_zone_name(t, 7, names[0]);
	for (size_t i = 0; i < ARRAY_SIZE(at); i++) {
		struct kprof_core_time c = { 0, 0, at[i], at[(i + 1) % ARRAY_SIZE(at)] };
		struct kprof_op_row row;

		memset(&row, 0, sizeof(row));
		row.seq = i ? i : UINT64_MAX;
		snprintf(row.op_code, sizeof(row.op_code), "%s", names[i % ARRAY_SIZE(names)]);
		row.host_start_ns = 1;
		row.cores = &c;
		row.ncores = 1;
		for (int k = 0; k < 2; k++) {
			z[k].start_ns = c.fw_start_ns;
			z[k].end_ns = c.fw_end_ns;
		}
		row.zone_spans = z;
		row.nzone_spans = 2;
		kprof_trace_op(t, &row);
	}
	KT_CHECK(kprof_trace_close(t, &err) == 0, "close: %s", err.msg);
	snprintf(path, sizeof(path), "%s/lines.json", dir);
	a = kt_slurp(path, NULL);
	KT_CHECK(a, "read %s", path);
	for (size_t i = 0; a && i < ARRAY_SIZE(at); i++) {
		double s = at[i], e = at[(i + 1) % ARRAY_SIZE(at)];
		uint64_t seq = i ? i : UINT64_MAX;
		const char *n = names[i % ARRAY_SIZE(names)];

		old_ts(ts, sizeof(ts), round(s));
		old_ts(dur, sizeof(dur), round(e) - round(s));
		if (n[0])
			old_str(name, sizeof(name), n);
		else
			snprintf(name, sizeof(name), "\"op %" PRIu64 "\"", seq);
		old_slice(want, sizeof(want), "op", 0, name, ts, dur, seq);
		KT_CHECK(strstr(a, want), "no line %s", want);
		old_str(name, sizeof(name), names[0]);
		old_slice(want, sizeof(want), "zone", KPROF_TRACE_ZONE_TID + 1, name, ts, dur, seq);
		KT_CHECK(strstr(a, want), "no line %s", want);
		snprintf(name, sizeof(name), "\"ZONE-%u\"", UINT32_MAX);
		old_slice(want, sizeof(want), "zone", KPROF_TRACE_ZONE_TID + 2, name, ts, dur, seq);
		KT_CHECK(strstr(a, want), "no line %s", want);
		/* the flow end: at the first core's start, not rounded first */
		old_ts(ts, sizeof(ts), isnan(s) ? INFINITY : s);
		snprintf(want, sizeof(want),
			 "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":%"
			 PRIu64 ",\"pid\":1,\"tid\":0,\"ts\":%s}", seq, ts);
		KT_CHECK(strstr(a, want), "no line %s", want);
	}
	free(a);
}

int main(void)
{
	char *dir = kt_tmpdir(), *a, *b, *p;
	struct kprof_err err = { 0 };
	struct sample s[16];
	int nclock, nflow;
	size_t n;

	tod = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	KT_CHECK(tod, "outdir: %s", err.msg);
	if (!tod)
		return kt_done("test_trace");

	/* one track per core */
	{
		static const struct sample want[] = {
			{ 1.0, 50 }, { 2.5, 75 }, { 3.5, 50 }, { 4.0, 25 }, { 5.0, 0 },
		};
		/* a busy sample's and an op slice's text, as written */
		static const char *const text[] = {
			"{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"busy\",\"ts\":2.500,\"args\":{\"%\":75}}",
			"{\"ph\":\"X\",\"cat\":\"op\",\"pid\":1,\"tid\":0,\"name\":\"c\",\"ts\":2.500,\"dur\":2.500,\"args\":{\"seq\":3}}",
		};

		p = write_trace(dir, "core.json", 1, 0, ops4, 3);
		n = busy_samples(p, s, 16, &nclock, &nflow);
		expect(s, n, want, ARRAY_SIZE(want), "per core");
		KT_EQ_U64(nclock, 1);
		KT_EQ_U64(nflow, 1);	/* op 1 had a launch: its "f" end */
		a = kt_slurp(p, NULL);
		KT_CHECK(a && strstr(a, text[0]), "busy sample text");
		KT_CHECK(a && strstr(a, text[1]), "op slice text");
		KT_CHECK(a && strstr(a, "\"args\":{\"name\":\"core 3 (1,1)\"}"), "core track name");
		/* the same rows give the same bytes */
		p = write_trace(dir, "core2.json", 1, 0, ops4, 3);
		b = kt_slurp(p, NULL);
		KT_CHECK(a && b && !strcmp(a, b), "re-made trace is byte-identical");
		free(a);
		free(b);
	}
	/*
	 * Groups of 2 cores: a group slice spans its cores' earliest start to
	 * latest end and counts their number. Track 0 (cores 0-1): op 1 [1,3]
	 * us x2, op 3 [2.5,5] x1 (capped at 2 while both run); track 1: op 2
	 * [2,4] x2. Busy: 50% at 1, 100% at 2, 75% at 3, 25% at 4, 0 at 5.
	 */
	{
		static const struct sample want[] = {
			{ 1.0, 50 }, { 2.0, 100 }, { 3.0, 75 }, { 4.0, 25 }, { 5.0, 0 },
		};

		p = write_trace(dir, "group.json", 2, 0, ops4, 3);
		n = busy_samples(p, s, 16, &nclock, &nflow);
		expect(s, n, want, ARRAY_SIZE(want), "group of 2");
		a = kt_slurp(p, NULL);
		KT_CHECK(a && strstr(a, "\"args\":{\"name\":\"cores 2-3\"}"), "group track name");
		free(a);
	}
	/* of the device's 8 cores (the same slices as "per core") */
	{
		static const struct sample want[] = {
			{ 1.0, 25 }, { 2.5, 37.5 }, { 3.5, 25 }, { 4.0, 12.5 }, { 5.0, 0 },
		};

		p = write_trace(dir, "dev8.json", 1, 8, ops4, 3);
		n = busy_samples(p, s, 16, &nclock, &nflow);
		expect(s, n, want, ARRAY_SIZE(want), "of 8 device cores");
		/* a device core count below the cores seen: of the cores seen */
		p = write_trace(dir, "dev2.json", 1, 2, ops4, 3);
		n = busy_samples(p, s, 16, &nclock, &nflow);
		KT_CHECK(n == 5 && s[1].v == 75, "2 device cores, 4 seen: %g %% at 2.5 us",
			 n > 1 ? s[1].v : NAN);
	}
	check_zone_tracks(dir);
	/* without a device core count, of the cores seen: 1 of 3 is 33.3333 % */
	{
		static const struct op ops3[] = {
			{ 1, "x", 3, { { 0, 0, 1000, 2000 }, { 1, 0, 1000, 1500 },
				       { 5, 0, 1000, 1500 } } },
		};
		static const struct sample want[] = {
			{ 1.0, 100 }, { 1.5, 100.0 / 3 }, { 2.0, 0 },
		};

		p = write_trace(dir, "third.json", 1, 0, ops3, 1);
		n = busy_samples(p, s, 16, &nclock, &nflow);
		KT_CHECK(n == 3 && fabs(s[1].v - want[1].v) < 1e-4, "1 of 3 cores: %g", s[1].v);
		s[1].v = want[1].v;	/* printed with 6 digits: compared above */
		expect(s, n, want, 3, "1 of 3");
	}
	/* no op: no busy samples, still valid JSON */
	p = write_trace(dir, "empty.json", 1, 0, ops4, 0);
	n = busy_samples(p, s, 16, &nclock, &nflow);
	KT_EQ_U64(n, 0);
	KT_EQ_U64(nclock, 1);
	spilled(dir);
	host_lines(dir);
	slice_lines(dir);
	kprof_outdir_close(tod);
	kt_rmrf(dir);
	return kt_done("test_trace");
}
