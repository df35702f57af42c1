/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Captures of several devices at once (kprofctl capture --device 0,1):
 * what cmd_capture.c needs beside its one-device sessions, which it runs
 * side by side (the layout: kprof_multi.h). The device list is parsed as
 * any --device list, NVIDIA names included, so that nvidia:0,nvidia:1
 * takes this same path once NVIDIA captures run side by side; until then
 * they are refused here.
 */
#ifndef _KPROFCTL_CAPTURE_MULTI_H
#define _KPROFCTL_CAPTURE_MULTI_H

#include <sys/types.h>

#include "kprof_devname.h"

struct capture_multi;
struct kprof_outdir;
struct kprof_report_opts;

/* --device N,M,...: ids and *n (>= 2); 0, or the usage error's status (said). */
int capture_multi_parse(const char *arg, struct kprof_device_id *ids, unsigned int *n);
/*
 * The capture directory (outdir, or ./kprof-N+M-YYYYmmdd-HHMMSS): created,
 * or empty, or with force emptied of kprof's outputs; refused when it
 * holds a device directory of a device not in ids. NULL: said.
 */
struct capture_multi *capture_multi_open(const char *outdir, int force,
					 const struct kprof_device_id *ids, unsigned int n,
					 uid_t uid, gid_t gid);
/* DIR itself (kept until close). */
struct kprof_outdir *capture_multi_top(const struct capture_multi *m);
/* DIR/devN of device k (kept until close). */
const char *capture_multi_devdir(const struct capture_multi *m, unsigned int k);
/* Says that no device was captured because device k could not be. */
void capture_multi_refused(const struct capture_multi *m, unsigned int k);
/*
 * Once every device's outputs are written (ods[k]: its directory): DIR's,
 * steps marked by the ops matching step (NULL: kprof_steps.h's default).
 * 0 or -1 (said).
 */
int capture_multi_finish(struct capture_multi *m, struct kprof_outdir *const *ods,
			 const char *step);
/* Frees m, removing DIR if this capture made it and left it empty; NULL ok. */
void capture_multi_close(struct capture_multi *m);
/*
 * kprofctl report on a capture directory with no raw/ of its own: if it
 * holds device directories, every device's report (into out/devN, or in
 * place) and the outputs across them (step: as capture_multi_finish).
 * -1: not a multi-device capture
 * (nothing said); else the exit status.
 */
int capture_multi_report(const char *dir, const char *out, int force,
			 const struct kprof_report_opts *ro, int progress, const char *step);

#endif /* _KPROFCTL_CAPTURE_MULTI_H */
