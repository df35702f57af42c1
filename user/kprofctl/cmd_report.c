// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kprofctl report DIR [-o OUT]: re-make every output from DIR/raw/.
 * kprofctl report --from-ttmetal FILE -o DIR: the same outputs from a
 * tt-metal profile_log_device.csv. All the work is libkprof's.
 */
#include "kprofctl.h"
#include "capture_multi.h"
#include "kprof_steps.h"
#include "kprof_agg.h"
#include "kprof_err.h"
#include "kprof_outdir.h"
#include "kprof_progress.h"
#include "kprof_report.h"
#include "kprof_spool.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl report DIR [-o OUTDIR]\n"
		"       kprofctl report --from-ttmetal FILE -o OUTDIR [--force]\n"
		"Re-make ops.csv, counters.csv, device_log.csv, host_events.csv,\n"
		"params.json and summary.txt from a capture's raw spool (DIR/raw/),\n"
		"written to DIR (or OUTDIR). The same spool always gives the same\n"
		"ops.csv, byte for byte. A capture of several devices (capture\n"
		"--device N,M: DIR/devN/raw/ per device) is re-made device by device,\n"
		"then DIR's trace.json, report.md and report.html across them.\n"
		"With --from-ttmetal, read a tt-metal profile_log_device.csv (12, 13\n"
		"or 15 column layouts) and write ops.csv (DEVICE FW / KERNEL DURATION\n"
		"per run host ID, converted with the file's CHIP_FREQ), device_log.csv,\n"
		"trace.json, summary.txt, params.json and report.html to OUTDIR (no\n"
		"host data: a tt-metal device log has none).\n"
		"An existing output directory must be yours and not writable by\n"
		"others; inputs are read only from regular files, never through a\n"
		"symbolic link (docs/formats.md, \"Output directories\").\n"
		"  -o, --output DIR       where the outputs go\n"
		"      --from-ttmetal F   input is a tt-metal device log\n"
		"  -f, --force            write into a non-empty OUTDIR (kprof's own\n"
		"                         output files there are removed first)\n"
		"      --op-filter GLOB   keep only ops whose OP CODE matches (fnmatch);\n"
		"                         default: the capture's own --op-filter, if any\n"
		"                         ('*' keeps everything)\n"
		"      --no-device-log    skip device_log.csv (one row per marker)\n"
		"      --progress         show progress even when stderr is not a terminal\n"
		"      --peaks FILE       device peaks for roofline.csv / report.md\n"
		"                         (default: DIR/raw/peaks.json, else\n"
		"                         data/peaks/kprof_<backend>.json)\n"
		"      --trace-group N    trace.json: one device track per N cores\n"
		"                         (default: the capture's --trace-group, else 1:\n"
		"                         per core, with zone slices); bounds the file for\n"
		"                         devices with many cores, without zone slices\n"
		"      --pid PID          NVIDIA capture: report CUDA process PID (its\n"
		"                         raw/gpu-PID.kspool) instead of the process\n"
		"                         with the most records; DIR is one GPU's capture\n"
		"                         (DIR/nvidiaN of a capture of several GPUs)\n"
		"      --step GLOB        several devices: an op matching GLOB starts a\n"
		"                         step (default: the capture's, DIR/capture.json,\n"
		"                         else " KPROF_STEP_DEFAULT ", NCCL's all-reduce);\n"
		"                         report.md names the slowest per step\n"
		"Needs no privileges. Run as root on files of another user (DIR, FILE,\n"
		"OUTDIR or the directory OUTDIR is made in), it works as that user.\n");
}

struct kprof_outdir *kprofctl_outdir(const char *dir, unsigned int flags, uid_t uid,
				     gid_t gid)
{
	struct kprof_err err = { 0 };
	struct kprof_outdir *od;

	od = kprof_outdir_open(dir, flags, uid, gid, &err);
	if (!od)
		kprofctl_err("%s", err.msg);
	return od;
}

/* "outputs: DIR/{a,b,...}" for the output files that exist. */
static void print_outputs(const char *dir)
{
	char path[4096];
	struct stat st;
	int first = 1;

	printf("outputs:    %s/{", dir);
	for (int i = 0; i < KPROF_OUTDIR_NOUTPUTS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, kprof_outdir_outputs[i]);
		if (lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		printf("%s%s", first ? "" : ",", kprof_outdir_outputs[i]);
		first = 0;
	}
	printf("}\n");
}

void kprofctl_print_result(const char *dir, const struct kprof_report_result *res,
			   int ttmetal)
{
	printf("ops:        %llu (%llu markers, %llu markers lost)\n",
	       (unsigned long long)res->ops, (unsigned long long)res->markers,
	       (unsigned long long)res->lost_markers);
	if (res->ops_filtered)
		printf("op filter:  %llu ops did not match and were left out\n",
		       (unsigned long long)res->ops_filtered);
	if (!ttmetal) {
		if (isnan(res->sync_err_bound_ns))
			printf("%s\n",
			       "time sync:  none (no sync samples: device times not mapped to host time)");
		else
			printf("time sync:  error bound %.0f ns\n", res->sync_err_bound_ns);
	}
	if (res->truncated_bytes)
		printf("spool:      %llu bytes of a truncated last record ignored\n",
		       (unsigned long long)res->truncated_bytes);
	print_outputs(dir);
}

/* 1 when a and b name the same existing directory */
static int same_dir(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

enum {
	OPT_TTMETAL = 256, OPT_OP_FILTER, OPT_NO_DEVLOG, OPT_PEAKS, OPT_TRACE_GROUP,
	OPT_PROGRESS, OPT_STEP, OPT_PID,
};

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "from-ttmetal", required_argument, NULL, OPT_TTMETAL },
		{ "force", no_argument, NULL, 'f' },
		{ "op-filter", required_argument, NULL, OPT_OP_FILTER },
		{ "no-device-log", no_argument, NULL, OPT_NO_DEVLOG },
		{ "peaks", required_argument, NULL, OPT_PEAKS },
		{ "trace-group", required_argument, NULL, OPT_TRACE_GROUP },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "step", required_argument, NULL, OPT_STEP },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kprof_report_opts ro = { .version = KPROF_VERSION };
	struct kprof_report_result res;
	struct kprof_err err = { 0 };
	struct kprof_progress prog;
	struct kprof_outdir *od;
	const char *out = NULL, *tt = NULL, *dir = NULL, *step = NULL;
	unsigned int flags = KPROF_OUTDIR_EMPTY;
	int force = 0, progress = 0, c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_TTMETAL:
			tt = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case OPT_OP_FILTER:
			if (!*optarg)
				return kprofctl_usage_error("report", "empty --op-filter");
			ro.op_filter = optarg;
			break;
		case OPT_NO_DEVLOG:
			ro.flags |= KPROF_REPORT_NO_DEVICE_LOG;
			break;
		case OPT_PEAKS:
			ro.peaks_file = optarg;
			break;
		case OPT_TRACE_GROUP:
			if (kprofctl_parse_u32(optarg, 65536, &ro.trace_group) || !ro.trace_group)
				return kprofctl_usage_error("report",
							    "--trace-group wants a core count 1..65536, not '%s'",
							    optarg);
			break;
		case OPT_PROGRESS:
			progress = 1;
			break;
		case OPT_STEP:
			if (!*optarg)
				return kprofctl_usage_error("report", "empty --step");
			step = optarg;
			break;
		case OPT_PID:
			if (kprofctl_parse_u32(optarg, UINT32_MAX, &ro.gpu_pid) || !ro.gpu_pid)
				return kprofctl_usage_error("report",
							    "--pid wants a process id (1 or more), not '%s'",
							    optarg);
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			return kprofctl_usage_error("report", "unknown or incomplete option '%s'",
						    argv[optind - 1]);
		}
	}
	if (tt) {
		if (optind < argc)
			return kprofctl_usage_error("report",
						    "unexpected argument '%s' with --from-ttmetal",
						    argv[optind]);
		if (!out)
			return kprofctl_usage_error("report", "--from-ttmetal needs -o DIR");
	} else {
		if (optind >= argc)
			return kprofctl_usage_error("report",
						    "give a capture directory (or --from-ttmetal FILE)");
		if (optind + 1 < argc)
			return kprofctl_usage_error("report", "one capture directory at a time");
		dir = argv[optind];
	}
	if (tt && ro.gpu_pid)
		return kprofctl_usage_error("report",
					    "--pid picks a CUDA process of an NVIDIA capture, not of a tt-metal log");
	{
		/* as root: the owner's report, made as the owner (docs/security.md) */
		const char *const paths[] = { tt ? tt : dir, out };

		if (kprofctl_run_as_owner("report", paths, out ? 2 : 1))
			return KPROFCTL_EXIT_FAIL;
	}

	if (dir) {
		char spool[4096];
		struct stat st;

		snprintf(spool, sizeof(spool), "%s/" KPROF_SPOOL_DEVICE_FILE, dir);
		if (lstat(spool, &st)) {
			/* a capture of several devices: theirs, and DIR's */
			if (ro.gpu_pid) {
				kprofctl_err("%s has no raw device spool (%s): --pid works on one GPU's capture directory (DIR/nvidiaN of a capture of several GPUs)",
					     dir, spool);
				return KPROFCTL_EXIT_FAIL;
			}
			r = capture_multi_report(dir, out, force, &ro, progress, step);
			if (r >= 0)
				return r;
			kprofctl_err("%s: no raw device spool (%s): not a kprof capture directory",
				     dir, spool);
			return KPROFCTL_EXIT_FAIL;
		}
		/* into the capture directory itself: its outputs are re-made */
		if (!out || same_dir(out, dir)) {
			out = dir;
			flags = 0;
		}
	}
	if (force)
		flags |= KPROF_OUTDIR_FORCE;
	od = kprofctl_outdir(out, flags, (uid_t)-1, (gid_t)-1);
	if (!od)
		return KPROFCTL_EXIT_FAIL;
	memset(&res, 0, sizeof(res));
	if (tt) {
		r = kprof_report_ttmetal(tt, od, &ro, &res, &err);
	} else {
		kprof_progress_init(&prog, stderr, "report", progress);
		ro.progress = kprof_progress_report_cb;
		ro.progress_ctx = &prog;
		r = kprof_report_build(dir, od, &ro, &res, &err);
		kprof_progress_done(&prog);
	}
	kprof_outdir_close(od);
	if (r) {
		/* a full disk is the usual cause a user can act on */
		kprofctl_err("report failed: %s%s%s%s", err.msg[0] ? err.msg : strerror(-r),
			     r == -ENOSPC || r == -EDQUOT || r == -EFBIG ?
			     "; free space in " : "",
			     r == -ENOSPC || r == -EDQUOT || r == -EFBIG ? out : "",
			     r == -ENOSPC || r == -EDQUOT || r == -EFBIG ?
			     " or write the report elsewhere (-o DIR)" : "");
		return KPROFCTL_EXIT_FAIL;
	}
	kprofctl_print_result(out, &res, !!tt);
	return 0;
}
