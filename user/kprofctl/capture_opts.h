/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The options of `kprofctl capture` that every device kind takes (-o, -f,
 * -u, --op-filter, --trace-group, --step, --no-device-log, --progress),
 * read and checked in one place: cmd_capture.c (kprof.ko devices) and
 * capture_nvidia.c (NVIDIA GPUs) read their own around them.
 */
#ifndef CAPTURE_OPTS_H
#define CAPTURE_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct kprof_report_opts;
struct kprof_progress;

/* getopt_long values of the common long-only options; a caller's own
 * long-only options start at CAPTURE_OPT_OWN
 */
enum {
	CAPTURE_OPT_OP_FILTER = 256, CAPTURE_OPT_TRACE_GROUP, CAPTURE_OPT_NO_DEVLOG,
	CAPTURE_OPT_PROGRESS, CAPTURE_OPT_STEP, CAPTURE_OPT_OWN,
};

/* the common short options, for getopt_long's optstring */
#define CAPTURE_COMMON_SHORT	"o:fu:"

/* room for the common long options in capture_opts_merge()'s out */
#define CAPTURE_COMMON_NLONG	8

struct capture_common {
	const char *outdir;	/* -o; NULL: the default name */
	int force;		/* -f */
	const char *user;	/* -u: the workload's user */
	const char *op_filter;	/* --op-filter GLOB */
	const char *step;	/* --step GLOB: several devices */
	uint32_t trace_group;	/* --trace-group: cores (streams) per track; 0: 1 */
	int no_devlog;		/* --no-device-log */
	int progress;		/* --progress: on any stderr */
};

/*
 * The common long options followed by own (ended by a zeroed entry) into
 * out[n]: 0, or -1 when n is too small.
 */
int capture_opts_merge(const struct option *own, struct option *out, size_t n);

/*
 * Option c (getopt_long's value, arg its optarg) into cc: 0 taken, 1 not a
 * common option (the caller's own), else the usage error's status (said).
 */
int capture_opts_take(struct capture_common *cc, int c, const char *arg);

/* What the report of a capture takes of them; prog shows its progress. */
void capture_opts_report(const struct capture_common *cc, struct kprof_report_opts *ro,
			 struct kprof_progress *prog);

/* Their part of raw/config.json, which `kprofctl report DIR` reads back. */
void capture_opts_json(const struct capture_common *cc, struct json_object *config);

#endif /* CAPTURE_OPTS_H */
