// SPDX-License-Identifier: GPL-2.0
/*
 * report.html of `kprofctl report --from-ttmetal` (kprof_report_ttmetal
 * writes it last) on the real tt-metal logs
 * in $KPROF_TTMETAL_DATA: ops and kinds as in the ops.csv written beside
 * it, device lanes from trace.json's core tracks, no host lanes and no
 * host times (the log has none), every op in the slowest-ops table, the
 * same bytes when re-made.
 */
#include "kt.h"
#include "kprof_csvread.h"
#include "kprof_html.h"
#include "kprof_outdir.h"
#include "kprof_report.h"

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static char *make(const char *log, const char *out)
{
	struct kprof_report_result res;
	struct kprof_err err = { 0 };
	char path[600];

	struct kprof_outdir *od = kprof_outdir_open(out, 0, (uid_t)-1, (gid_t)-1, &err);

	KT_CHECK(od && kprof_report_ttmetal(log, od, NULL, &res, &err) == 0, "%s: %s", log,
		 err.msg);
	kprof_outdir_close(od);
	snprintf(path, sizeof(path), "%s/report.html", out);
	return kt_slurp(path, NULL);
}

static void check_log(const char *dd, const char *name, const char *dir)
{
	char log[600], out[600], out2[600], path[700], want[256];
	struct kprof_csv_table ops;
	struct kprof_err err = { 0 };
	char *html, *again, *trace;
	size_t kinds = 0, ntr, per, lanes, slow = 0;
	size_t nk = 0;
	int c_op, c_seq, c_k;

	snprintf(log, sizeof(log), "%s/%s", dd, name);
	snprintf(out, sizeof(out), "%s/%s.a", dir, name);
	snprintf(out2, sizeof(out2), "%s/%s.b", dir, name);
	html = make(log, out);
	KT_CHECK(html, "%s: report.html written", name);
	snprintf(path, sizeof(path), "%s/ops.csv", out);
	if (!html || kprof_csv_load(path, &ops, &err)) {
		KT_CHECK(0, "%s: ops.csv: %s", name, err.msg);
		free(html);
		return;
	}
	c_op = kprof_csv_col(&ops, "OP CODE");
	c_seq = kprof_csv_col(&ops, "GLOBAL CALL COUNT");
	c_k = kprof_csv_col(&ops, "DEVICE KERNEL DURATION [ns]");
	KT_CHECK(ops.nrows > 0 && c_op >= 0 && c_seq >= 0 && c_k >= 0, "%s: ops.csv has ops",
		 name);
	if (c_op < 0 || c_seq < 0 || c_k < 0) {
		free(html);
		kprof_csv_free(&ops);
		return;
	}
	for (size_t r = 0; r < ops.nrows; r++) {
		size_t j;

		for (j = 0; j < r && strcmp(ops.rows[j][c_op], ops.rows[r][c_op]); j++)
			;
		kinds += j == r;
	}
	snprintf(want, sizeof(want), "<p>%zu ops in ops.csv, %zu op kinds.", ops.nrows, kinds);
	KT_CHECK(strstr(html, want), "%s: '%s'", name, want);
	/* slowest ops: every op with a kernel time (<= 20 here), by its
	 * GLOBAL CALL COUNT (the smoke log's last op has no zone ends)
	 */
	for (size_t r = 0; r < ops.nrows; r++) {
		if (!ops.rows[r][c_k][0])
			continue;
		nk++;
		snprintf(want, sizeof(want), "<tr><td>%s</td>", ops.rows[r][c_seq]);
		slow += !!strstr(html, want);
	}
	KT_CHECK(nk > 0 && nk <= 20, "%s: %zu ops with a kernel time", name, nk);
	KT_EQ_U64(slow, nk);
	KT_EQ_U64(count(html, "<table id=\"slowest\">"), 1);
	/* lanes: trace.json's core tracks, at most 16 lanes of consecutive ones */
	snprintf(path, sizeof(path), "%s/trace.json", out);
	trace = kt_slurp(path, NULL);
	/* metadata of pid 1: process_name, then thread_name and
	 * thread_sort_index per track
	 */
	ntr = trace ? (count(trace, "{\"ph\":\"M\",\"pid\":1,") - 1) / 2 : 0;
	per = (ntr + KPROF_HTML_DEV_LANES - 1) / KPROF_HTML_DEV_LANES;
	lanes = per ? (ntr + per - 1) / per : 0;
	KT_CHECK(ntr > 0, "%s: trace.json has core tracks", name);
	KT_CHECK(strstr(html, "Device lanes: trace.json device tracks"),
		 "%s: device lanes from trace.json", name);
	KT_EQ_U64(count(html, "<text class=\"lane\""), lanes);
	KT_CHECK(count(html, "<rect ") > 0, "%s: timeline has slices", name);
	KT_CHECK(strstr(html, "Host lanes: none (no host_events.csv: the input has no host data"),
		 "%s: says there is no host data", name);
	KT_CHECK(!strstr(html, ">launch ") && !strstr(html, ">sync "), "%s: no host lanes", name);
	KT_CHECK(!strstr(html, "\"mean_host\""), "%s: no host times in the kinds JSON", name);
	KT_CHECK(strstr(html, "kprof report from a tt-metal device log"),
		 "%s: summary.txt embedded", name);
	again = make(log, out2);
	KT_CHECK(again && !strcmp(html, again), "%s: byte-identical when re-made", name);
	free(again);
	free(trace);
	free(html);
	kprof_csv_free(&ops);
}

int main(void)
{
	const char *dd = kt_ttmetal_datadir();
	char *dir = kt_tmpdir();

	KT_CHECK(dd, "set KPROF_TTMETAL_DATA");
	if (!dd)
		return kt_done("test_html_ttmetal");
	/* 56 cores, 4 ops; and one core's BRISC, 5 ops (13-column layout) */
	check_log(dd, "wormhole_b0_profile_log_device.csv", dir);
	check_log(dd, "ttnn_visualizer_smoke_profile_log_device.csv", dir);
	kt_rmrf(dir);
	return kt_done("test_html_ttmetal");
}
