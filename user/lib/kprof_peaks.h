/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device peaks files (data/peaks/NAME.json, format in docs/formats.md):
 * peak FLOP/s and peak bytes/s that the roofline compares ops against.
 */
#ifndef KPROF_PEAKS_H
#define KPROF_PEAKS_H

#include <stddef.h>

#include "kprof_err.h"

#define KPROF_PEAKS_NAME_LEN	64

struct kprof_peaks {
	char device[KPROF_PEAKS_NAME_LEN];
	int per_core;			/* 1: peaks of one core, scaled by an op's cores */
	double clock_mhz;		/* clock the FLOP peak is given at; 0 = fixed */
	double flops_per_s;		/* > 0 */
	double bytes_per_s;		/* > 0 */
	double latency_frac;		/* below this share of both peaks: latency-bound */
	char flops_counter[32];		/* counter names in the device info */
	char bytes_counters[2][32];	/* summed; [1] may be empty */
};

/* Parses a peaks file's text. 0 or -errno with err set (names the field). */
int kprof_peaks_parse(const char *text, struct kprof_peaks *p, struct kprof_err *err);
/* Reads and parses FILE. */
int kprof_peaks_load(const char *path, struct kprof_peaks *p, struct kprof_err *err);
/*
 * Default peaks file for a device name: $KPROF_PEAKS_DIR/NAME.json, else
 * ../share/kprof/peaks or ../data/peaks next to the executable, else
 * $KPROF_ROOT/data/peaks. 0 with the path in buf, or -ENOENT.
 */
int kprof_peaks_default(const char *device, char *buf, size_t len);

/* Peak FLOP/s and bytes/s of an op on cores at clock_mhz (0: unknown). */
double kprof_peaks_flops(const struct kprof_peaks *p, unsigned int cores, double clock_mhz);
double kprof_peaks_bytes(const struct kprof_peaks *p, unsigned int cores);

#endif /* KPROF_PEAKS_H */
