// SPDX-License-Identifier: GPL-2.0
/*
 * A report that feeds one op's markers as runs (kprof_agg_marker_run) and
 * one that feeds every marker on its own (KPROF_REPORT_ONE_BY_ONE) write
 * the same bytes: on random captures whose markers interleave across
 * cores, with sync triples and host events among them (the merge and the
 * fit's segments end runs), zone markers, counters, and one RISC's
 * markers drained late (the lateness meter measures runs); with the
 * spool's index and without it, with device_log.csv and without it.
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_outdir.h"
#include "kprof_report.h"
#include "kprof_spool.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOPS	240
#define NCORES	8
#define NRISCS	3
#define PPM	150e-6

/* a device record and when it reaches the spool (host ns) */
struct item {
	double arrive;
	uint32_t idx;		/* ties: in the order made */
	uint16_t size;
	union {
		struct kprof_rec_hdr hdr;
		struct kprof_rec_marker m;
		struct kprof_rec_sync s;
		struct kprof_rec_op op;
		struct {
			struct kprof_rec_counters c;
			uint64_t v[2];
		} cr;
	} u;
};

static struct item items[NOPS * (NCORES * NRISCS * 6 + NCORES + 4) + 4000];
static size_t nitems;
static uint64_t rnd;

static double urand(void)
{
	return (double)(kt_xorshift(&rnd) >> 11) / 9007199254740992.0;
}

static uint64_t dev_of_host(double h)
{
	return (uint64_t)((h - 1e9) * (1 + PPM) + 5e9);
}

static struct item *add(double arrive, uint16_t size)
{
	struct item *it = &items[nitems];

	memset(it, 0, sizeof(*it));
	it->arrive = arrive;
	it->idx = (uint32_t)nitems++;
	it->size = size;
	return it;
}

static void marker(double host, double arrive, uint32_t seq, uint16_t core, uint8_t risc,
		   uint8_t kind)
{
	struct item *it = add(arrive, sizeof(struct kprof_rec_marker));

	it->u.m = (struct kprof_rec_marker){ .hdr = { KPROF_REC_MARKER, sizeof(it->u.m), 0 },
		.core = core, .risc = risc, .kind = kind, .op_seq = seq,
		.timestamp = dev_of_host(host), .zone_id = kind >= KPROF_MARK_ZONE_START };
}

static int by_arrival(const void *x, const void *y)
{
	const struct item *a = x, *b = y;

	if (a->arrive != b->arrive)
		return a->arrive < b->arrive ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void put(struct kprof_spool_writer *w, const void *r, size_t n)
{
	struct kprof_err err;

	KT_CHECK(kprof_spool_append(w, r, n, &err) == 0, "append: %s", err.msg);
}

/*
 * Ops 1 ms apart, each on every core and RISC for 0.3-1.4 ms, their
 * markers drained within 40 us of their time (so cores interleave); a
 * sync triple every 0.37 ms; a launch per op and a sync ioctl entered
 * while the op runs. late: core 2 RISC 1 drains 300 ms late.
 */
static void make_capture(const char *dir, int late, uint64_t seed)
{
	struct kprof_device_info info = { .size = sizeof(info), .version = 1,
		.num_cores = NCORES, .grid_x = 4, .grid_y = 2, .riscs_per_core = NRISCS,
		.num_counters = 2, .ref_clock_hz = 1000000000ULL, .clock_mhz = 1000,
		.clock_flags = KPROF_CLOCK_LOCKED };
	struct kprof_counter_info ci = { .size = sizeof(ci), .num_counters = 2 };
	struct kprof_spool_writer *d, *h;
	struct kprof_outdir *od;
	struct kprof_err err;
	double sync_at = 1e9;

	rnd = seed;
	nitems = 0;
	strcpy(info.name, "kprof_sim0");
	strcpy(info.backend, "sim");
	strcpy(info.risc_names[0], "BRISC");
	strcpy(info.risc_names[1], "NCRISC");
	strcpy(info.risc_names[2], "TRISC0");
	strcpy(ci.desc[0].name, "busy_cycles");
	strcpy(ci.desc[0].unit, "cycles");
	strcpy(ci.desc[1].name, "bytes_read");
	strcpy(ci.desc[1].unit, "bytes");
	od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	d = od ? kprof_spool_create(od, KPROF_SPOOL_DEVICE, &info, &ci, &err) : NULL;
	h = d ? kprof_spool_create(od, KPROF_SPOOL_HOST, NULL, NULL, &err) : NULL;
	kprof_outdir_close(od);
	KT_CHECK(d && h, "create: %s", err.msg);
	if (!d || !h)
		exit(1);
	for (uint32_t i = 1; i <= NOPS; i++) {
		double L = 1e9 + i * 1e6, S = L + 50e3, E = S + 300e3 + urand() * 1100e3;
		double sync_enter = S + urand() * (E - S);
		struct kprof_host_event ev = { .type = KPROF_HREC_IOCTL, .size = sizeof(ev),
			.enter_ns = (uint64_t)L, .exit_ns = (uint64_t)L + 4000, .pid = 42,
			.tid = 43, .cmd = 0xc0184b01, .role = KPROF_ROLE_LAUNCH, .seq = i };
		struct item *it;

		strcpy(ev.comm, "workload");
		put(h, &ev, sizeof(ev));
		ev.role = KPROF_ROLE_SYNC;
		ev.cmd = 0xc0084b02;
		ev.enter_ns = (uint64_t)sync_enter;
		ev.exit_ns = (uint64_t)(E + 20e3);
		put(h, &ev, sizeof(ev));
		/* every 5th op without its OP record: no dispatch time for
		 * the lateness meter (records_without_dispatch)
		 */
		if (i % 5) {
			it = add(L + 10e3, sizeof(struct kprof_rec_op));
			it->u.op = (struct kprof_rec_op){
				.hdr = { KPROF_REC_OP, sizeof(it->u.op), 0 }, .op_seq = i,
				.timestamp = dev_of_host(L + 10e3), .num_cores = NCORES,
				.clock_mhz = 1000 };
			snprintf(it->u.op.name, sizeof(it->u.op.name), "%s",
				 i % 3 ? "matmul" : "softmax");
		}
		for (uint16_t c = 0; c < NCORES; c++)
			for (uint8_t r = 0; r < NRISCS; r++) {
				double s = S + urand() * 20e3, e = E - urand() * 20e3;
				double lag = late && c == 2 && r == 1 ? 300e6 : 0;
				double t[4] = { s, s + 1000 + urand() * 5e3,
						e - 1000 - urand() * 5e3, e };
				static const uint8_t kind[4] = { KPROF_MARK_FW_START,
					KPROF_MARK_KERNEL_START, KPROF_MARK_KERNEL_END,
					KPROF_MARK_FW_END };

				for (int k = 0; k < 4; k++)
					marker(t[k], t[k] + lag + urand() * 40e3, i, c, r, kind[k]);
				if (c == 0 && r == 0 && i % 4 == 0) {
					marker(t[1] + 100, t[1] + 100 + urand() * 40e3, i, c, r,
					       KPROF_MARK_ZONE_START);
					marker(t[2] - 100, t[2] - 100 + urand() * 40e3, i, c, r,
					       KPROF_MARK_ZONE_END);
				}
			}
		for (uint32_t c = 0; c < NCORES; c++) {
			it = add(E + 30e3 + urand() * 10e3, sizeof(it->u.cr));
			it->u.cr.c = (struct kprof_rec_counters){
				.hdr = { KPROF_REC_COUNTERS, sizeof(it->u.cr), 0 },
				.op_seq = i, .counter_mask = 3, .core = c };
			it->u.cr.v[0] = 1000u * i + c;
			it->u.cr.v[1] = 64u * (c + 1);
		}
		for (; sync_at < E + 1e6; sync_at += 370e3) {
			it = add(sync_at + 300, sizeof(struct kprof_rec_sync));
			it->u.s = (struct kprof_rec_sync){
				.hdr = { KPROF_REC_SYNC, sizeof(it->u.s), 0 },
				.host_before_ns = (uint64_t)(sync_at - 150 - urand() * 100),
				.device_cycles = dev_of_host(sync_at),
				.host_after_ns = (uint64_t)(sync_at + 150 + urand() * 100) };
		}
	}
	qsort(items, nitems, sizeof(items[0]), by_arrival);
	for (size_t k = 0; k < nitems; k++)
		put(d, &items[k].u, items[k].size);
	KT_CHECK(kprof_spool_close(d, &err) == 0, "close d: %s", err.msg);
	KT_CHECK(kprof_spool_close(h, &err) == 0, "close h: %s", err.msg);
}

static void report(const char *dir, const char *name, unsigned int flags, uint64_t slack)
{
	struct kprof_report_opts opts = { .version = "test", .flags = flags, .slack_ns = slack };
	struct kprof_report_result res;
	struct kprof_outdir *od;
	struct kprof_err err;
	char out[300];
	int ret = -1;

	snprintf(out, sizeof(out), "%s/%s", dir, name);
	od = kprof_outdir_open(out, 0, (uid_t)-1, (gid_t)-1, &err);
	if (od)
		ret = kprof_report_build(dir, od, &opts, &res, &err);
	kprof_outdir_close(od);
	KT_CHECK(ret == 0, "making %s: %s", name, err.msg);
	KT_CHECK(ret || res.ops == NOPS, "%s: %" PRIu64 " ops", name, res.ops);
}

/* every output of the reports in dir/a and dir/b, written by both or neither */
static void same(const char *dir, const char *a, const char *b, const char *what)
{
	static const char *const names[] = { "ops.csv", "counters.csv", "host_events.csv",
		"trace.json", "report.html", "summary.txt", "params.json", "bubbles.csv",
		"report.md", "device_log.csv" };
	char pa[300], pb[300];

	snprintf(pa, sizeof(pa), "%s/%s", dir, a);
	snprintf(pb, sizeof(pb), "%s/%s", dir, b);
	kt_same_files(pa, pb, names, ARRAY_SIZE(names), 1, what);
}

/*
 * ops.csv's rows failing to be written (here the file size limit, as a
 * full disk would): the report fails naming the op or the file, and the
 * cause
 */
static void ops_write_fails(const char *dir)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = { 20000, 20000 };
		struct kprof_report_opts opts = {
			.flags = KPROF_REPORT_NO_DEVICE_LOG | KPROF_REPORT_NO_TRACE };
		struct kprof_outdir *od;
		struct kprof_err err = { 0 };
		char out[300];

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(2);
		snprintf(out, sizeof(out), "%s/fsize", dir);
		od = kprof_outdir_open(out, 0, (uid_t)-1, (gid_t)-1, &err);
		if (!od || kprof_report_build(dir, od, &opts, NULL, &err) == 0)
			_exit(3);
		kprof_outdir_close(od);
		fprintf(stderr, "(expected) %s\n", err.msg);
		/* at an op's rows, or at the file's end when they fit one block */
		_exit((strstr(err.msg, "writing op") || strstr(err.msg, "ops.csv")) &&
		      strstr(err.msg, strerror(EFBIG)) ? 0 : 4);
	}
	KT_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		 WEXITSTATUS(st) == 0, "ops.csv over the size limit: status %#x", st);
}

int main(void)
{
	for (int late = 0; late < 2; late++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			char *dir = kt_tmpdir(), p[400], q[400], what[64];
			const unsigned int nd = KPROF_REPORT_NO_DEVICE_LOG;

			snprintf(what, sizeof(what), "late %d seed %" PRIu64, late, seed);
			make_capture(dir, late, seed * 0x9e3779b97f4a7c15ULL);
			/* trace.json holds zone markers for pairing: runs end
			 * there; without it they are counted in runs
			 */
			report(dir, "runs", nd, 0);
			report(dir, "one", nd | KPROF_REPORT_ONE_BY_ONE, 0);
			same(dir, "runs", "one", what);
			report(dir, "runs-nt", nd | KPROF_REPORT_NO_TRACE, 0);
			report(dir, "one-nt", nd | KPROF_REPORT_NO_TRACE | KPROF_REPORT_ONE_BY_ONE,
			       0);
			same(dir, "runs-nt", "one-nt", what);
			/* device_log.csv: a run's rows are written after it */
			report(dir, "runs-dl", KPROF_REPORT_NO_TRACE, 0);
			report(dir, "one-dl", KPROF_REPORT_NO_TRACE | KPROF_REPORT_ONE_BY_ONE, 0);
			same(dir, "runs-dl", "one-dl", what);
			/* a slack of 150 us: ops retire while the next run, so
			 * that the order of host events among the markers
			 * shows in the ops held at most
			 */
			report(dir, "runs-150", nd, 150000);
			report(dir, "one-150", nd | KPROF_REPORT_ONE_BY_ONE, 150000);
			same(dir, "runs-150", "one-150", what);
			/* without the index: the lateness measured by pass 1 */
			snprintf(p, sizeof(p), "%s/%s", dir, KPROF_SPOOL_INDEX_FILE);
			snprintf(q, sizeof(q), "%s/kidx.aside", dir);
			KT_CHECK(rename(p, q) == 0, "index aside");
			report(dir, "runs-ni", nd, 0);
			report(dir, "one-ni", nd | KPROF_REPORT_ONE_BY_ONE, 0);
			same(dir, "runs-ni", "one-ni", what);
			same(dir, "runs-ni", "runs", what);
			if (late && seed == 1)
				ops_write_fails(dir);
			kt_rmrf(dir);
		}
	return kt_done("test_report_runs");
}
