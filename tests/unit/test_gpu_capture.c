// SPDX-License-Identifier: GPL-2.0
/*
 * `kprofctl capture --device nvidia:0` without a GPU: the real agent
 * (build/libkprof_cupti.so) is injected into tests/nvidia/fake_cuda,
 * which plays libcuda's part, and talks to the stand-in libcupti
 * (tests/nvidia/cupti_standin.c) that plays back CUPTI buffers the agent
 * recorded on an H100 (tests/nvidia/data/). The outputs are checked
 * against the recorded CUPTI records, read here independently: one
 * ops.csv row per correlation id with the recorded name, duration,
 * start, launch entry; memcpy/memset rows and their bytes; trace.json's
 * op slices, stream tracks and launch flows; the dropped count; and the
 * agent's problems (killed, forked, another CUPTI subscriber, no CUDA).
 * The stand-in moves the recorded timestamps by one constant onto this
 * machine's clock: times are compared after taking that constant out
 * (durations and differences as they are).
 */
#include "kt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json.h>

#include "kprof_csvread.h"
#include "kprof_cupti.h"
#include "kprof_cuptirec.h"
#include "kprof_agg.h"
#include "kprof_fs.h"
#include "kprof_spool.h"
#include <glob.h>

#define MAX_OPS		4096

struct op {
	uint32_t corr;
	char name[KPROF_OP_CODE_LEN];	/* as ops.csv holds it: cut to fit */
	uint64_t start, end;		/* device */
	uint64_t bytes;			/* copies */
	int copy;			/* 1 memcpy, 2 memset */
	uint64_t api_start;		/* launch entry (API record or queued); 0: none */
	uint32_t device, stream;
};

struct expect {
	struct op ops[MAX_OPS];
	int nops;
	int kernels;
	uint64_t dropped;
	int queued;			/* kernels with a queued timestamp */
	int nstreams;
	uint32_t streams[64];
};

static char build[PATH_MAX], srcdir[PATH_MAX], tmp[PATH_MAX];
/* capture --host-times: queued for recordings made so, else api */
static const char *host_times = "api";

static struct op *op_of(struct expect *e, uint32_t corr)
{
	for (int i = 0; i < e->nops; i++)
		if (e->ops[i].corr == corr)
			return &e->ops[i];
	if (e->nops == MAX_OPS)
		return NULL;
	memset(&e->ops[e->nops], 0, sizeof(e->ops[0]));
	e->ops[e->nops].corr = corr;
	return &e->ops[e->nops++];
}

static const char *string_of(const struct kprof_crec *r, uint64_t ptr)
{
	const struct kprof_crec_frame *f;
	const void *pl;
	size_t off = 0;

	while ((f = kprof_crec_next(r, &off, &pl)))
		if (f->type == KPROF_CREC_STRING && f->c == ptr)
			return pl;
	return "?";
}

static void stream_seen(struct expect *e, uint32_t s)
{
	for (int i = 0; i < e->nstreams; i++)
		if (e->streams[i] == s)
			return;
	if (e->nstreams < 64)
		e->streams[e->nstreams++] = s;
}

/* What the recording says the outputs must hold. */
static int load_expect(const char *path, struct expect *e)
{
	static const char *const copy_names[] = { [1] = "[memcpy HtoD]", [2] = "[memcpy DtoH]",
						  [8] = "[memcpy DtoD]" };
	struct kprof_crec r;
	struct kprof_err err;
	const struct kprof_crec_frame *f;
	const void *pl;
	size_t off = 0;

	memset(e, 0, sizeof(*e));
	if (kprof_crec_load(path, &r, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	while ((f = kprof_crec_next(&r, &off, &pl))) {
		struct op *o;

		if (f->type == KPROF_CREC_END)
			e->dropped += f->c;
		if (f->type != KPROF_CREC_RECORD)
			continue;
		switch (f->a) {
		case KPROF_CUPTI_KIND_CONCURRENT_KERNEL: {
			const struct kprof_cupti_kernel *k = pl;

			o = op_of(e, k->correlation_id);
			snprintf(o->name, sizeof(o->name), "%s",
				 string_of(&r, (uint64_t)(uintptr_t)k->name));
			o->start = k->start;
			o->end = k->end;
			o->stream = k->stream_id;
			/* recorded with --host-times queued: the launch's host time */
			o->api_start = k->queued;
			e->queued += k->queued != 0;
			stream_seen(e, k->stream_id);
			e->kernels++;
			break;
		}
		case KPROF_CUPTI_KIND_MEMCPY: {
			const struct kprof_cupti_memcpy *m = pl;

			o = op_of(e, m->correlation_id);
			snprintf(o->name, sizeof(o->name), "%s",
				 m->copy_kind < 9 && copy_names[m->copy_kind] ?
				 copy_names[m->copy_kind] : "?");
			o->start = m->start;
			o->end = m->end;
			o->bytes = m->bytes;
			o->copy = 1;
			o->stream = m->stream_id;
			stream_seen(e, m->stream_id);
			break;
		}
		case KPROF_CUPTI_KIND_MEMSET: {
			const struct kprof_cupti_memset *m = pl;

			o = op_of(e, m->correlation_id);
			snprintf(o->name, sizeof(o->name), "[memset]");
			o->start = m->start;
			o->end = m->end;
			o->bytes = m->bytes;
			o->copy = 2;
			o->stream = m->stream_id;
			stream_seen(e, m->stream_id);
			break;
		}
		default:
			break;
		}
	}
	/* launch calls: the API records of the device records' correlations */
	off = 0;
	while ((f = kprof_crec_next(&r, &off, &pl))) {
		const struct kprof_cupti_api *a = pl;

		if (f->type != KPROF_CREC_RECORD || (f->a != KPROF_CUPTI_KIND_DRIVER &&
						     f->a != KPROF_CUPTI_KIND_RUNTIME))
			continue;
		for (int i = 0; i < e->nops; i++)
			if (e->ops[i].corr == a->correlation_id)
				e->ops[i].api_start = a->start;
	}
	kprof_crec_free(&r);
	return 0;
}

/* Runs a shell command line; returns its exit status (-1 if it could not). */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st < 0 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* kprofctl capture of the recording into tmp/NAME; returns its status. */
static int run_cap(const char *name, const char *rec, const char *env, const char *args)
{
#define CAPTURE_CMD "cd %s && KPROF_STANDIN_DATA=%s/tests/nvidia/data/%s %s %s/kprofctl capture --device nvidia:0 --agent %s/libkprof_cupti.so --host-times %s --cupti %s/tests/nvidia/libcupti_standin.so -o %s/%s -- %s/tests/nvidia/fake_cuda %s >%s/%s.log 2>&1"
	return sh(CAPTURE_CMD,
		  tmp, srcdir, rec, env, build, build, host_times, build, tmp, name, build, args,
		  tmp, name);
}

static char *file(const char *name, const char *f)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s/%s", tmp, name, f);
	struct kprof_err err;

	return kprof_in_read(AT_FDCWD, p, NULL, 64 << 20, NULL, &err);
}

/* kinds: the stand-in's KPROF_STANDIN_ENABLED file; 1 if kind is a line of it */
static int enabled(const char *kinds, unsigned int kind)
{
	char line[16];
	const char *p = kinds;

	snprintf(line, sizeof(line), "%u\n", kind);
	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, line, strlen(line)))
			return 1;
	return 0;
}

static uint64_t u64(const char *s)
{
	return s && *s ? strtoull(s, NULL, 10) : UINT64_MAX;
}

/* ops.csv and counters.csv against the recording */
static void check_ops(const char *name, struct expect *e)
{
	char p[PATH_MAX + 64];
	struct kprof_csv_table t, c;
	struct kprof_err err;
	int cc, cn, cd, cfs, chs, cl, ccy, crow = 0;
	uint64_t shift = 0;
	int have_shift = 0;

	snprintf(p, sizeof(p), "%s/%s/ops.csv", tmp, name);
	if (kprof_csv_load(p, &t, &err)) {
		KT_CHECK(0, "%s", err.msg);
		return;
	}
	cc = kprof_csv_col(&t, "GLOBAL CALL COUNT");
	cn = kprof_csv_col(&t, "OP CODE");
	cd = kprof_csv_col(&t, "DEVICE KERNEL DURATION [ns]");
	cfs = kprof_csv_col(&t, "DEVICE FW START TS [ns]");
	chs = kprof_csv_col(&t, "HOST START TS");
	cl = kprof_csv_col(&t, "LAUNCH TO START [ns]");
	ccy = kprof_csv_col(&t, "DEVICE FW START CYCLE");
	KT_CHECK(cc >= 0 && cn >= 0 && cd >= 0 && cfs >= 0 && chs >= 0 && cl >= 0 && ccy >= 0,
		 "ops.csv columns");
	KT_CHECK(kprof_csv_col(&t, "DEVICE BRISC KERNEL DURATION [ns]") < 0,
		 "no per-RISC columns on a GPU");
	KT_EQ_U64(t.nrows, (uint64_t)e->nops);
	for (size_t i = 0; i < t.nrows && cc >= 0; i++) {
		char **row = t.rows[i];
		struct op *o = NULL;

		for (int k = 0; k < e->nops; k++)
			if (e->ops[k].corr == u64(row[cc]))
				o = &e->ops[k];
		KT_CHECK(o, "row %zu: call count %s is no recorded correlation", i, row[cc]);
		if (!o)
			continue;
		if (!have_shift) {
			/* the stand-in's constant; after this, every time must fit it */
			shift = u64(row[cfs]) - o->start;
			have_shift = 1;
		}
		KT_STR(row[cn], o->name);
		KT_EQ_U64(u64(row[cd]), o->end - o->start);
		KT_EQ_U64(u64(row[cfs]), o->start + shift);
		KT_STR(row[ccy], "");
		if (o->api_start) {
			KT_EQ_U64(u64(row[chs]), o->api_start + shift);
			KT_EQ_U64(u64(row[cl]), o->start - o->api_start);
		}
		if (o->copy)
			crow++;
	}
	kprof_csv_free(&t);
	/* every copy has its bytes in counters.csv */
	snprintf(p, sizeof(p), "%s/%s/counters.csv", tmp, name);
	if (kprof_csv_load(p, &c, &err)) {
		KT_CHECK(0, "%s", err.msg);
		return;
	}
	{
		int k = kprof_csv_col(&c, "GLOBAL CALL COUNT"), n = kprof_csv_col(&c, "COUNTER"),
		    s = kprof_csv_col(&c, "SUM"), found = 0;

		for (size_t i = 0; i < c.nrows; i++) {
			if (strcmp(c.rows[i][n], "bytes"))
				continue;
			for (int j = 0; j < e->nops; j++)
				if (e->ops[j].corr == u64(c.rows[i][k])) {
					KT_EQ_U64(u64(c.rows[i][s]), e->ops[j].bytes);
					found++;
				}
		}
		KT_EQ_U64((uint64_t)found, (uint64_t)crow);
		KT_CHECK(crow > 0, "the recording has copies");
	}
	kprof_csv_free(&c);
}

static json_object *jget(json_object *o, const char *k)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, k, &v);
	return v;
}

static void check_trace(const char *name, struct expect *e)
{
	char p[PATH_MAX + 64], want[64];
	json_object *t, *ev;
	int slices = 0, flows = 0, named = 0;

	snprintf(p, sizeof(p), "%s/%s/trace.json", tmp, name);
	t = json_object_from_file(p);
	KT_CHECK(t, "trace.json parses");
	if (!t)
		return;
	ev = jget(t, "traceEvents");
	for (size_t i = 0; ev && i < json_object_array_length(ev); i++) {
		json_object *x = json_object_array_get_idx(ev, i);
		const char *ph = json_object_get_string(jget(x, "ph"));
		const char *cat = jget(x, "cat") ? json_object_get_string(jget(x, "cat")) : "";

		if (!strcmp(ph, "X") && !strcmp(cat, "op"))
			slices++;
		if (!strcmp(ph, "f"))
			flows++;
		if (!strcmp(ph, "M") && json_object_get_int(jget(x, "pid")) == 1 &&
		    !strcmp(json_object_get_string(jget(x, "name")), "thread_name"))
			for (int s = 0; s < e->nstreams; s++) {
				snprintf(want, sizeof(want), "GPU 0 stream %u", e->streams[s]);
				named += !strcmp(json_object_get_string(jget(jget(x, "args"),
									      "name")), want);
			}
	}
	KT_EQ_U64((uint64_t)slices, (uint64_t)e->nops);
	{
		int with_launch = 0;

		for (int i = 0; i < e->nops; i++)
			with_launch += e->ops[i].api_start != 0;
		KT_EQ_U64((uint64_t)flows, (uint64_t)with_launch);
	}
	KT_EQ_U64((uint64_t)named, (uint64_t)e->nstreams);
	json_object_put(t);
}

static json_object *gpu_params(const char *name)
{
	char p[PATH_MAX + 64];
	json_object *j, *g;

	snprintf(p, sizeof(p), "%s/%s/params.json", tmp, name);
	j = json_object_from_file(p);
	g = j ? jget(j, "gpu") : NULL;
	if (g)
		json_object_get(g);
	json_object_put(j);
	return g;
}

/* A capture of one recording (mangled names, as recorded): every output
 * against it.
 */
#define QUEUED_SUMMARY "host timestamps (queued): kernel launches from CUPTI's latency timestamps"
#define CALLBACK_SUMMARY "host timestamps (callback): CUPTI API callbacks"

/*
 * In the agent's spool, a launch call's record comes before the records
 * of the kernels and copies it launched, and the calls come in order of
 * entry: the report merges calls and ops by time as it streams
 * (kprof_report_spool.c), and a call that comes after its op, or after a
 * later call, loses its op there. Returns the ops whose launch record came
 * after them; *unordered: the calls that came after a later one.
 */
static uint64_t launches_after_ops(const char *name, uint64_t *unordered)
{
	static uint8_t seen[1 << 20], later[1 << 20];	/* by correlation % 2^20 */
	char pat[PATH_MAX + 64];
	glob_t g;
	uint64_t bad = 0;

	*unordered = 0;
	snprintf(pat, sizeof(pat), "%s/%s/raw/gpu-*.kspool", tmp, name);
	if (glob(pat, 0, NULL, &g) || g.gl_pathc != 1) {
		KT_CHECK(0, "one agent spool in %s", pat);
		return UINT64_MAX;
	}
	memset(seen, 0, sizeof(seen));
	memset(later, 0, sizeof(later));
	/* pass 1: the correlations of launch records; pass 2: the order */
	for (int pass = 1; pass <= 2; pass++) {
		uint64_t last = 0;
		struct kprof_err err;
		struct kprof_spool_reader *r = kprof_spool_open(g.gl_pathv[0], &err);
		const struct kprof_rec_hdr *rec;

		KT_CHECK(r, "%s", err.msg);
		if (!r)
			break;
		while (kprof_spool_next(r, &rec, &err) == KPROF_REC_OK) {
			uint32_t corr;

			if (rec->type == KPROF_GREC_API) {
				const struct kprof_grec_api *a = (const void *)rec;

				if (a->role == KPROF_GROLE_LAUNCH)
					(pass == 1 ? later : seen)[a->correlation & 0xfffff] = 1;
				*unordered += pass == 2 && a->start_ns < last;
				last = a->start_ns;
				continue;
			}
			if (pass == 1 || (rec->type != KPROF_GREC_KERNEL &&
					  rec->type != KPROF_GREC_COPY))
				continue;
			corr = rec->type == KPROF_GREC_KERNEL ?
			       ((const struct kprof_grec_kernel *)(const void *)rec)->correlation :
			       ((const struct kprof_grec_copy *)(const void *)rec)->correlation;
			bad += later[corr & 0xfffff] && !seen[corr & 0xfffff];
		}
		kprof_spool_free(r);
	}
	globfree(&g);
	return bad;
}

/* ht: the --host-times to capture with; NULL: the recording's (queued or
 * api); env: more environment for the capture ("" for none)
 */
static void test_recording_ht(const char *name, const char *rec, struct expect *e,
			      const char *ht, const char *env)
{
	char envs[256];

	char path[PATH_MAX + 64], want[64];
	json_object *g;
	char *s;

	snprintf(path, sizeof(path), "%s/tests/nvidia/data/%s", srcdir, rec);
	KT_CHECK(!load_expect(path, e), "recording %s", rec);
	KT_CHECK(e->kernels > 0 && e->nops > e->kernels, "%d kernels, %d ops", e->kernels, e->nops);
	/* a recording has queued timestamps on all its kernels or on none */
	KT_CHECK(!e->queued || e->queued == e->kernels, "%d of %d kernels queued", e->queued,
		 e->kernels);
	host_times = ht ? ht : e->queued ? "queued" : "api";
	snprintf(envs, sizeof(envs), "KPROF_AGENT_DEMANGLE=0 %s", env);
	KT_EQ_U64((uint64_t)run_cap(name, rec, envs, ""), 0);
	host_times = "api";
	/* callbacks: the agent orders them (CUPTI's buffers need not be);
	 * drops.cuptirec has a kernel recorded a buffer before its launch
	 * call, which the stand-in plays as it was recorded
	 */
	if (ht && !strcmp(ht, "callback")) {
		uint64_t unordered, after = launches_after_ops(name, &unordered);

		KT_CHECK(unordered == 0, "%s: calls in order of entry (%" PRIu64 " not)", name,
			 unordered);
		if (strcmp(rec, "drops.cuptirec"))
			KT_CHECK(after == 0, "%s: launches before their ops (%" PRIu64 " not)",
				 name, after);
	}
	check_ops(name, e);
	check_trace(name, e);
	g = gpu_params(name);
	KT_CHECK(g, "params.json has gpu");
	if (g) {
		KT_EQ_U64((uint64_t)json_object_get_int64(jget(g, "kernels")),
			  (uint64_t)e->kernels);
		KT_EQ_U64((uint64_t)json_object_get_int64(jget(g, "dropped_records")),
			  e->dropped);
		KT_CHECK(json_object_get_boolean(jget(g, "agent_stopped")), "agent stopped");
		KT_STR(json_object_get_string(jget(g, "clock")),
		       "CLOCK_MONOTONIC (timestamp callback)");
		KT_STR(json_object_get_string(jget(g, "host_times")),
		       ht ? ht : e->queued ? "queued" : "api");
		KT_EQ_U64((uint64_t)json_object_get_int64(jget(g, "queued_launches")),
			  (uint64_t)e->queued);
	}
	json_object_put(g);
	s = file(name, "summary.txt");
	snprintf(want, sizeof(want), "CUPTI records dropped: %" PRIu64 "%s", e->dropped,
		 e->dropped ? "  <--" : "\n");
	KT_CHECK(s && strstr(s, want), "summary: %s", want);
	KT_CHECK(s && strstr(s, ht ? CALLBACK_SUMMARY : e->queued ? QUEUED_SUMMARY :
			     "host timestamps (api): CUPTI API activity records"),
		 "summary names the host timestamps");
	KT_CHECK(s && strstr(s, "agent stopped cleanly: yes"), "summary: clean stop");
	KT_CHECK(s && !strstr(s, "  agent: "), "summary: no agent errors");
	free(s);
}

static void test_recording(const char *name, const char *rec, struct expect *e)
{
	test_recording_ht(name, rec, e, NULL, "");
}

static void test_spin(void)
{
	static const char *const outputs[] = {
		"ops.csv", "trace.json", "summary.txt", "counters.csv", "params.json", NULL
	};
	static struct expect e;

	test_recording("spin", "spin.cuptirec", &e);
	KT_EQ_U64(e.dropped, 0);
	/* kprofctl report re-makes the outputs from raw/ alone */
	KT_EQ_U64((uint64_t)sh("%s/kprofctl report %s/spin -o %s/spin2 >/dev/null",
			       build, tmp, tmp), 0);
	for (const char *const *f = outputs; *f; f++)
		KT_EQ_U64((uint64_t)sh("cmp -s %s/spin/%s %s/spin2/%s", tmp, *f, tmp, *f), 0);
	/* --force into it again: the old agent spool goes with the old raw/ */
#define FORCE_CMD "cd %s && KPROF_STANDIN_DATA=%s/tests/nvidia/data/spin.cuptirec %s/kprofctl capture --device nvidia:0 --agent %s/libkprof_cupti.so --cupti %s/tests/nvidia/libcupti_standin.so -f -o %s/spin -- %s/tests/nvidia/fake_cuda >%s/spinf.log 2>&1"
	KT_EQ_U64((uint64_t)sh(FORCE_CMD,
			       tmp, srcdir, build, build, build, tmp, build, tmp), 0);
	KT_EQ_U64((uint64_t)sh("test $(ls %s/spin/raw | grep -c '^gpu-') = 1", tmp), 0);
}

/* kernel names are demangled where a demangler is at hand (libstdc++) */
static void test_demangle(void)
{
	char *ops;

	KT_EQ_U64((uint64_t)run_cap("dm", "spin.cuptirec", "", ""), 0);
	ops = file("dm", "ops.csv");
	KT_CHECK(ops && strstr(ops, "\"kprof_spin(long long, unsigned long long*)\""),
		 "demangled kernel name in ops.csv");
	KT_CHECK(ops && !strstr(ops, "_Z10kprof_spin"), "no mangled name left");
	free(ops);
}

/* CUPTI on its own clock (where the timestamp callback is refused): the
 * agent's sync triples map it, through the piecewise fit
 */
static void test_cupti_clock(void)
{
	static struct expect e;
	struct kprof_csv_table t;
	struct kprof_err err;
	char p[PATH_MAX + 64];
	json_object *g;
	char *s;
	int spins = 0;

	KT_CHECK(!load_expect(KPROF_SRC_DIR "/tests/nvidia/data/spin.cuptirec", &e), "recording");
	KT_EQ_U64((uint64_t)run_cap("cclock", "spin.cuptirec",
				    "KPROF_AGENT_CUPTI_CLOCK=1 KPROF_STANDIN_BRACKET=1",
				    ""), 0);
	g = gpu_params("cclock");
	KT_STR(g ? json_object_get_string(jget(g, "clock")) : "", "CUPTI, mapped by sync triples");
	json_object_put(g);
	s = file("cclock", "summary.txt");
	KT_CHECK(s && strstr(s, "method: piecewise"), "summary: the fit");
	free(s);
	snprintf(p, sizeof(p), "%s/cclock/ops.csv", tmp);
	if (kprof_csv_load(p, &t, &err)) {
		KT_CHECK(0, "%s", err.msg);
		return;
	}
	KT_EQ_U64(t.nrows, (uint64_t)e.nops);
	for (size_t i = 0; i < t.nrows; i++) {
		const char *code = t.rows[i][kprof_csv_col(&t, "OP CODE")];
		uint64_t corr = u64(t.rows[i][kprof_csv_col(&t, "GLOBAL CALL COUNT")]);
		double d = (double)u64(t.rows[i][kprof_csv_col(&t, "DEVICE KERNEL DURATION [ns]")]);

		if (strncmp(code, "kprof_spin", 10))
			continue;
		for (int k = 0; k < e.nops; k++)
			if (e.ops[k].corr == corr) {
				/* mapped through the fit between triples tens of
				 * ms apart, whose reads take ~100 ns (a few ppm);
				 * 100 ppm leaves room for a slow read
				 */
				KT_NEAR(d, (double)(e.ops[k].end - e.ops[k].start),
					0.0001 * (double)(e.ops[k].end - e.ops[k].start));
				spins++;
			}
	}
	KT_CHECK(spins > 0, "spin kernels");
	kprof_csv_free(&t);
}

static void test_problems(void)
{
	json_object *g;
	char *s;

	/* killed: no STOP record; what the agent wrote is kept */
	KT_EQ_U64((uint64_t)run_cap("kill", "spin.cuptirec", "", "kill"), 128 + 9);
	s = file("kill", "summary.txt");
	KT_CHECK(s && strstr(s, "agent stopped cleanly: NO"), "summary: killed");
	free(s);
	s = file("kill", "ops.csv");
	KT_CHECK(s && strstr(s, "kprof_spin"), "a killed process's ops are kept");
	free(s);
	/* fork() without exec: counted */
	KT_EQ_U64((uint64_t)run_cap("fork", "spin.cuptirec", "", "fork"), 0);
	g = gpu_params("fork");
	KT_EQ_U64((uint64_t)(g ? json_object_get_int64(jget(g, "forks")) : -1), 1);
	json_object_put(g);
	/* another CUPTI subscriber */
	KT_EQ_U64((uint64_t)run_cap("sub", "spin.cuptirec", "KPROF_STANDIN_SUBSCRIBE=39", ""),
		  0);
	g = gpu_params("sub");
	KT_CHECK(g && json_object_get_boolean(jget(g, "multiple_subscribers")),
		 "params: multiple subscribers");
	json_object_put(g);
	s = file("sub", "summary.txt");
	KT_CHECK(s && strstr(s, "another CUPTI client held the process"), "summary: subscriber");
	KT_CHECK(s && strstr(s, "cuptiSubscribe failed (39)"), "summary: the failed call");
	free(s);
	/* CUPTI waits inside a call the agent makes at a buffer's completion
	 * for another thread's buffer request: the agent must not hold what
	 * the request needs (a hang on an H100 at 200k launches). timeout:
	 * a hang fails the test instead of stopping the suite
	 */
	KT_EQ_U64((uint64_t)run_cap("locks", "spin.cuptirec",
				    "KPROF_STANDIN_LOCKS=1 timeout 60", ""), 0);
	g = gpu_params("locks");
	KT_CHECK(g && json_object_get_int64(jget(g, "kernels")) > 0, "kernels recorded");
	json_object_put(g);
	/* --host-times queued on a CUPTI without latency timestamps: the
	 * launch calls' records instead, and the outputs say so
	 */
	host_times = "queued";
	KT_EQ_U64((uint64_t)run_cap("nolat", "spin.cuptirec", "KPROF_STANDIN_LATENCY=27", ""),
		  0);
	host_times = "api";
	g = gpu_params("nolat");
	KT_STR(g ? json_object_get_string(jget(g, "host_times")) : "", "api");
	KT_CHECK(g && json_object_get_int64(jget(g, "api_launches")) > 0, "launch records instead");
	json_object_put(g);
	s = file("nolat", "summary.txt");
	KT_CHECK(s &&
		 strstr(s, "cuptiActivityEnableLatencyTimestamps: using API records failed (27)"),
		 "summary: latency timestamps refused");
	free(s);
	/* --host-times callback where CUPTI refuses API callbacks: the API
	 * records instead, and the outputs say so
	 */
	host_times = "callback";
	KT_EQ_U64((uint64_t)run_cap("nocb", "spin.cuptirec", "KPROF_STANDIN_CALLBACK=27", ""), 0);
	host_times = "api";
	g = gpu_params("nocb");
	KT_STR(g ? json_object_get_string(jget(g, "host_times")) : "", "api");
	KT_CHECK(g && json_object_get_int64(jget(g, "api_launches")) > 0, "launch records instead");
	json_object_put(g);
	s = file("nocb", "summary.txt");
	KT_CHECK(s && strstr(s, "cuptiEnableCallback: using API records failed (27)"),
		 "summary: API callbacks refused");
	free(s);
	/* libcupti cannot be loaded: the agent says so, the command runs */
#define NOCUPTI_CMD "cd %s && %s/kprofctl capture --device nvidia:0 --agent %s/libkprof_cupti.so --cupti %s/nonexistent.so -o %s/nocupti -- %s/tests/nvidia/fake_cuda >%s/nocupti.log 2>&1"
	KT_EQ_U64((uint64_t)sh(NOCUPTI_CMD,
			       tmp, build, build, tmp, tmp, build, tmp), 2);
	s = file("nocupti", "summary.txt");
	KT_CHECK(s && strstr(s, "agent: libcupti:"), "summary: libcupti not loaded");
	free(s);
	KT_EQ_U64((uint64_t)sh("grep -q 'the agent reported problems' %s/nocupti.log", tmp), 0);
	/* a command that never initializes CUDA */
#define NONE_CMD "cd %s && %s/kprofctl capture --device nvidia:0 --agent %s/libkprof_cupti.so -o %s/none -- true >%s/none.log 2>&1"
	KT_EQ_U64((uint64_t)sh(NONE_CMD,
			       tmp, build, build, tmp, tmp), 0);
	s = file("none", "summary.txt");
	KT_CHECK(s && strstr(s, "no CUDA process loaded the agent"), "summary: no CUDA");
	free(s);
	/* the agent cannot be found: a usable error, non-zero */
#define NOAGENT_CMD "%s/kprofctl capture --device nvidia:0 --agent %s/nonexistent.so -o %s/noagent -- true >%s/noagent.log 2>&1"
	KT_EQ_U64((uint64_t)sh(NOAGENT_CMD,
			       build, tmp, tmp, tmp), 1);
	KT_EQ_U64((uint64_t)sh("grep -q 'agent' %s/noagent.log", tmp), 0);
	KT_EQ_U64((uint64_t)sh("%s/kprofctl capture --device nvidia:x -- true >/dev/null 2>&1",
			       build), 2);
}

/*
 * --counters: the recording of a capture --counters on the H100
 * (counters.cuptirec: its buffers and each kernel's METRICS frame) played
 * through the real agent's range profiler path; counters.csv must hold,
 * under each kernel's GLOBAL CALL COUNT, the values recorded for its
 * correlation, and the metric CUPTI refused there is named, with no rows.
 */
#define COUNTERS_M "sm__cycles_elapsed.max,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum,kprof__no_such_metric.sum"
#define COUNTERS_CMD							\
	"cd %s && KPROF_STANDIN_DATA=%s/tests/nvidia/data/counters.cuptirec " \
	"%s/kprofctl capture --device nvidia:0 --agent %s/libkprof_cupti.so " \
	"--cupti %s/tests/nvidia/libcupti_standin.so --counters " COUNTERS_M \
	" -o %s/cnt -- %s/tests/nvidia/fake_cuda >%s/cnt.log 2>&1"
/* kprofctl report re-makes counters.csv and summary.txt byte for byte */
#define COUNTERS_REPORT							\
	"%s/kprofctl report %s/cnt -o %s/cnt2 >/dev/null && "		\
	"cmp -s %s/cnt/counters.csv %s/cnt2/counters.csv && "		\
	"cmp -s %s/cnt/summary.txt %s/cnt2/summary.txt"

static void test_counters(void)
{
	static const char *const m[] = { "sm__cycles_elapsed.max",
		"sm__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes.sum",
		"kprof__no_such_metric.sum" };
	const struct kprof_crec_frame *f;
	struct kprof_csv_table cnt = { 0 };
	struct kprof_err err = { 0 };
	struct kprof_crec r;
	char path[PATH_MAX + 64];
	int frames = 0, c_seq, c_name, c_sum;
	const void *pl;
	size_t off = 0;

	KT_EQ_U64((uint64_t)sh(COUNTERS_CMD, tmp, srcdir, build, build, build, tmp, build, tmp),
		  0);
	KT_EQ_U64((uint64_t)sh("grep -q 'metric kprof__no_such_metric.sum refused' %s/cnt.log",
			       tmp), 0);
	snprintf(path, sizeof(path), "%s/cnt/counters.csv", tmp);
	KT_CHECK(!kprof_csv_load(path, &cnt, &err), "%s", err.msg);
	c_seq = kprof_csv_col(&cnt, "GLOBAL CALL COUNT");
	c_name = kprof_csv_col(&cnt, "COUNTER");
	c_sum = kprof_csv_col(&cnt, "SUM");
	KT_CHECK(!kprof_crec_load(KPROF_SRC_DIR "/tests/nvidia/data/counters.cuptirec", &r, &err),
		 "%s", err.msg);
	while ((f = kprof_crec_next(&r, &off, &pl))) {
		const double *v = pl;

		if (f->type != KPROF_CREC_METRICS || f->b != 4)
			continue;
		frames++;
		for (int i = 0; i < 4; i++) {
			int rows = 0;

			for (size_t k = 0; c_seq >= 0 && c_name >= 0 && c_sum >= 0 && k < cnt.nrows;
			     k++) {
				if (strtoul(cnt.rows[k][c_seq], NULL, 10) != f->a ||
				    strcmp(cnt.rows[k][c_name], m[i]))
					continue;
				rows++;
				KT_CHECK(strtod(cnt.rows[k][c_sum], NULL) == v[i],
					 "corr %u %s: %s, recorded %.17g", f->a, m[i],
					 cnt.rows[k][c_sum], v[i]);
			}
			/* the refused metric: NaN recorded, no row */
			KT_EQ_U64(rows, isnan(v[i]) ? 0 : 1);
		}
	}
	KT_EQ_U64(frames, 8);
	kprof_crec_free(&r);
	kprof_csv_free(&cnt);
	/* kprofctl report re-makes them from raw/ alone */
	KT_EQ_U64((uint64_t)sh(COUNTERS_REPORT, build, tmp, tmp, tmp, tmp, tmp, tmp), 0);

	/* no --counters: KPROF_AGENT_COUNTERS of the caller's environment
	 * does not reach the agent (kprofctl unsets it): no counters
	 */
	KT_EQ_U64((uint64_t)sh("export KPROF_AGENT_COUNTERS=sm__cycles_elapsed.max && " CAPTURE_CMD,
			       tmp, srcdir, "counters.cuptirec", "", build, build, host_times,
			       build, tmp, "cnt0", build, "", tmp, "cnt0"), 0);
	KT_EQ_U64((uint64_t)sh("grep -q 'sm__' %s/cnt0/counters.csv", tmp), 1);
	KT_EQ_U64((uint64_t)sh("grep -q counters %s/cnt0/summary.txt", tmp), 1);
	/* params.json's gpu.counters (its "replay" key is nowhere else) */
	KT_EQ_U64((uint64_t)sh("grep -q '\"replay\"' %s/cnt0/params.json", tmp), 1);
	KT_EQ_U64((uint64_t)sh("grep -q '\"replay\"' %s/cnt/params.json", tmp), 0);

	/*
	 * profiling restricted to admins (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
	 * from cuptiRangeProfilerEnable): the capture goes on and says what to
	 * do; every kernel launch is counted as not profiled; no metric rows
	 */
	KT_EQ_U64((uint64_t)sh("rm -rf %s/cnt && export KPROF_STANDIN_RANGE_ENABLE=35 && "
			       COUNTERS_CMD, tmp, tmp, srcdir, build, build, build, tmp, build,
			       tmp), 0);
	KT_EQ_U64((uint64_t)sh("grep -q '%s' %s/cnt.log",
			       "cuptiRangeProfilerEnable failed (CUPTI error 35).*ERR_NVGPUCTRPERM.*as root",
			       tmp), 0);
	KT_EQ_U64((uint64_t)sh("grep -q 'kernel launches not profiled 8,' %s/cnt/summary.txt", tmp),
		  0);
	KT_EQ_U64((uint64_t)sh("grep -Eq '\"launches_not_profiled\": *8,' %s/cnt/params.json",
			       tmp), 0);
	KT_EQ_U64((uint64_t)sh("grep -q 'sm__' %s/cnt/counters.csv", tmp), 1);
}

int main(void)
{
	char *d;

	snprintf(build, sizeof(build), "%s", KPROF_BUILD_DIR);
	snprintf(srcdir, sizeof(srcdir), "%s", KPROF_SRC_DIR);
	snprintf(tmp, sizeof(tmp), "/tmp/kprof-gpu-XXXXXX");
	d = mkdtemp(tmp);
	KT_CHECK(d, "mkdtemp: %s", strerror(errno));
	if (!d)
		return kt_done("test_gpu_capture");
	test_spin();
	test_counters();
	{
		/* CUPTI dropped records: the agent had 2 buffers of 64 KiB for
		 * 20000 launches
		 */
		static struct expect e;

		test_recording("drops", "drops.cuptirec", &e);
		KT_CHECK(e.dropped > 0, "the recording has drops");
		KT_EQ_U64((uint64_t)sh("grep -q 'CUPTI dropped %" PRIu64 " records' %s/drops.log",
				       e.dropped, tmp), 0);
	}
	{
		/* PyTorch: long kernel names (cut to KPROF_OP_CODE_LEN - 1) */
		static struct expect e;
		size_t longest = 0;

		test_recording("torch", "torch.cuptirec", &e);
		for (int i = 0; i < e.nops; i++)
			if (strlen(e.ops[i].name) > longest)
				longest = strlen(e.ops[i].name);
		KT_CHECK(longest > KPROF_NAME_LEN, "names longer than an OP record's (%zu)",
			 longest);
	}
	{
		/* --host-times queued: launch times from the kernels' latency
		 * timestamps, no launch-call records for kernels
		 */
		static struct expect e;
		char env[PATH_MAX + 64];
		char *s;

		snprintf(env, sizeof(env), "KPROF_STANDIN_ENABLED=%s/spinq.kinds", tmp);
		test_recording_ht("spinq", "spinq.cuptirec", &e, NULL, env);
		KT_CHECK(e.queued > 0, "the recording has queued timestamps");
		/* no copy records with latency timestamps (CUPTI stops the
		 * workload with both), and the summary says so
		 */
		s = file(".", "spinq.kinds");
		KT_CHECK(s && enabled(s, KPROF_CUPTI_KIND_CONCURRENT_KERNEL) &&
			 !enabled(s, KPROF_CUPTI_KIND_MEMCPY) &&
			 !enabled(s, KPROF_CUPTI_KIND_MEMSET),
			 "queued: kernel records on, memcpy and memset off (%s)",
			 s ? s : "no file");
		free(s);
		s = file("spinq", "summary.txt");
		KT_CHECK(s && strstr(s, "no memcpy or memset records"), "queued: summary says so");
		free(s);
		/* the default host times keep them */
		snprintf(env, sizeof(env), "KPROF_STANDIN_ENABLED=%s/spina.kinds", tmp);
		test_recording_ht("spina", "spin.cuptirec", &e, NULL, env);
		s = file(".", "spina.kinds");
		KT_CHECK(s && enabled(s, KPROF_CUPTI_KIND_MEMCPY) &&
			 enabled(s, KPROF_CUPTI_KIND_MEMSET),
			 "api: memcpy and memset on (%s)", s ? s : "no file");
		free(s);
	}
	{
		/* --host-times callback: the recorded API records played as
		 * CUPTI's API callbacks (the stand-in answers the agent's
		 * timestamps in them with the records' times): the same host
		 * times in every output
		 */
		static struct expect e;

		test_recording_ht("spincb", "spin.cuptirec", &e, "callback", "");
		test_recording_ht("torchcb", "torch.cuptirec", &e, "callback", "");
		test_recording_ht("dropscb", "drops.cuptirec", &e, "callback", "");
		/* chunks of 4 calls: many per buffer, and all of them taken
		 * (the launching thread then writes them itself)
		 */
		test_recording_ht("smallcb", "spin.cuptirec", &e, "callback",
				  "KPROF_AGENT_CB_RECS=4");
	}
	test_demangle();
	test_cupti_clock();
	test_problems();
	if (!kt_failures && !getenv("KPROF_KEEP_TEST_OUTPUT"))
		sh("rm -rf %s", tmp);
	else
		fprintf(stderr, "outputs kept in %s\n", tmp);
	return kt_done("test_gpu_capture");
}
