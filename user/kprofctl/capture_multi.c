// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Captures of several devices at once: the device list, the capture
 * directory and its device directories, the outputs across devices, and
 * `kprofctl report` on such a directory (capture_multi.h).
 */
#include "kprofctl.h"
#include "capture_multi.h"
#include "kprof_err.h"
#include "kprof_multi.h"
#include "kprof_outdir.h"
#include "kprof_progress.h"
#include "kprof_report.h"
#include "kprof_steps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct capture_multi {
	char dir[4096];
	struct kprof_outdir *top;
	unsigned int n;
	char names[KPROF_DEVICE_LIST_MAX][KPROF_DEVICE_NAME_LEN];
	char devdir[KPROF_DEVICE_LIST_MAX][4200];
};

int capture_multi_parse(const char *arg, struct kprof_device_id *ids, unsigned int *n)
{
	char why[512];
	int r = kprof_device_parse_list(arg, ids, KPROF_DEVICE_LIST_MAX, why, sizeof(why));

	if (r < 0)
		return kprofctl_usage_error("capture", "--device: %s", why);
	for (int i = 0; i < r; i++)
		if (ids[i].kind != KPROF_DEVICE_KPROF)
			return kprofctl_usage_error("capture",
				"--device %s: NVIDIA GPUs and kprof.ko devices cannot be captured together; capture each kind on its own",
				arg);
	*n = (unsigned int)r;
	return 0;
}

/* "0,1" */
static void list_names(const struct capture_multi *m, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int k = 0; k < m->n && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? "," : "", m->names[k]);
}

/* ./kprof-0+1-YYYYmmdd-HHMMSS */
static void default_dir(struct capture_multi *m)
{
	char stamp[32], list[256];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	list_names(m, list, sizeof(list));
	for (char *p = list; *p; p++)
		if (*p == ',')
			*p = '+';
		else if (*p == ':')
			*p = '-';
	snprintf(m->dir, sizeof(m->dir), "./kprof-%s-%s", list, stamp);
}

/* A device directory in DIR that is not one of this capture's: -1 (said). */
static int check_others(const struct capture_multi *m, const struct kprof_device_id *ids)
{
	struct kprof_device_id found[KPROF_DEVICE_LIST_MAX];
	struct kprof_err err = { 0 };
	int nf = kprof_multi_scan(m->dir, found, KPROF_DEVICE_LIST_MAX, &err);

	if (nf < 0) {
		kprofctl_err("%s", err.msg);
		return -1;
	}
	for (int i = 0; i < nf; i++) {
		unsigned int k;
		char sub[KPROF_DEVICE_NAME_LEN + 8], name[KPROF_DEVICE_NAME_LEN];

		for (k = 0; k < m->n; k++)
			if (ids[k].kind == found[i].kind && ids[k].index == found[i].index)
				break;
		if (k < m->n)
			continue;
		kprofctl_err("%s/%s holds a capture of device %s, which this capture does not take: remove it, or give another -o",
			     m->dir, kprof_multi_subdir(&found[i], sub, sizeof(sub)),
			     kprof_device_name(&found[i], name, sizeof(name)));
		return -1;
	}
	return 0;
}

struct capture_multi *capture_multi_open(const char *outdir, int force,
					 const struct kprof_device_id *ids, unsigned int n,
					 uid_t uid, gid_t gid)
{
	struct capture_multi *m = calloc(1, sizeof(*m));

	if (!m) {
		kprofctl_err("out of memory");
		return NULL;
	}
	m->n = n;
	for (unsigned int k = 0; k < n; k++)
		kprof_device_name(&ids[k], m->names[k], sizeof(m->names[k]));
	if (outdir)
		snprintf(m->dir, sizeof(m->dir), "%s", outdir);
	else
		default_dir(m);
	for (unsigned int k = 0; k < n; k++) {
		char sub[KPROF_DEVICE_NAME_LEN + 8];

		snprintf(m->devdir[k], sizeof(m->devdir[k]), "%s/%s", m->dir,
			 kprof_multi_subdir(&ids[k], sub, sizeof(sub)));
	}
	/* DIR's own files are outputs only: --force removes them, raw/ too */
	m->top = kprofctl_outdir(m->dir, KPROF_OUTDIR_EMPTY |
				 (force ? KPROF_OUTDIR_FORCE | KPROF_OUTDIR_FORCE_RAW : 0),
				 uid, gid);
	if (!m->top || check_others(m, ids)) {
		capture_multi_close(m);
		return NULL;
	}
	return m;
}

struct kprof_outdir *capture_multi_top(const struct capture_multi *m)
{
	return m->top;
}

const char *capture_multi_devdir(const struct capture_multi *m, unsigned int k)
{
	return m->devdir[k];
}

void capture_multi_refused(const struct capture_multi *m, unsigned int k)
{
	char list[256];

	list_names(m, list, sizeof(list));
	kprofctl_err("nothing captured: a capture of devices %s takes every one of them or none, and device %s could not be taken (above)",
		     list, m->names[k]);
}

/* DIR's outputs from the devices' (devs), then what was made; 0 or -1. */
static int write_across(struct kprof_outdir *top, const char *dir,
			const struct kprof_multi_dev *devs, unsigned int n, const char *list,
			const char *step)
{
	struct kprof_multi_result res;
	struct kprof_err err = { 0 };

	if (kprof_multi_write(top, devs, n, step, &res, &err)) {
		kprofctl_err("the outputs across devices failed: %s; each device's own are in %s/dev*/ (kprofctl report %s retries)",
			     err.msg, dir, dir);
		return -1;
	}
	printf("kprof capture of devices %s: %s\n", list, dir);
	if (res.slowest >= 0)
		printf("slowest:    device %s, busy %.3f ms (report.md compares them)\n",
		       devs[res.slowest].name, res.slowest_busy_ns / 1e6);
	else
		printf("slowest:    none (no device ran a timed op)\n");
	printf("outputs:    %s/{trace.json,report.md,report.html}: the devices side by side\n",
	       dir);
	return 0;
}

int capture_multi_finish(struct capture_multi *m, struct kprof_outdir *const *ods,
			 const char *step)
{
	struct kprof_multi_dev devs[KPROF_DEVICE_LIST_MAX];
	char list[256];

	for (unsigned int k = 0; k < m->n; k++)
		devs[k] = (struct kprof_multi_dev){ m->names[k], ods[k] };
	list_names(m, list, sizeof(list));
	return write_across(m->top, m->dir, devs, m->n, list, step);
}

void capture_multi_close(struct capture_multi *m)
{
	if (!m)
		return;
	kprof_outdir_drop_new(m->top);
	kprof_outdir_close(m->top);
	free(m);
}

/* One device's report: in (DIR/devN) into od; 0 or -1 (said). */
static int report_one(const char *in, struct kprof_outdir *od,
		      const struct kprof_report_opts *ro, int progress)
{
	struct kprof_report_opts o = *ro;
	struct kprof_report_result res;
	struct kprof_err err = { 0 };
	struct kprof_progress prog;
	int r;

	kprof_progress_init(&prog, stderr, "report", progress);
	o.progress = kprof_progress_report_cb;
	o.progress_ctx = &prog;
	memset(&res, 0, sizeof(res));
	r = kprof_report_build(in, od, &o, &res, &err);
	kprof_progress_done(&prog);
	if (r) {
		kprofctl_err("report of %s failed: %s", in, err.msg[0] ? err.msg : strerror(-r));
		return -1;
	}
	printf("device directory %s:\n", kprof_outdir_path(od));
	kprofctl_print_result(kprof_outdir_path(od), &res, 0);
	return 0;
}

int capture_multi_report(const char *dir, const char *out, int force,
			 const struct kprof_report_opts *ro, int progress, const char *step)
{
	struct kprof_device_id ids[KPROF_DEVICE_LIST_MAX];
	struct kprof_multi_dev devs[KPROF_DEVICE_LIST_MAX];
	struct kprof_outdir *ods[KPROF_DEVICE_LIST_MAX] = { 0 };
	char names[KPROF_DEVICE_LIST_MAX][KPROF_DEVICE_NAME_LEN], list[256] = "";
	char saved_step[1024];
	struct kprof_err err = { 0 };
	unsigned int flags = 0, k;
	struct kprof_outdir *top;
	int n = kprof_multi_scan(dir, ids, KPROF_DEVICE_LIST_MAX, &err), rc = 0;
	size_t at = 0;

	if (n <= 0)
		return -1;
	/* the capture's own step pattern unless --step gives another */
	if (!step) {
		int r = kprof_multi_step_of(dir, saved_step, sizeof(saved_step), &err);

		if (!r)
			step = saved_step;
		else if (r != -ENOENT)
			kprofctl_warn("%s; steps are marked by the default pattern %s (--step sets one)",
				      err.msg, KPROF_STEP_DEFAULT);
	}
	/* into another directory: it must be empty (or --force), as a report's */
	if (out && strcmp(out, dir))
		flags = KPROF_OUTDIR_EMPTY | (force ? KPROF_OUTDIR_FORCE : 0);
	else
		out = dir;
	top = kprofctl_outdir(out, flags, (uid_t)-1, (gid_t)-1);
	if (!top)
		return KPROFCTL_EXIT_FAIL;
	for (k = 0; k < (unsigned int)n && !rc; k++) {
		char sub[KPROF_DEVICE_NAME_LEN + 8], in[4200], o[4200];

		kprof_multi_subdir(&ids[k], sub, sizeof(sub));
		kprof_device_name(&ids[k], names[k], sizeof(names[k]));
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", k ? "," : "",
				       names[k]);
		snprintf(in, sizeof(in), "%s/%s", dir, sub);
		snprintf(o, sizeof(o), "%s/%s", out, sub);
		ods[k] = kprofctl_outdir(o, out == dir ? 0 : flags, (uid_t)-1, (gid_t)-1);
		if (!ods[k] || report_one(in, ods[k], ro, progress))
			rc = KPROFCTL_EXIT_FAIL;
		devs[k] = (struct kprof_multi_dev){ names[k], ods[k] };
	}
	if (!rc && write_across(top, out, devs, (unsigned int)n, list, step))
		rc = KPROFCTL_EXIT_FAIL;
	for (k = 0; k < (unsigned int)n; k++)
		kprof_outdir_close(ods[k]);
	kprof_outdir_close(top);
	return rc;
}
