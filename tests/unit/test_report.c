// SPDX-License-Identifier: GPL-2.0
/*
 * Reports from spools: a synthetic capture (drifting device clock, sync
 * triples, ops on 4 cores x 2 RISCs, counters, a LOST record, host launch
 * and sync events) written with the spool writer, then every output
 * checked against known values and golden snippets; a second report from
 * the same spool must be byte-identical.
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_outdir.h"
#include "kprof_report.h"
#include "kprof_spool.h"

#include <json.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOPS	50
#define PPM	100e-6
/* the start of the first op's slice in trace.json */
#define MATMUL_SLICE_PREFIX "{\"ph\":\"X\",\"cat\":\"op\",\"pid\":1,\"tid\":0,\"name\":\"matmul\",\"ts\":"

/* the report of capture dir in out (created if missing) */
static int report_to(const char *dir, const char *out, const struct kprof_report_opts *opts,
		     struct kprof_report_result *res, struct kprof_err *err)
{
	struct kprof_outdir *od = kprof_outdir_open(out, 0, (uid_t)-1, (gid_t)-1, err);
	int ret = od ? kprof_report_build(dir, od, opts, res, err) : -1;

	kprof_outdir_close(od);
	return ret;
}

static double dev_of_host(double h)
{
	return (h - 1e9) * (1 + PPM) + 5e9;
}

static void put(struct kprof_spool_writer *w, const void *r, size_t n)
{
	struct kprof_err err;

	KT_CHECK(kprof_spool_append(w, r, n, &err) == 0, "append: %s", err.msg);
}

/* to the spool w, or (w NULL) to held[] for later */
static void marker(struct kprof_spool_writer *w, struct kprof_rec_marker *held, int *nheld,
		   uint32_t seq, uint16_t core, uint8_t risc, uint8_t kind, double host)
{
	struct kprof_rec_marker m = { .hdr = { KPROF_REC_MARKER, sizeof(m), 0 },
		.core = core, .risc = risc, .kind = kind, .op_seq = seq,
		.timestamp = (uint64_t)dev_of_host(host) };

	if (w)
		put(w, &m, sizeof(m));
	else
		held[(*nheld)++] = m;
}

/* op i: launch at L = 1e9 + i * 20 ms (host), FW from L + 50 us for
 * 1 ms + i us of host time on every core; kernel 1 us inside FW
 */
static double launch_at(int i) { return 1e9 + i * 20e6; }
static double fw_len(int i) { return 1e6 + i * 1e3; }

/*
 * late: core 1 NCRISC's markers and the LOST record reach the spool only
 * after every other record, as when the DMA path serves one L1 ring late
 * (up to 1 s here; the aggregation's default slack is 200 ms).
 */
static void make_capture(const char *dir, int late)
{
	static struct kprof_rec_marker held[NOPS * 4];
	struct kprof_rec_lost held_lost;
	int nheld = 0;
	struct kprof_device_info info = { .size = sizeof(info), .version = 1, .device_id = 0,
		.num_cores = 4, .grid_x = 2, .grid_y = 2, .riscs_per_core = 2,
		.num_counters = 2, .ref_clock_hz = 1000000000ULL, .clock_mhz = 1000,
		.clock_flags = KPROF_CLOCK_LOCKED };
	struct kprof_counter_info ci = { .size = sizeof(ci), .num_counters = 2 };
	struct kprof_spool_writer *d, *h;
	struct kprof_outdir *od;
	struct kprof_err err;
	int next_sync = 0;

	strcpy(info.name, "kprof_sim0");
	strcpy(info.backend, "sim");
	strcpy(info.risc_names[0], "BRISC");
	strcpy(info.risc_names[1], "NCRISC");
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
	{
		struct kprof_rec_state st = { .hdr = { KPROF_REC_STATE, sizeof(st), 0 },
			.host_ns = 999000000, .state = KPROF_STATE_RUNNING,
			.reason = KPROF_REASON_START };
		put(d, &st, sizeof(st));
	}
	for (int i = 1; i <= NOPS; i++) {
		double L = launch_at(i), S = L + 50e3, E = S + fw_len(i);
		struct kprof_host_event ev = { .type = KPROF_HREC_IOCTL, .size = sizeof(ev),
			.enter_ns = (uint64_t)L, .exit_ns = (uint64_t)L + 4000, .pid = 42,
			.tid = 43, .cmd = 0xc0184b01, .role = KPROF_ROLE_LAUNCH,
			.seq = (uint64_t)i };
		struct kprof_rec_op op = { .hdr = { KPROF_REC_OP, sizeof(op), 0 },
			.op_seq = (uint64_t)i, .timestamp = (uint64_t)dev_of_host(L + 10e3),
			.first_core = 0, .num_cores = 4, .clock_mhz = 1000 };

		strcpy(ev.comm, "workload");
		put(h, &ev, sizeof(ev));
		ev.role = KPROF_ROLE_SYNC;
		ev.cmd = 0xc0084b02;
		ev.enter_ns = (uint64_t)L + 6000;
		ev.exit_ns = (uint64_t)(E + 20e3);
		put(h, &ev, sizeof(ev));
		/* sync samples every 10 ms up to this op's end */
		while (1e9 + next_sync * 10e6 < E + 5e6) {
			double t = 1e9 + next_sync * 10e6;
			struct kprof_rec_sync s = { .hdr = { KPROF_REC_SYNC, sizeof(s), 0 },
				.host_before_ns = (uint64_t)(t - 150 - (next_sync % 7) * 20),
				.device_cycles = (uint64_t)dev_of_host(t),
				.host_after_ns = (uint64_t)(t + 150 + (next_sync % 5) * 20) };
			put(d, &s, sizeof(s));
			next_sync++;
		}
		snprintf(op.name, sizeof(op.name), i % 2 ? "matmul" : "softmax, fused");
		put(d, &op, sizeof(op));
		for (uint16_t c = 0; c < 4; c++)
			for (uint8_t r = 0; r < 2; r++) {
				double off = c * 1000 + r * 100;	/* core 0 BRISC first */

				struct kprof_spool_writer *to = late && c == 1 && r == 1 ? NULL : d;

				marker(to, held, &nheld, (uint32_t)i, c, r, KPROF_MARK_FW_START,
				       S + off);
				marker(to, held, &nheld, (uint32_t)i, c, r, KPROF_MARK_KERNEL_START,
				       S + off + 1000);
				marker(to, held, &nheld, (uint32_t)i, c, r, KPROF_MARK_KERNEL_END,
				       E - (3 - c) * 1000 - (1 - r) * 100 - r * 500 - 1000);
				marker(to, held, &nheld, (uint32_t)i, c, r, KPROF_MARK_FW_END,
				       E - (3 - c) * 1000 - (1 - r) * 100);
			}
		for (uint32_t c = 0; c < 4; c++) {
			struct { struct kprof_rec_counters c; uint64_t v[2]; } cr = {
				.c = { .hdr = { KPROF_REC_COUNTERS, sizeof(cr), 0 },
				       .op_seq = (uint64_t)i, .counter_mask = 3, .core = c },
				.v = { 1000u * (uint64_t)i + c, 64u * (c + 1) } };
			put(d, &cr, sizeof(cr));
		}
		if (i == 10) {
			struct kprof_rec_lost l = { .hdr = { KPROF_REC_LOST, sizeof(l), 0 },
				.core = 1, .risc = 0, .count = 3, .first_op_seq = 10,
				.last_op_seq = 10, .timestamp = (uint64_t)dev_of_host(E) };

			if (late)
				held_lost = l;
			else
				put(d, &l, sizeof(l));
		}
	}
	for (int k = 0; k < nheld; k++)
		put(d, &held[k], sizeof(held[k]));
	if (late)
		put(d, &held_lost, sizeof(held_lost));
	KT_CHECK(kprof_spool_close(d, &err) == 0, "close d");
	KT_CHECK(kprof_spool_close(h, &err) == 0, "close h");
}

static const char *line_n(const char *s, int n, char *out, size_t len)
{
	for (int i = 0; i < n && s; i++) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	out[0] = '\0';
	if (s) {
		size_t k = strcspn(s, "\n");

		snprintf(out, len, "%.*s", (int)(k < len ? k : len - 1), s);
	}
	return out;
}

/* field k (0-based) of a simple CSV line, quotes respected */
static void field(const char *line, int k, char *out, size_t len)
{
	int i = 0, q = 0;
	size_t o = 0;

	for (; *line; line++) {
		if (*line == '"') {
			q = !q;
			continue;
		}
		if (*line == ',' && !q) {
			if (i++ == k)
				break;
			continue;
		}
		if (i == k && o + 1 < len)
			out[o++] = *line;
	}
	out[o] = '\0';
}

static int col(const char *header, const char *name)
{
	char f[96];

	for (int k = 0; k < 64; k++) {
		field(header, k, f, sizeof(f));
		if (!strcmp(f, name))
			return k;
	}
	return -1;
}

static int64_t param_int(const char *dir, const char *ptr)
{
	char p[512];
	json_object *root, *v;
	int64_t r = -1;

	snprintf(p, sizeof(p), "%s/params.json", dir);
	root = json_object_from_file(p);
	if (root && json_pointer_get(root, ptr, &v) == 0)
		r = json_object_get_int64(v);
	json_object_put(root);
	return r;
}

/*
 * One RISC's records reach the spool up to 1 s late (make_capture's
 * late): pass 1 measures that and the slack covers it, so ops.csv is the
 * in-order capture's byte for byte and nothing counts as late. With the
 * fixed 200 ms slack of before, the same spool gives late data.
 */
static void late_stream(const char *inorder_ops)
{
	char *dir = kt_tmpdir(), p[512], out[400], *ops;
	struct kprof_report_result res;
	struct kprof_err err;
	struct kprof_report_opts fixed = { .slack_ns = 200000000 };
	int64_t slack;

	make_capture(dir, 1);
	KT_CHECK(kprof_report_build(dir, NULL, NULL, &res, &err) == 0, "late: %s", err.msg);
	KT_EQ_U64(res.ops, NOPS);
	KT_EQ_U64(res.lost_markers, 3);
	snprintf(p, sizeof(p), "%s/ops.csv", dir);
	ops = kt_slurp(p, NULL);
	KT_CHECK(ops && inorder_ops && !strcmp(ops, inorder_ops),
		 "late stream: ops.csv is the in-order capture's");
	free(ops);
	KT_EQ_U64(param_int(dir, "/stats/late_markers"), 0);
	KT_EQ_U64(param_int(dir, "/stats/late_lost_markers"), 0);
	/* op 1 dispatched at 1.02 s; its held records come after 2.0 s */
	KT_EQ_U64(param_int(dir, "/aggregation/max_record_lag_op"), 1);
	KT_CHECK(param_int(dir, "/aggregation/max_record_lag_ns") > 950000000 &&
		 param_int(dir, "/aggregation/max_record_lag_ns") < 1050000000,
		 "lag %lld", (long long)param_int(dir, "/aggregation/max_record_lag_ns"));
	slack = param_int(dir, "/aggregation/slack_ns");
	KT_CHECK(slack > 1200000000 && slack < 1400000000, "slack %lld", (long long)slack);

	snprintf(out, sizeof(out), "%s/fixed", dir);
	KT_CHECK(report_to(dir, out, &fixed, &res, &err) == 0, "fixed: %s", err.msg);
	KT_CHECK(param_int(out, "/stats/late_markers") > 0 &&
		 param_int(out, "/stats/late_lost_markers") == 3,
		 "a fixed 200 ms slack makes the held records late");
	KT_EQ_U64(param_int(out, "/aggregation/slack_ns"), 200000000);
	kt_rmrf(dir);
}

static off_t file_size(const char *dir, const char *name)
{
	char p[600];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) ? -1 : st.st_size;
}

/* every output of the reports in a and b, byte for byte */
static void same_outputs(const char *a, const char *b, const char *what)
{
	static const char *const names[] = { "ops.csv", "counters.csv", "host_events.csv",
		"device_log.csv", "trace.json", "report.html", "summary.txt", "params.json",
		"bubbles.csv", "report.md" };

	kt_same_files(a, b, names, ARRAY_SIZE(names), 0, what);
}

/* the device spool's index moved to the side (back: restore) */
static void index_aside(const char *dir, int restore)
{
	char p[400], q[400];

	snprintf(p, sizeof(p), "%s/%s", dir, KPROF_SPOOL_INDEX_FILE);
	snprintf(q, sizeof(q), "%s/kidx.aside", dir);
	KT_CHECK(rename(restore ? q : p, restore ? p : q) == 0, "index %s", restore ? "back" :
		 "aside");
}

/* a report of dir into dir/name: how many times it read the device spool */
static uint32_t reads_of(const char *dir, const char *name)
{
	char out[400];
	struct kprof_report_result res = { 0 };
	struct kprof_err err;

	snprintf(out, sizeof(out), "%s/%s", dir, name);
	KT_CHECK(report_to(dir, out, NULL, &res, &err) == 0, "%s: %s", name, err.msg);
	return res.spool_reads;
}

/*
 * The device spool's index (raw/device.kidx) lets a report read the spool
 * once, with the outputs of two reads; an index that is unfinished, not
 * whole or not the spool's is not used; a capture whose lateness needs
 * more than the slack assumed is made again with the right one.
 */
static void spool_index(void)
{
	char *dir = kt_tmpdir(), p[400], a[400], b[400];
	struct kprof_spool_hdr h;
	uint64_t zero = 0, covers;
	struct stat st;
	off_t isz;
	int fd;

	make_capture(dir, 0);
	snprintf(p, sizeof(p), "%s/%s", dir, KPROF_SPOOL_DEVICE_FILE);
	KT_CHECK(stat(p, &st) == 0, "device spool");
	snprintf(p, sizeof(p), "%s/%s", dir, KPROF_SPOOL_INDEX_FILE);
	fd = open(p, O_RDWR);
	KT_CHECK(fd >= 0 && pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h), "index header");
	KT_EQ_U64(h.kind, KPROF_SPOOL_INDEX);
	KT_EQ_U64(h.covers_bytes, (uint64_t)st.st_size - sizeof(h));
	covers = h.covers_bytes;

	KT_EQ_U64(reads_of(dir, "one"), 1);
	index_aside(dir, 0);
	KT_EQ_U64(reads_of(dir, "two"), 2);
	index_aside(dir, 1);
	snprintf(a, sizeof(a), "%s/one", dir);
	snprintf(b, sizeof(b), "%s/two", dir);
	same_outputs(a, b, "index");

	/* unfinished (the capture stopped before its end) */
	KT_CHECK(pwrite(fd, &zero, 8, offsetof(struct kprof_spool_hdr, covers_bytes)) == 8,
		 "unfinish");
	KT_EQ_U64(reads_of(dir, "unfinished"), 2);
	KT_CHECK(pwrite(fd, &covers, 8, offsetof(struct kprof_spool_hdr, covers_bytes)) == 8,
		 "finish");
	/* another device's header */
	h.device.device_id = 9;
	KT_CHECK(pwrite(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h), "other header");
	KT_EQ_U64(reads_of(dir, "other"), 2);
	h.device.device_id = 0;
	KT_CHECK(pwrite(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h), "header back");
	KT_EQ_U64(reads_of(dir, "again"), 1);
	/* not whole: a record cut short at its end */
	isz = lseek(fd, 0, SEEK_END);
	KT_CHECK(pwrite(fd, "\5\0\40\0", 4, isz) == 4, "cut");
	KT_EQ_U64(reads_of(dir, "cut"), 2);
	KT_CHECK(ftruncate(fd, isz) == 0, "uncut");
	KT_EQ_U64(reads_of(dir, "whole"), 1);
	close(fd);
	/* the spool is longer than the index says: a PAD record added */
	{
		struct kprof_rec_hdr pad = { KPROF_REC_PAD, sizeof(pad), 0 };

		snprintf(p, sizeof(p), "%s/%s", dir, KPROF_SPOOL_DEVICE_FILE);
		fd = open(p, O_WRONLY | O_APPEND);
		KT_CHECK(fd >= 0 && write(fd, &pad, sizeof(pad)) == (ssize_t)sizeof(pad), "pad");
		close(fd);
		KT_EQ_U64(reads_of(dir, "longer"), 2);
	}
	kt_rmrf(dir);

	/*
	 * lateness past the slack assumed: pass 2 once more (two reads, as
	 * without the index), the same outputs; with a slack given, once
	 */
	dir = kt_tmpdir();
	make_capture(dir, 1);
	KT_EQ_U64(reads_of(dir, "one"), 2);
	{
		struct kprof_report_opts fixed = { .slack_ns = 200000000 };
		struct kprof_report_result res;
		struct kprof_err err;

		snprintf(a, sizeof(a), "%s/fixed", dir);
		KT_CHECK(report_to(dir, a, &fixed, &res, &err) == 0, "fixed: %s", err.msg);
		KT_EQ_U64(res.spool_reads, 1);
	}
	index_aside(dir, 0);
	KT_EQ_U64(reads_of(dir, "two"), 2);
	snprintf(a, sizeof(a), "%s/one", dir);
	snprintf(b, sizeof(b), "%s/two", dir);
	same_outputs(a, b, "late");
	kt_rmrf(dir);
}

/*
 * A write of device_log.csv that fails (here the file size limit: EFBIG,
 * the limit set above every other output and below device_log.csv)
 * fails the report with the file's name and the reason, and leaves no
 * part of it: its rows go to the file's descriptor, not through stdio.
 */
static void devlog_write_fails(const char *dir)
{
	static const char *const others[] = { "ops.csv", "counters.csv", "host_events.csv",
		"trace.json", "report.html", "summary.txt", "params.json", "bubbles.csv" };
	char ok[400], out[400];
	struct kprof_err err;
	off_t limit = 0;
	int st = -1;
	pid_t pid;

	snprintf(ok, sizeof(ok), "%s/fsize-ok", dir);
	snprintf(out, sizeof(out), "%s/fsize", dir);
	KT_CHECK(report_to(dir, ok, NULL, NULL, &err) == 0, "report: %s", err.msg);
	for (size_t i = 0; i < ARRAY_SIZE(others); i++)
		if (file_size(ok, others[i]) > limit)
			limit = file_size(ok, others[i]);
	limit += 4096;
	KT_CHECK(file_size(ok, "device_log.csv") > limit + 4096,
		 "device_log.csv (%lld bytes) is the largest output by far (limit %lld)",
		 (long long)file_size(ok, "device_log.csv"), (long long)limit);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { (rlim_t)limit, (rlim_t)limit };

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(2);
		if (report_to(dir, out, NULL, NULL, &err) == 0)
			_exit(3);
		fprintf(stderr, "(expected) %s\n", err.msg);
		if (!strstr(err.msg, "device_log.csv") || !strstr(err.msg, strerror(EFBIG)))
			_exit(4);
		_exit(0);
	}
	KT_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		 WEXITSTATUS(st) == 0, "report over the size limit: status %#x", st);
	KT_CHECK(file_size(out, "device_log.csv") < 0, "no device_log.csv left");
	{
		DIR *d = opendir(out);
		struct dirent *e;
		int tmp = 0;

		while (d && (e = readdir(d)))
			tmp += !strncmp(e->d_name, ".", 1) && strcmp(e->d_name, ".") &&
			       strcmp(e->d_name, "..");
		if (d)
			closedir(d);
		KT_CHECK(d && tmp == 0, "%d temporary files left in %s", tmp, out);
	}
}

int main(void)
{
	char *dir = kt_tmpdir(), p[512], out2[300], l[2048], hdr[2048], f[128];
	char *ops, *ops2, *s;
	struct kprof_err err;
	struct kprof_report_result res;
	struct kprof_report_opts again = { .version = "test" };
	double bound;
	struct kprof_report_opts opts = {
		.config_json = "{ \"cmd\": [ \"./workload\", \"-n\", \"50\" ] }",
		.version = "test"
	};

	make_capture(dir, 0);
	KT_CHECK(kprof_report_build(dir, NULL, &opts, &res, &err) == 0, "report: %s", err.msg);
	KT_EQ_U64(res.ops, NOPS);
	KT_EQ_U64(res.markers, NOPS * 32);
	KT_EQ_U64(res.lost_markers, 3);
	KT_CHECK(res.sync_err_bound_ns < 1000, "bound %.1f", res.sync_err_bound_ns);
	bound = res.sync_err_bound_ns + 1;

	snprintf(p, sizeof(p), "%s/ops.csv", dir);
	ops = kt_slurp(p, NULL);
	KT_CHECK(ops, "ops.csv");
	if (!ops)
		return kt_done("test_report");
	line_n(ops, 0, hdr, sizeof(hdr));
	KT_STR(hdr,
	       "OP CODE,GLOBAL CALL COUNT,DEVICE ID,CORE COUNT,HOST START TS,HOST END TS,HOST DURATION [ns],DEVICE FW START CYCLE,DEVICE FW END CYCLE,OP TO OP LATENCY [ns],DEVICE FW DURATION [ns],DEVICE KERNEL DURATION [ns],DEVICE KERNEL DURATION PER CORE MIN [ns],DEVICE KERNEL DURATION PER CORE MAX [ns],DEVICE KERNEL DURATION PER CORE AVG [ns],DEVICE BRISC KERNEL DURATION [ns],DEVICE NCRISC KERNEL DURATION [ns],DEVICE FW START TS [ns],DEVICE FW END TS [ns],LAUNCH TO START [ns],SYNC WAIT [ns],SYNC END TS [ns],DEVICE CLOCK [MHz],MARKERS,MARKERS LOST,ZONE MARKERS");
	{
		int n = 0;

		for (s = ops; (s = strchr(s, '\n')); s++)
			n++;
		KT_EQ_U64(n, NOPS + 1);
	}
	/* op 7 (line 7): FW is host 1 ms + 7 us long; device times convert
	 * back through the fit, so durations come out in host ns
	 */
	line_n(ops, 7, l, sizeof(l));
	field(l, 0, f, sizeof(f));
	KT_STR(f, "matmul");
	field(l, col(hdr, "GLOBAL CALL COUNT"), f, sizeof(f));
	KT_STR(f, "7");
	field(l, col(hdr, "CORE COUNT"), f, sizeof(f));
	KT_STR(f, "4");
	field(l, col(hdr, "HOST START TS"), f, sizeof(f));
	KT_EQ_U64(strtoull(f, NULL, 10), (uint64_t)launch_at(7));
	field(l, col(hdr, "HOST DURATION [ns]"), f, sizeof(f));
	KT_STR(f, "4000");
	field(l, col(hdr, "DEVICE FW DURATION [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), fw_len(7), 15);
	/* kernel: first start S + 1000 (core 0 BRISC), last end E - 1100
	 * (core 3 BRISC; NCRISC ends 500 earlier)
	 */
	field(l, col(hdr, "DEVICE KERNEL DURATION [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), fw_len(7) - 2100, 15);
	/* per core: from S + c*1000 + 1000 to E - (3-c)*1000 - 1100, i.e.
	 * fw_len - 5100 on every core (test_agg covers unequal cores)
	 */
	field(l, col(hdr, "DEVICE KERNEL DURATION PER CORE MIN [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), fw_len(7) - 5100, 15);
	field(l, col(hdr, "DEVICE KERNEL DURATION PER CORE MAX [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), fw_len(7) - 5100, 15);
	field(l, col(hdr, "DEVICE KERNEL DURATION PER CORE AVG [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), fw_len(7) - 5100, 15);
	/* per RISC: BRISC S+1000 .. E-1100; NCRISC S+1100 .. E-1500 */
	field(l, col(hdr, "DEVICE BRISC KERNEL DURATION [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), fw_len(7) - 2100, 15);
	field(l, col(hdr, "DEVICE NCRISC KERNEL DURATION [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), fw_len(7) - 2600, 15);
	/* absolute times: within the fit's error bound (sync reads here have
	 * up to +-60 ns asymmetric jitter)
	 */
	field(l, col(hdr, "LAUNCH TO START [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), 50e3, bound);
	field(l, col(hdr, "SYNC WAIT [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), 50e3 + fw_len(7) + 20e3 - 6000, 1);
	field(l, col(hdr, "OP TO OP LATENCY [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), 20e6 - fw_len(6), 2 * bound);
	field(l, col(hdr, "DEVICE FW START TS [ns]"), f, sizeof(f));
	KT_NEAR(atof(f), launch_at(7) + 50e3, bound);
	field(l, col(hdr, "DEVICE CLOCK [MHz]"), f, sizeof(f));
	KT_STR(f, "1000");
	/* op 10 lost 3 markers; op names with a comma are quoted */
	line_n(ops, 10, l, sizeof(l));
	KT_CHECK(!strncmp(l, "\"softmax, fused\",10,", 20), "quoted op code: %s", l);
	field(l, col(hdr, "MARKERS LOST"), f, sizeof(f));
	KT_STR(f, "3");

	/* counters.csv golden lines */
	snprintf(p, sizeof(p), "%s/counters.csv", dir);
	s = kt_slurp(p, NULL);
	KT_CHECK(s && !strncmp(s, "GLOBAL CALL COUNT,OP CODE,COUNTER,UNIT,CORES,MIN,MAX,SUM\n"
			       "1,matmul,busy_cycles,cycles,4,1000,1003,4006\n"
			       "1,matmul,bytes_read,bytes,4,64,256,640\n", 140),
		 "counters.csv: %.200s", s ? s : "(none)");
	free(s);

	/* host_events.csv golden */
	snprintf(p, sizeof(p), "%s/host_events.csv", dir);
	s = kt_slurp(p, NULL);
	KT_CHECK(s && !strncmp(s,
			       "ROLE,PID,TID,COMM,CMD,ENTER TS [ns],EXIT TS [ns],DURATION [ns],RET,SEQ\n"
			       "launch,42,43,workload,0xc0184b01,1020000000,1020004000,4000,0,1\n",
			       130),
		 "host_events.csv: %.200s", s ? s : "(none)");
	free(s);

	/* device_log.csv: tt-metal layout, CHIP_FREQ = reference timer rate */
	snprintf(p, sizeof(p), "%s/device_log.csv", dir);
	s = kt_slurp(p, NULL);
	if (s) {
		line_n(s, 0, l, sizeof(l));
		KT_STR(l, "ARCH: kprof, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 4");
		line_n(s, 1, l, sizeof(l));
		KT_STR(l,
		       "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID, trace id, trace id counter, zone name, type, source line, source file, meta data");
		line_n(s, 2, l, sizeof(l));
		KT_CHECK(!strncmp(l, "0,0,0,BRISC,0,", 14) &&
			 strstr(l, ",0,1,,,BRISC-FW,ZONE_START,0,,"),
			 "device_log row: %s", l);
		/* core 3 of a 2x2 grid is x=1, y=1 */
		KT_CHECK(strstr(s, "\n0,1,1,NCRISC,"), "core 3 coordinates");
		free(s);
	}
	/* the device log we write is one tt-metal tools (and we) can read */
	snprintf(out2, sizeof(out2), "%s/fromlog", dir);
	{
		struct kprof_outdir *od = kprof_outdir_open(out2, 0, (uid_t)-1, (gid_t)-1, &err);

		KT_CHECK(od && kprof_report_ttmetal(p, od, NULL, &res, &err) == 0, "reparse: %s",
			 err.msg);
		kprof_outdir_close(od);
	}
	KT_EQ_U64(res.ops, NOPS);

	/* params.json: config, fit, device */
	snprintf(p, sizeof(p), "%s/params.json", dir);
	{
		json_object *root = json_object_from_file(p), *v;

		KT_CHECK(root, "params.json parses");
		KT_CHECK(root && json_pointer_get(root, "/time_sync/fit/method", &v) == 0 &&
			 !strcmp(json_object_get_string(v), "piecewise"), "fit method");
		KT_CHECK(root && json_pointer_get(root, "/time_sync/fit/drift_ppm", &v) == 0 &&
			 fabs(json_object_get_double(v) - 100) < 5, "drift ppm");
		KT_CHECK(root && json_pointer_get(root, "/config/cmd/0", &v) == 0 &&
			 !strcmp(json_object_get_string(v), "./workload"), "config");
		KT_CHECK(root && json_pointer_get(root, "/device/risc_names/1", &v) == 0 &&
			 !strcmp(json_object_get_string(v), "NCRISC"), "risc names");
		KT_CHECK(root && json_pointer_get(root, "/stats/lost_markers", &v) == 0 &&
			 json_object_get_int(v) == 3, "lost");
		KT_CHECK(root && json_pointer_get(root, "/capture_states/0/reason", &v) == 0 &&
			 !strcmp(json_object_get_string(v), "start"), "states");
		json_object_put(root);
	}
	snprintf(p, sizeof(p), "%s/summary.txt", dir);
	s = kt_slurp(p, NULL);
	KT_CHECK(s && strstr(s, "markers lost (LOST records): 3 in 1 records") &&
		 strstr(s, "method: piecewise") && strstr(s, "at capture start: 1000 MHz, locked"),
		 "summary: %s", s ? s : "");
	free(s);

	/* re-made report (no config given: raw/config.json) is byte-identical */
	snprintf(out2, sizeof(out2), "%s/again", dir);
	KT_CHECK(report_to(dir, out2, &again, &res, &err) == 0, "again: %s", err.msg);
	snprintf(p, sizeof(p), "%s/ops.csv", out2);
	ops2 = kt_slurp(p, NULL);
	KT_CHECK(ops2 && !strcmp(ops, ops2), "ops.csv differs when re-made");
	free(ops2);
	{
		static const char *const names[] = { "counters.csv", "device_log.csv",
			"host_events.csv", "params.json", "summary.txt", "trace.json" };

		for (int i = 0; i < 6; i++) {
			char a[600], b[600];
			char *x, *y;

			snprintf(a, sizeof(a), "%s/%s", dir, names[i]);
			snprintf(b, sizeof(b), "%s/%s", out2, names[i]);
			x = kt_slurp(a, NULL);
			y = kt_slurp(b, NULL);
			KT_CHECK(x && y && !strcmp(x, y), "%s differs when re-made", names[i]);
			free(x);
			free(y);
		}
	}

	/* trace.json: valid JSON; 4 core slices per op; launch and sync
	 * slices; one flow (s + f) per op; a core group option
	 */
	for (int g = 1; g <= 2; g++) {
		struct kprof_report_opts to = { .trace_group = (unsigned int)g };
		json_object *root, *evs;
		int x_dev = 0, x_host = 0, fs = 0, ff = 0, names = 0, clocks = 0;

		snprintf(out2, sizeof(out2), "%s/trace%d", dir, g);
		KT_CHECK(report_to(dir, out2, &to, &res, &err) == 0, "trace: %s", err.msg);
		snprintf(p, sizeof(p), "%s/trace.json", out2);
		root = json_object_from_file(p);
		KT_CHECK(root && json_object_object_get_ex(root, "traceEvents", &evs),
			 "trace.json parses (group %d)", g);
		if (!root)
			continue;
		json_object_object_get_ex(root, "traceEvents", &evs);
		for (size_t i = 0; i < json_object_array_length(evs); i++) {
			json_object *e = json_object_array_get_idx(evs, i), *v;
			const char *ph;
			int pid;

			json_object_object_get_ex(e, "ph", &v);
			ph = json_object_get_string(v);
			json_object_object_get_ex(e, "pid", &v);
			pid = json_object_get_int(v);
			if (!strcmp(ph, "X") && pid == 1)
				x_dev++;
			else if (!strcmp(ph, "X") && pid == 2)
				x_host++;
			else if (!strcmp(ph, "s"))
				fs++;
			else if (!strcmp(ph, "f"))
				ff++;
			else if (!strcmp(ph, "M"))
				names++;
			else if (!strcmp(ph, "C") &&
				 json_object_object_get_ex(e, "name", &v) &&
				 !strcmp(json_object_get_string(v), "clock MHz"))
				clocks++;	/* the other counter is busy % */
		}
		KT_EQ_U64(x_dev, NOPS * 4 / g);
		KT_EQ_U64(x_host, NOPS * 2);
		KT_EQ_U64(fs, NOPS);
		KT_EQ_U64(ff, NOPS);
		/* process names 2, thread name + sort index per track, host thread */
		KT_EQ_U64(names, 2 + 2 * 4 / g + 1);
		KT_EQ_U64(clocks, 1);
		json_object_put(root);
	}
	/*
	 * The capture's trace_group (config, as kprofctl capture --trace-group
	 * saves it) is what a report without the option uses: the same bytes
	 * as with the option; the option wins (1: per core, with the zone
	 * head again).
	 */
	{
		struct kprof_report_opts cg = { .config_json = "{ \"trace_group\": 2 }" },
					 c1 = { .config_json = "{ \"trace_group\": 2 }",
						.trace_group = 1 };
		char *x, *y, *z;

		snprintf(out2, sizeof(out2), "%s/cfg-group", dir);
		KT_CHECK(report_to(dir, out2, &cg, &res, &err) == 0, "cfg group: %s",
			 err.msg);
		snprintf(out2, sizeof(out2), "%s/cfg-group1", dir);
		KT_CHECK(report_to(dir, out2, &c1, &res, &err) == 0, "cfg group 1: %s",
			 err.msg);
		snprintf(p, sizeof(p), "%s/cfg-group/trace.json", dir);
		x = kt_slurp(p, NULL);
		snprintf(p, sizeof(p), "%s/trace2/trace.json", dir);
		y = kt_slurp(p, NULL);
		snprintf(p, sizeof(p), "%s/cfg-group1/trace.json", dir);
		z = kt_slurp(p, NULL);
		KT_CHECK(x && y && !strcmp(x, y),
			 "config trace_group 2 gives the --trace-group 2 trace byte for byte");
		KT_CHECK(x && strstr(x, "\"zone_slices\":\"omitted: cores grouped by 2\"") &&
			 strstr(x, "\"name\":\"cores 2-3\""), "config trace_group 2: group tracks");
		KT_CHECK(z && strstr(z, "\"zone_slices\":\"per core and RISC\"") &&
			 strstr(z, "\"name\":\"core 3 (1,1)\""),
			 "option trace_group 1 wins over the config's 2");
		free(x);
		free(y);
		free(z);
	}
	/* a slice of op 7 on core 0: ts = FW start in us, dur = core 0's span */
	{
		char *tj;

		snprintf(p, sizeof(p), "%s/trace.json", dir);
		tj = kt_slurp(p, NULL);
		KT_CHECK(tj && strstr(tj, MATMUL_SLICE_PREFIX),
			 "trace slice golden prefix");
		KT_CHECK(tj &&
			 strstr(tj,
				"\"name\":\"thread_name\",\"args\":{\"name\":\"core 3 (1,1)\"}"),
			 "core track named with grid coordinates");
		free(tj);
	}

	/* --op-filter: from the caller, or from the saved capture config */
	{
		struct kprof_report_opts fo = { .op_filter = "soft*" };
		char *x;
		int n = 0;

		snprintf(out2, sizeof(out2), "%s/filtered", dir);
		KT_CHECK(report_to(dir, out2, &fo, &res, &err) == 0, "filter: %s", err.msg);
		KT_EQ_U64(res.ops, NOPS / 2);
		KT_EQ_U64(res.ops_filtered, NOPS / 2);
		snprintf(p, sizeof(p), "%s/ops.csv", out2);
		x = kt_slurp(p, NULL);
		for (s = x; s && (s = strstr(s, "\n\"softmax, fused\",")); s++)
			n++;
		KT_EQ_U64(n, NOPS / 2);
		KT_CHECK(x && !strstr(x, "\nmatmul,"), "matmul rows filtered out");
		free(x);
		fo.op_filter = NULL;
		fo.config_json = "{ \"op_filter\": \"mat*\" }";
		KT_CHECK(report_to(dir, out2, &fo, &res, &err) == 0, "filter: %s", err.msg);
		KT_EQ_U64(res.ops_filtered, NOPS / 2);
		/* a report elsewhere left raw/config.json alone */
		KT_CHECK(report_to(dir, out2, NULL, &res, &err) == 0, "filter: %s", err.msg);
		KT_EQ_U64(res.ops_filtered, 0);
		/* the capture's own report saves the config; a later report
		 * (as `kprofctl report DIR -o X`) applies its filter again
		 */
		KT_CHECK(kprof_report_build(dir, NULL, &fo, &res, &err) == 0,
			 "filter: %s", err.msg);
		KT_CHECK(report_to(dir, out2, NULL, &res, &err) == 0, "filter: %s", err.msg);
		KT_EQ_U64(res.ops_filtered, NOPS / 2);
		snprintf(p, sizeof(p), "%s/summary.txt", out2);
		x = kt_slurp(p, NULL);
		KT_CHECK(x && strstr(x, "op filter 'mat*': 25 ops left out"), "summary filter");
		free(x);
	}

	/* garbage: random bytes flipped in the device spool's records; the
	 * report either works or says what is wrong, never crashes
	 */
	{
		char sp[600], bak[700], fz[400];
		size_t len;
		char *orig;
		uint64_t x = 0x2545F4914F6CDD1DULL;
		int ok = 0, bad = 0;

		snprintf(sp, sizeof(sp), "%s/%s", dir, KPROF_SPOOL_DEVICE_FILE);
		snprintf(bak, sizeof(bak), "%s.orig", sp);
		orig = kt_slurp(sp, &len);
		KT_CHECK(orig && rename(sp, bak) == 0, "backup spool");
		snprintf(fz, sizeof(fz), "%s/fuzz", dir);
		for (int round = 0; orig && round < 60; round++) {
			char *buf = malloc(len);
			FILE *fo;

			memcpy(buf, orig, len);
			for (int k = 0; k < 1 + round % 8; k++) {
				size_t at;

				x ^= x << 13; x ^= x >> 7; x ^= x << 17;
				at = sizeof(struct kprof_spool_hdr) +
				     (size_t)(x % (len - sizeof(struct kprof_spool_hdr)));
				buf[at] = (char)(x >> 32);
			}
			fo = fopen(sp, "wb");
			fwrite(buf, 1, len, fo);
			fclose(fo);
			free(buf);
			if (report_to(dir, fz, &again, &res, &err) == 0)
				ok++;
			else if (err.msg[0])
				bad++;
		}
		printf("fuzzed spools: %d reports, %d clear errors\n", ok, bad);
		KT_EQ_U64(ok + bad, 60);
		KT_CHECK(orig && rename(bak, sp) == 0, "restore spool");
		free(orig);
	}

	/* crash mid-write: cut the device spool inside its last record */
	{
		int fd;
		off_t sz;

		snprintf(p, sizeof(p), "%s/%s", dir, KPROF_SPOOL_DEVICE_FILE);
		fd = open(p, O_RDWR);
		sz = lseek(fd, 0, SEEK_END);
		KT_CHECK(ftruncate(fd, sz - 12) == 0, "truncate");
		close(fd);
		snprintf(out2, sizeof(out2), "%s/cut", dir);
		KT_CHECK(report_to(dir, out2, NULL, &res, &err) == 0, "cut: %s", err.msg);
		KT_EQ_U64(res.ops + res.ops_filtered, NOPS);
		KT_CHECK(res.truncated_bytes > 0, "truncation reported");
		snprintf(p, sizeof(p), "%s/summary.txt", out2);
		s = kt_slurp(p, NULL);
		KT_CHECK(s && strstr(s, "capture ended mid-write"), "summary says so");
		free(s);
	}
	devlog_write_fails(dir);
	/* no spool: a clear error */
	KT_CHECK(kprof_report_build("/nonexistent-kprof", NULL, NULL, &res, &err) < 0 &&
		 strstr(err.msg, "device.kspool"), "missing spool: %s", err.msg);
	late_stream(ops);
	spool_index();
	free(ops);
	kt_rmrf(dir);
	return kt_done("test_report");
}
