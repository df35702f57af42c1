/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reports: reads a capture's raw/ spool files (or a tt-metal device log) and
 * writes every output file of docs/formats.md into the output directory:
 * ops.csv, counters.csv, device_log.csv, host_events.csv, trace.json,
 * summary.txt, params.json. Re-running on the same spool gives byte-identical files
 * (no wall-clock time, host name or path in ops.csv).
 */
#ifndef KPROF_REPORT_H
#define KPROF_REPORT_H

#include <stdint.h>

#include "kprof_err.h"

struct kprof_report_opts {
	/*
	 * Capture configuration as a JSON object text (command line, events,
	 * ring size, op filter, ...): put in params.json under "config".
	 * kprof_report_build() with the capture directory as output saves it
	 * to raw/config.json so a later report (config_json NULL) finds it
	 * again; a report written elsewhere does not touch raw/.
	 */
	const char *config_json;
	const char *version;		/* kprofctl version for params.json */
	uint64_t slack_ns;		/* retirement slack; 0 = default */
	unsigned int top_n;		/* summary.txt top ops; 0 = 10 */
	unsigned int flags;		/* KPROF_REPORT_* */
	/*
	 * trace.json: cores per device track (0 or 1: one per core); a
	 * bigger group bounds the file for huge captures
	 */
	unsigned int trace_group;
	/*
	 * fnmatch(3) pattern: ops.csv, counters.csv and the summary keep only
	 * ops whose OP CODE matches (others are counted as filtered). NULL:
	 * the "op_filter" string of the capture config, if any.
	 */
	const char *op_filter;
	/*
	 * Device peaks file for roofline.csv / report.md (docs/formats.md);
	 * NULL: the capture's raw/peaks.json, else data/peaks/kprof_<backend>.json.
	 */
	const char *peaks_file;
	/* Progress callback (may be NULL): records done, bytes done/total. */
	void (*progress)(void *ctx, uint64_t records, uint64_t bytes,
			 uint64_t total);
	void *progress_ctx;
	/*
	 * NVIDIA captures: the CUDA process whose agent spool
	 * (raw/gpu-PID.kspool) is reported; 0: the one with the most
	 * records. Non-zero on another capture is an error.
	 */
	uint32_t gpu_pid;
};

/* kprof_report_opts.flags */
/* skip device_log.csv (one row per marker: large) */
#define KPROF_REPORT_NO_DEVICE_LOG	(1U << 0)
#define KPROF_REPORT_NO_TRACE		(1U << 1)	/* skip trace.json */
/*
 * feed the aggregation every marker on its own, not a run of one op's
 * markers at once (kprof_agg_marker_run): the same outputs, slower; for
 * the test that says so
 */
#define KPROF_REPORT_ONE_BY_ONE		(1U << 2)

/*
 * Most a report holds ops for late data (kprof_lag.h): memory is the ops
 * dispatched in that time.
 */
#define KPROF_REPORT_SLACK_CAP_NS	(30ULL * 1000 * 1000 * 1000)

struct kprof_report_result {
	uint64_t ops;
	uint64_t markers;
	uint64_t lost_markers;
	uint64_t device_records_lost;	/* OP/COUNTERS the device's queue dropped */
	uint64_t truncated_bytes;	/* tolerated truncated spool tails */
	uint64_t ops_filtered;		/* ops left out by op_filter */
	double sync_err_bound_ns;	/* NAN when no time sync */
	/*
	 * reads of the device spool: 1 with its index (raw/device.kidx),
	 * 2 without; 1 more when the lateness it met needed a longer
	 * retirement slack than the one assumed (kprof_lag.h)
	 */
	uint32_t spool_reads;
	/* NVIDIA captures */
	uint32_t gpu_processes;		/* agent spools (CUDA processes) found */
	uint64_t gpu_dropped;		/* records CUPTI dropped */
	int gpu_problems;		/* agent errors or no clean stop */
	char gpu_counters_problem[320];	/* capture --counters: what went wrong, or "" */
};

struct kprof_outdir;

/*
 * capture_dir holds raw/device.kspool (required), raw/host.kspool and
 * raw/config.json (optional), read without following links (kprof_fs.h).
 * Outputs go to od (kprof_outdir.h), or, od NULL, to capture_dir itself
 * (opened as an output directory of the caller); capture_dir NULL: od is
 * the capture directory (a capture's own report: nothing is looked up by
 * name again). Every output of the set
 * is written or, when this report has none (roofline.csv without peaks,
 * trace.json with KPROF_REPORT_NO_TRACE, ...), removed; report.html is
 * made from this report's files only. res may be NULL.
 */
int kprof_report_build(const char *capture_dir, struct kprof_outdir *od,
		       const struct kprof_report_opts *opts,
		       struct kprof_report_result *res, struct kprof_err *err);

/*
 * tt-metal profile_log_device.csv -> ops.csv, device_log.csv, trace.json,
 * summary.txt, params.json and report.html in od; the other outputs of
 * the set are removed.
 */
int kprof_report_ttmetal(const char *csv, struct kprof_outdir *od,
			 const struct kprof_report_opts *opts,
			 struct kprof_report_result *res, struct kprof_err *err);

#endif /* KPROF_REPORT_H */
