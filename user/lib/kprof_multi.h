/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A capture of several devices at once (kprofctl capture --device 0,1):
 * each device's capture is a one-device capture directory of its own,
 * DIR/dev<N>/ (kprof_multi_subdir), and DIR holds what puts them side by
 * side (docs/formats.md, "Multi-device captures"):
 *
 *   trace.json   every device's trace.json on one timeline (all on the
 *                host's CLOCK_MONOTONIC): kprof_trace_merge.h
 *   report.md    per device: ops, busy time, kernel time, first and last
 *                op; the slowest device; op counts per kind and device;
 *                collectives vs compute and the slowest device per step
 *                (kprof_steps.h)
 *   report.html  report.md as a page, with links to each device's page
 *   capture.json the devices and the step pattern the outputs were made
 *                with (kprof_multi_step_of)
 *
 * Everything is made from the devices' own outputs of this run, so
 * `kprofctl report DIR` re-makes it from their raw/ alone.
 */
#ifndef KPROF_MULTI_H
#define KPROF_MULTI_H

#include <stdint.h>
#include <stdio.h>

#include "kprof_devname.h"
#include "kprof_err.h"

struct kprof_outdir;
struct kprof_steps;

/* One device of a multi-device capture, its outputs written by this run. */
struct kprof_multi_dev {
	const char *name;		/* device name, "0" */
	struct kprof_outdir *od;	/* DIR/dev0 (kprof_outdir_reopen reads it) */
};

/* A device's figures, from its ops.csv. Times: host ns. */
struct kprof_multi_stats {
	char label[96];			/* "sim0 (sim)" from params.json, or "" */
	uint64_t ops;			/* rows */
	uint64_t timed;			/* rows with a device FW start and end */
	double first_ns, last_ns;	/* earliest FW start, latest FW end */
	double busy_ns;			/* union of the [FW start, FW end] spans */
	double kernel_ns;		/* sum of DEVICE KERNEL DURATION */
	uint64_t lost_markers;		/* sum of MARKERS LOST */
	/* NVIDIA, several GPUs (params.json config.routing): ops left out */
	uint64_t ops_not_captured;	/* on GPUs not captured */
	uint64_t ops_unknown;		/* on devices the agent could not name */
};

/* Op counts per kind (OP CODE) and device. */
struct kprof_multi_kinds;

struct kprof_multi_kinds *kprof_multi_kinds_new(unsigned int ndev);
void kprof_multi_kinds_free(struct kprof_multi_kinds *k);

/*
 * Reads ops.csv (fd, taken over; path for messages) of device dev into st,
 * kinds and steps (either may be NULL). The busy time sorts the op spans, spilling to
 * unnamed files in spill (kprof_xsort.h). 0 or -errno with err set.
 */
int kprof_multi_stats_csv(int fd, const char *path, struct kprof_outdir *spill,
			  unsigned int dev, struct kprof_multi_stats *st,
			  struct kprof_multi_kinds *kinds, struct kprof_steps *steps,
			  struct kprof_err *err);

/*
 * The index of the slowest device: the most busy time (the one the others
 * wait for), the first of equals; -1 when no device has a timed op.
 */
int kprof_multi_slowest(const struct kprof_multi_stats *st, unsigned int n);

/* report.md of the devices names[0..n-1] (subdir names from them). */
void kprof_multi_report_md(FILE *f, const char *const *names,
			   const struct kprof_multi_stats *st, unsigned int n,
			   const struct kprof_multi_kinds *kinds, struct kprof_steps *steps);

/*
 * The sub-directory of a device in a multi-device capture: "dev3" for
 * /dev/kprof3, "nvidia0" for nvidia:0 (apart, so that neither can be
 * taken for the other).
 */
const char *kprof_multi_subdir(const struct kprof_device_id *id, char *buf, size_t len);

/*
 * The devices of a multi-device capture directory: its dev<N>/ and
 * nvidia<N>/ holding raw/device.kspool, kprof.ko devices first, each kind
 * ascending, at most max. The count (0: not a
 * multi-device capture), or -errno with err set.
 */
int kprof_multi_scan(const char *dir, struct kprof_device_id *ids, int max,
		     struct kprof_err *err);

/* What kprof_multi_write found, for the lines printed after it. */
struct kprof_multi_result {
	int slowest;			/* kprof_multi_slowest(), -1: none */
	double slowest_busy_ns;
};

/*
 * Writes trace.json, report.md, report.html and capture.json in top from
 * the devices' outputs; the other outputs of the set are removed from top. step: the
 * step pattern (NULL: KPROF_STEP_DEFAULT). res may be NULL. 0 or -errno
 * with err set.
 */
int kprof_multi_write(struct kprof_outdir *top, const struct kprof_multi_dev *devs,
		      unsigned int n, const char *step, struct kprof_multi_result *res,
		      struct kprof_err *err);

/*
 * The step pattern DIR's outputs were made with, from DIR/capture.json,
 * into buf (len bytes), so that `kprofctl report DIR` without --step
 * makes them the same way. 0; -ENOENT when DIR has no capture.json (made
 * before it was written) or it names no pattern; -errno with err set
 * when it cannot be read or the pattern does not fit.
 */
int kprof_multi_step_of(const char *dir, char *buf, size_t len, struct kprof_err *err);

#endif /* KPROF_MULTI_H */
