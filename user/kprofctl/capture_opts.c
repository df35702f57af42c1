// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* capture_opts.h: the capture options of every device kind. */
#include "capture_opts.h"
#include "kprofctl.h"
#include "kprof_progress.h"
#include "kprof_report.h"

#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

static const struct option common_long[CAPTURE_COMMON_NLONG] = {
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "user", required_argument, NULL, 'u' },
	{ "op-filter", required_argument, NULL, CAPTURE_OPT_OP_FILTER },
	{ "trace-group", required_argument, NULL, CAPTURE_OPT_TRACE_GROUP },
	{ "no-device-log", no_argument, NULL, CAPTURE_OPT_NO_DEVLOG },
	{ "progress", no_argument, NULL, CAPTURE_OPT_PROGRESS },
	{ "step", required_argument, NULL, CAPTURE_OPT_STEP },
};

int capture_opts_merge(const struct option *own, struct option *out, size_t n)
{
	size_t k = 0;

	while (own[k].name)
		k++;
	if (n < CAPTURE_COMMON_NLONG + k + 1)
		return -1;
	memcpy(out, common_long, sizeof(common_long));
	memcpy(out + CAPTURE_COMMON_NLONG, own, (k + 1) * sizeof(*own));
	return 0;
}

/* an option whose value names something: an empty one is a mistake */
static int nonempty(const char *arg, const char *what, const char **to)
{
	if (!*arg)
		return kprofctl_usage_error("capture", "empty %s", what);
	*to = arg;
	return 0;
}

int capture_opts_take(struct capture_common *cc, int c, const char *arg)
{
	switch (c) {
	case 'o':
		return nonempty(arg, "output directory", &cc->outdir);
	case 'f':
		cc->force = 1;
		return 0;
	case 'u':
		return nonempty(arg, "--user", &cc->user);
	case CAPTURE_OPT_OP_FILTER:
		return nonempty(arg, "--op-filter", &cc->op_filter);
	case CAPTURE_OPT_STEP:
		return nonempty(arg, "--step", &cc->step);
	case CAPTURE_OPT_TRACE_GROUP:
		if (kprofctl_parse_u32(arg, 65536, &cc->trace_group) || !cc->trace_group)
			return kprofctl_usage_error("capture",
						    "--trace-group wants a count 1..65536, not '%s'",
						    arg);
		return 0;
	case CAPTURE_OPT_NO_DEVLOG:
		cc->no_devlog = 1;
		return 0;
	case CAPTURE_OPT_PROGRESS:
		cc->progress = 1;
		return 0;
	default:
		return 1;
	}
}

void capture_opts_report(const struct capture_common *cc, struct kprof_report_opts *ro,
			 struct kprof_progress *prog)
{
	ro->op_filter = cc->op_filter;
	ro->trace_group = cc->trace_group;
	if (cc->no_devlog)
		ro->flags |= KPROF_REPORT_NO_DEVICE_LOG;
	kprof_progress_init(prog, stderr, "report", cc->progress);
	ro->progress = kprof_progress_report_cb;
	ro->progress_ctx = prog;
}

void capture_opts_json(const struct capture_common *cc, struct json_object *config)
{
	json_object_object_add(config, "op_filter",
			       cc->op_filter ? json_object_new_string(cc->op_filter) : NULL);
	/* the report re-makes trace.json with it */
	json_object_object_add(config, "trace_group",
			       json_object_new_int64(cc->trace_group ? cc->trace_group : 1));
}
