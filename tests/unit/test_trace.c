// SPDX-License-Identifier: GPL-2.0
/*
 * trace.json writer (kprof_trace.c) on hand-made op rows: the busy
 * counter's exact samples per core and per core group, op slices, the
 * flow arrow, the clock counter, and byte-identical output when re-made.
 */
#include "kt.h"
#include "kprof_trace.h"

#include <json.h>

#define NCORE_MAX	4

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
			 const struct op *ops, size_t n)
{
	static char path[256];
	struct kprof_err err = { 0 };
	struct kprof_trace *t;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	t = kprof_trace_open(path, "device 0: test", 2, group, &err);
	KT_CHECK(t != NULL, "open %s: %s", path, err.msg);
	if (!t)
		return path;
	kprof_trace_clock(t, 0, 1000);
	feed(t, ops, n);
	KT_CHECK(kprof_trace_close(t, &err) == 0, "close %s: %s", path, err.msg);
	return path;
}

int main(void)
{
	char *dir = kt_tmpdir(), *a, *b, *p;
	struct sample s[16];
	int nclock, nflow;
	size_t n;

	/* one track per core */
	{
		static const struct sample want[] = {
			{ 1.0, 50 }, { 2.5, 75 }, { 3.5, 50 }, { 4.0, 25 }, { 5.0, 0 },
		};

		p = write_trace(dir, "core.json", 1, ops4, 3);
		n = busy_samples(p, s, 16, &nclock, &nflow);
		expect(s, n, want, sizeof(want) / sizeof(want[0]), "per core");
		KT_EQ_U64(nclock, 1);
		KT_EQ_U64(nflow, 1);	/* op 1 had a launch: its "f" end */
		a = kt_slurp(p, NULL);
		KT_CHECK(a && strstr(a, "{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"busy\",\"ts\":2.500,\"args\":{\"%\":75}}"),
			 "busy sample text");
		KT_CHECK(a && strstr(a, "{\"ph\":\"X\",\"cat\":\"op\",\"pid\":1,\"tid\":0,\"name\":\"c\",\"ts\":2.500,\"dur\":2.500,\"args\":{\"seq\":3}}"),
			 "op slice text");
		KT_CHECK(a && strstr(a, "\"args\":{\"name\":\"core 3 (1,1)\"}"), "core track name");
		/* the same rows give the same bytes */
		p = write_trace(dir, "core2.json", 1, ops4, 3);
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

		p = write_trace(dir, "group.json", 2, ops4, 3);
		n = busy_samples(p, s, 16, &nclock, &nflow);
		expect(s, n, want, sizeof(want) / sizeof(want[0]), "group of 2");
		a = kt_slurp(p, NULL);
		KT_CHECK(a && strstr(a, "\"args\":{\"name\":\"cores 2-3\"}"), "group track name");
		free(a);
	}
	/* the share is of the cores seen: 1 of 3 is 33.3333 % */
	{
		static const struct op ops3[] = {
			{ 1, "x", 3, { { 0, 0, 1000, 2000 }, { 1, 0, 1000, 1500 },
				       { 5, 0, 1000, 1500 } } },
		};
		static const struct sample want[] = {
			{ 1.0, 100 }, { 1.5, 100.0 / 3 }, { 2.0, 0 },
		};

		p = write_trace(dir, "third.json", 1, ops3, 1);
		n = busy_samples(p, s, 16, &nclock, &nflow);
		KT_CHECK(n == 3 && fabs(s[1].v - want[1].v) < 1e-4, "1 of 3 cores: %g", s[1].v);
		s[1].v = want[1].v;	/* printed with 6 digits: compared above */
		expect(s, n, want, 3, "1 of 3");
	}
	/* no op: no busy samples, still valid JSON */
	p = write_trace(dir, "empty.json", 1, ops4, 0);
	n = busy_samples(p, s, 16, &nclock, &nflow);
	KT_EQ_U64(n, 0);
	KT_EQ_U64(nclock, 1);
	kt_rmrf(dir);
	return kt_done("test_trace");
}
