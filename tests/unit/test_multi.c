// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-device captures (kprof_multi.c, kprof_trace_merge.c): two
 * trace.json files from the writer merged into one (pids and flow ids
 * renumbered per device, host processes named after their device,
 * timestamps and text kept, also a name that holds "pid":1), malformed
 * input refused; a device's figures from ops.csv (busy time as the union
 * of op spans, against a brute-force union over 150000 random spans that
 * spill to disk); the slowest device; report.md's table; the whole set
 * written from two device directories; the device directories of a
 * capture found by scan.
 */
#include "kt.h"
#include "kprof_multi.h"
#include "kprof_outdir.h"
#include "kprof_trace.h"
#include "kprof_trace_merge.h"

#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir;

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	KT_CHECK(f, "create %s", path);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* A device's trace.json, through the writer, in od: one op, one launch. */
static void dev_trace(struct kprof_outdir *od, const char *label, const char *op,
		      uint64_t seq, uint64_t t0)
{
	struct kprof_trace_cfg cfg = { .device_label = label, .num_cores = 1 };
	struct kprof_core_time c = { 0, 0, (double)t0 + 100, (double)t0 + 900 };
	struct kprof_host_event ev = {
		.enter_ns = t0, .exit_ns = t0 + 50, .pid = 10, .tid = 11,
		.role = KPROF_ROLE_LAUNCH, .seq = seq, .comm = "work",
	};
	struct kprof_op_row row;
	struct kprof_err err = { 0 };
	struct kprof_trace *t = kprof_trace_open(od, "trace.json", &cfg, &err);

	KT_CHECK(t, "trace open: %s", err.msg);
	if (!t)
		return;
	memset(&row, 0, sizeof(row));
	row.seq = seq;
	snprintf(row.op_code, sizeof(row.op_code), "%s", op);
	row.host_start_ns = (double)t0;
	row.cores = &c;
	row.ncores = 1;
	kprof_trace_host(t, &ev);
	kprof_trace_op(t, &row);
	KT_CHECK(kprof_trace_close(t, &err) == 0, "trace close: %s", err.msg);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static int64_t jint(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -1;
}

/* The merged trace's checks; returns the event count. */
static size_t check_merged(const char *path, uint64_t t0, uint64_t t1)
{
	json_object *root = json_object_from_file(path), *evs, *e, *a;
	int names = 0, ops = 0, flows = 0, hosts = 0;
	size_t n = 0;

	KT_CHECK(root && json_object_object_get_ex(root, "traceEvents", &evs),
		 "%s parses", path);
	if (!root || !json_object_object_get_ex(root, "traceEvents", &evs))
		return 0;
	n = json_object_array_length(evs);
	for (size_t i = 0; i < n; i++) {
		const char *ph, *name;
		int64_t pid;

		e = json_object_array_get_idx(evs, i);
		ph = jstr(e, "ph");
		name = jstr(e, "name");
		pid = jint(e, "pid");
		KT_CHECK(pid >= 1 && pid <= 4, "event %zu: pid %" PRId64, i, pid);
		if (!strcmp(ph, "M") && !strcmp(name, "process_name")) {
			static const char *const want[] = {
				"", "device 0: sim0 (sim)", "host (device 0)",
				"device 1: sim1 (sim)", "host (device 1)",
			};

			json_object_object_get_ex(e, "args", &a);
			KT_STR(jstr(a, "name"), want[pid]);
			names++;
		}
		if (!strcmp(ph, "X") && !strcmp(jstr(e, "cat"), "op")) {
			/* device 0's op on pid 1 at its time; device 1's on 3 */
			KT_STR(name, pid == 1 ? "matmul" : "x\"pid\":1,\"id\":7");
			KT_NEAR(json_object_get_double(json_object_object_get(e, "ts")),
				((pid == 1 ? t0 : t1) + 100) / 1e3, 1e-9);
			ops++;
		}
		if (!strcmp(ph, "X") && !strcmp(jstr(e, "cat"), "ioctl")) {
			KT_CHECK(pid == 2 || pid == 4, "ioctl on pid %" PRId64, pid);
			hosts++;
		}
		if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			/* seq 5 on both: ids 5 * 2 + device */
			int dev = pid > 2;

			KT_EQ_U64(jint(e, "id"), 5 * 2 + dev);
			flows++;
		}
	}
	KT_EQ_U64(names, 4);
	KT_EQ_U64(ops, 2);
	KT_EQ_U64(hosts, 2);
	KT_EQ_U64(flows, 4);
	json_object_put(root);
	return n;
}

static void merge_bad(const char *text, const char *why)
{
	struct kprof_trace_merge m;
	struct kprof_err err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	kprof_trace_merge_begin(&m, out, 1);
	KT_CHECK(kprof_trace_merge_add(&m, in, "t.json", 0, "0", &err) == -EPROTO,
		 "'%s' accepted", text);
	KT_CHECK(strstr(err.msg, why), "'%s': '%s' lacks '%s'", text, err.msg, why);
	fclose(in);
	fclose(out);
	free(buf);
}

static void merge(void)
{
	struct kprof_err err = { 0 };
	struct kprof_outdir *d0, *d1;
	struct kprof_trace_merge m;
	char path[256];
	FILE *out, *in;

	snprintf(path, sizeof(path), "%s/m0", dir);
	d0 = kprof_outdir_open(path, 0, (uid_t)-1, (gid_t)-1, &err);
	snprintf(path, sizeof(path), "%s/m1", dir);
	d1 = kprof_outdir_open(path, 0, (uid_t)-1, (gid_t)-1, &err);
	KT_CHECK(d0 && d1, "outdirs: %s", err.msg);
	if (!d0 || !d1)
		return;
	dev_trace(d0, "device 0: sim0 (sim)", "matmul", 5, 1000000);
	/* a name that looks like the keys renumbered: text, left alone */
	dev_trace(d1, "device 1: sim1 (sim)", "x\"pid\":1,\"id\":7", 5, 1000400);

	snprintf(path, sizeof(path), "%s/merged.json", dir);
	out = fopen(path, "w");
	kprof_trace_merge_begin(&m, out, 2);
	for (unsigned int k = 0; k < 2; k++) {
		char p[256];

		snprintf(p, sizeof(p), "%s/m%u/trace.json", dir, k);
		in = fopen(p, "r");
		KT_CHECK(in && kprof_trace_merge_add(&m, in, p, k, k ? "1" : "0", &err) == 0,
			 "merging %s: %s", p, err.msg);
		if (in)
			fclose(in);
	}
	kprof_trace_merge_end(&m);
	fclose(out);
	KT_CHECK(check_merged(path, 1000000, 1000400) > 8, "merged trace has events");

	merge_bad("", "no traceEvents header");
	merge_bad("{\"traceEvents\":[\n{\"ph\":\"X\",\"pid\":1}\n", "no closing ]}");
	merge_bad("{\"traceEvents\":[\n{\"ph\":\"X\",\"pid\":3}\n]}\n", ":2: not an event");
	merge_bad("{\"traceEvents\":[\n{\"ph\":\"X\"}\n]}\n", ":2: not an event");
	merge_bad("{\"traceEvents\":[\n{\"ph\":\"X\",\"pid\":1}}\n]}\n", ":2: not an event");
	merge_bad("{\"traceEvents\":[\n{\"ph\":\"X\",\"name\":\"a,\"pid\":1}\n]}\n",
		  ":2: not an event");
	kprof_outdir_close(d0);
	kprof_outdir_close(d1);
}

#define OPS_HDR "OP CODE,GLOBAL CALL COUNT,DEVICE FW START TS [ns],DEVICE FW END TS [ns]," \
		"DEVICE KERNEL DURATION [ns],MARKERS LOST\n"

static int stats_of(const char *name, struct kprof_outdir *spill, unsigned int dev,
		    struct kprof_multi_stats *st, struct kprof_multi_kinds *k,
		    struct kprof_err *err)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	KT_CHECK(fd >= 0, "open %s", path);
	return kprof_multi_stats_csv(fd, path, spill, dev, st, k, NULL, err);
}

struct span {
	double s, e;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->s > y->s) - (x->s < y->s);
}

static void stats(struct kprof_outdir *spill)
{
	struct kprof_multi_kinds *k = kprof_multi_kinds_new(2);
	struct kprof_multi_stats st[2];
	struct kprof_err err = { 0 };
	enum { N = 150000 };
	struct span *sp = malloc(N * sizeof(*sp));
	uint64_t seed = 42;
	double busy = 0, cs, ce;
	char *md = NULL;
	size_t len = 0;
	FILE *f;

	/* overlapping, out of order, one op without device times */
	put("a.csv", OPS_HDR
	    "matmul,1,100,200,80,0\n"
	    "matmul,2,400,500,90,2\n"
	    "add,3,150,300,100,0\n"
	    "add,4,,,,\n"
	    "\"a,b\",5,450,460,5,1\n");
	KT_CHECK(stats_of("a.csv", spill, 0, &st[0], k, &err) == 0, "a.csv: %s", err.msg);
	KT_EQ_U64(st[0].ops, 5);
	KT_EQ_U64(st[0].timed, 4);
	KT_NEAR(st[0].busy_ns, 300, 0);		/* 100..300 and 400..500 */
	KT_NEAR(st[0].kernel_ns, 275, 0);
	KT_NEAR(st[0].first_ns, 100, 0);
	KT_NEAR(st[0].last_ns, 500, 0);
	KT_EQ_U64(st[0].lost_markers, 3);

	/* random spans: the union against a brute-force one */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/b.csv", dir);
		f = fopen(path, "w");
		fputs(OPS_HDR, f);
		for (int i = 0; i < N; i++) {
			sp[i].s = (double)(kt_xorshift(&seed) % 100000000);
			sp[i].e = sp[i].s + (double)(kt_xorshift(&seed) % 1000);
			fprintf(f, "%s,%d,%.0f,%.0f,1,0\n", i % 3 ? "matmul" : "add", i, sp[i].s,
				sp[i].e);
		}
		fclose(f);
	}
	qsort(sp, N, sizeof(*sp), cmp_span);
	cs = sp[0].s;
	ce = sp[0].e;
	for (int i = 1; i < N; i++) {
		if (sp[i].s > ce) {
			busy += ce - cs;
			cs = sp[i].s;
			ce = sp[i].e;
		} else if (sp[i].e > ce) {
			ce = sp[i].e;
		}
	}
	busy += ce - cs;
	KT_CHECK(stats_of("b.csv", spill, 1, &st[1], k, &err) == 0, "b.csv: %s", err.msg);
	KT_EQ_U64(st[1].ops, N);
	KT_NEAR(st[1].busy_ns, busy, 0);
	KT_NEAR(st[1].kernel_ns, N, 0);
	KT_NEAR(st[1].first_ns, sp[0].s, 0);

	KT_EQ_U64(kprof_multi_slowest(st, 2), 1);
	KT_EQ_U64(kprof_multi_slowest(st, 1), 0);

	snprintf(st[0].label, sizeof(st[0].label), "sim0 (sim)");
	st[1].label[0] = '\0';
	f = open_memstream(&md, &len);
	kprof_multi_report_md(f, (const char *const[]){ "0", "1" }, st, 2, k, NULL);
	fclose(f);
	KT_CHECK(strstr(md, "| 0: sim0 (sim) | dev0/ | 5 | 0.000 |"), "device 0 row:\n%s", md);
	KT_CHECK(strstr(md, "| 1 | dev1/ | 150000 |"), "device 1 row:\n%s", md);
	KT_CHECK(strstr(md, "**Slowest device: 1**"), "slowest named:\n%s", md);
	KT_CHECK(strstr(md, "| matmul | 2 | 100000 |"), "matmul counts:\n%s", md);
	KT_CHECK(strstr(md, "| add | 2 | 50000 |"), "add counts:\n%s", md);
	KT_CHECK(strstr(md, "| a\\,b | 1 | 0 |") || strstr(md, "| a,b | 1 | 0 |"),
		 "a,b counts:\n%s", md);
	free(md);

	/* equal busy: the first; nothing timed: none */
	st[1].busy_ns = st[0].busy_ns;
	KT_EQ_U64(kprof_multi_slowest(st, 2), 0);
	st[0].timed = 0;
	st[1].timed = 0;
	KT_CHECK(kprof_multi_slowest(st, 2) == -1, "no timed op: no slowest");
	md = NULL;
	f = open_memstream(&md, &len);
	kprof_multi_report_md(f, (const char *const[]){ "0", "1" }, st, 2, NULL, NULL);
	fclose(f);
	KT_CHECK(strstr(md, "No device ran a timed op"), "no timed op:\n%s", md);
	free(md);

	put("c.csv", "OP CODE,X\nfoo,1\n");
	KT_CHECK(stats_of("c.csv", spill, 0, &st[0], NULL, &err) == -EPROTO &&
		 strstr(err.msg, "not kprof's ops.csv"), "c.csv refused: %s", err.msg);
	kprof_multi_kinds_free(k);
	free(sp);
}

/* Two device directories with their outputs, then the set in top. */
static void write_all(void)
{
	static const char routing[] =
		",\"config\":{\"routing\":{\"ops_gpus_not_captured\":7,\"ops_unknown_gpu\":3}}";
	struct kprof_err err = { 0 };
	struct kprof_outdir *top, *d[2];
	struct kprof_multi_dev devs[2];
	struct kprof_multi_result res = { -1, 0 };
	char path[256], *txt;
	struct stat sb;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cap", dir);
	top = kprof_outdir_open(path, 0, (uid_t)-1, (gid_t)-1, &err);
	KT_CHECK(top, "top: %s", err.msg);
	if (!top)
		return;
	put("cap/ops.csv", "stale\n");	/* not of this capture: pruned */
	for (int k = 0; k < 2; k++) {
		struct kprof_outfile of = { 0 };

		snprintf(path, sizeof(path), "%s/cap/dev%d", dir, k);
		d[k] = kprof_outdir_open(path, 0, (uid_t)-1, (gid_t)-1, &err);
		KT_CHECK(d[k], "dev%d: %s", k, err.msg);
		if (!d[k])
			return;
		dev_trace(d[k], k ? "device 1: sim1 (sim)" : "device 0: sim0 (sim)",
			  k ? "x\"pid\":1,\"id\":7" : "matmul", 5, k ? 1000400 : 1000000);
		kprof_outfile_create(d[k], "ops.csv", &of, &err);
		/* busy 1 ms on device 0, 2 ms on device 1 */
		fprintf(of.f, OPS_HDR "op,5,%d,%d,700,0\n", 1000100 + 400 * k,
			1000100 + 400 * k + 1000000 * (k + 1));
		KT_CHECK(kprof_outfile_commit(&of, 0, &err) == 0, "ops.csv: %s", err.msg);
		kprof_outfile_create(d[k], "params.json", &of, &err);
		/* device 1 a GPU of several whose processes also ran elsewhere */
		fprintf(of.f, "{\"device\":{\"name\":\"sim%d\",\"backend\":\"sim\"}%s}\n", k,
			k ? routing : "");
		KT_CHECK(kprof_outfile_commit(&of, 0, &err) == 0, "params.json: %s", err.msg);
		devs[k] = (struct kprof_multi_dev){ k ? "1" : "0", d[k] };
	}
	KT_CHECK(kprof_multi_write(top, devs, 2, "op", &res, &err) == 0, "write: %s", err.msg);
	KT_EQ_U64(res.slowest, 1);
	KT_NEAR(res.slowest_busy_ns, 2000000, 0);
	snprintf(path, sizeof(path), "%s/cap/trace.json", dir);
	check_merged(path, 1000000, 1000400);
	snprintf(path, sizeof(path), "%s/cap/report.md", dir);
	f = fopen(path, "r");
	KT_CHECK(f, "report.md written");
	txt = calloc(1, 8192);
	if (f) {
		KT_CHECK(fread(txt, 1, 8191, f) > 0, "report.md read");
		fclose(f);
	}
	KT_CHECK(strstr(txt, "| 0: sim0 (sim) | dev0/ | 1 | 1.000 |"), "dev0 row:\n%s", txt);
	KT_CHECK(strstr(txt, "| 1: sim1 (sim) | dev1/ | 1 | 2.000 |"), "dev1 row:\n%s", txt);
	KT_CHECK(strstr(txt, "**Slowest device: 1**, busy 2.000 ms, 2.00x the least busy (device"),
		 "slowest:\n%s", txt);
	KT_CHECK(strstr(txt, "least busy (device 0, 1.000 ms); it also finished last."),
		 "slowest, the least busy:\n%s", txt);
	KT_CHECK(strstr(txt, "**Not compared**: 7 kernels/copies ran on GPUs") &&
		 strstr(txt, "did not take, 3 on CUDA devices"),
		 "ops routed to no device said:\n%s", txt);
	/* the step pattern given reaches the comparison: device 1's op starts last */
	KT_CHECK(strstr(txt, "## Collectives and compute") &&
		 strstr(txt, "an op matching op starts") && strstr(txt, "| 0 | 1 | 0.000 |") &&
		 strstr(txt, "Slowest in: 0 0, 1 1 steps."),
		 "steps:\n%s", txt);
	snprintf(path, sizeof(path), "%s/cap/report.html", dir);
	f = fopen(path, "r");
	KT_CHECK(f, "report.html written");
	memset(txt, 0, 8192);
	if (f) {
		KT_CHECK(fread(txt, 1, 8191, f) > 0, "report.html read");
		fclose(f);
	}
	KT_CHECK(strstr(txt, "<a href=\"dev1/report.html\">device 1</a>"), "link:\n%s", txt);
	KT_CHECK(strstr(txt, "Slowest device: 1"), "html table:\n%s", txt);
	snprintf(path, sizeof(path), "%s/cap/ops.csv", dir);
	KT_CHECK(lstat(path, &sb) == -1, "stale ops.csv in the top directory removed");
	free(txt);
	kprof_outdir_close(d[0]);
	kprof_outdir_close(d[1]);
	kprof_outdir_close(top);
}

static void scan(void)
{
	struct kprof_device_id ids[4];
	struct kprof_err err = { 0 };
	char buf[64];

	mkdir(strcat(strcpy(buf, dir), "/cap/dev0/raw"), 0700);
	put("cap/dev0/raw/device.kspool", "x");
	mkdir(strcat(strcpy(buf, dir), "/cap/dev2"), 0700);
	mkdir(strcat(strcpy(buf, dir), "/cap/dev2/raw"), 0700);
	put("cap/dev2/raw/device.kspool", "x");
	mkdir(strcat(strcpy(buf, dir), "/cap/dev07"), 0700);
	mkdir(strcat(strcpy(buf, dir), "/cap/dev07/raw"), 0700);
	put("cap/dev07/raw/device.kspool", "x");	/* not how dev7 is named */
	snprintf(buf, sizeof(buf), "%s/cap", dir);
	KT_EQ_U64(kprof_multi_scan(buf, ids, 4, &err), 2);	/* dev1: no spool */
	KT_EQ_U64(ids[0].index, 0);
	KT_EQ_U64(ids[1].index, 2);
	KT_CHECK(kprof_multi_scan(buf, ids, 1, &err) == -E2BIG, "max kept");
	KT_EQ_U64(kprof_multi_scan(dir, ids, 4, &err), 0);	/* no dev<N> */

	ids[0] = (struct kprof_device_id){ .kind = KPROF_DEVICE_KPROF, .index = 12 };
	KT_STR(kprof_multi_subdir(&ids[0], buf, sizeof(buf)), "dev12");
	ids[0].kind = KPROF_DEVICE_NVIDIA;
	KT_STR(kprof_multi_subdir(&ids[0], buf, sizeof(buf)), "nvidia12");
}

int main(void)
{
	struct kprof_err err = { 0 };
	struct kprof_outdir *spill;

	dir = kt_tmpdir();
	spill = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	KT_CHECK(spill, "outdir: %s", err.msg);
	if (!spill)
		return kt_done("test_multi");
	merge();
	stats(spill);
	write_all();
	scan();
	kprof_outdir_close(spill);
	kt_rmrf(dir);
	return kt_done("test_multi");
}
