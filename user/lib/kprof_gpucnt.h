/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-kernel NVIDIA counters (kprofctl capture --counters): the metric
 * list, the join of the agent's METRICS records (<kprof/gpu_rec.h>) to
 * the kernels they belong to, and the words the outputs use. Pure: no
 * CUPTI here (the agent's side is user/agent/kprof_cupti_counters.c).
 */
#ifndef KPROF_GPUCNT_H
#define KPROF_GPUCNT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kprof.h>
#include <kprof/gpu_rec.h>

#include "kprof_err.h"

/* a metric's name: a counter name of counters.csv (NUL included) */
#define KPROF_GPUCNT_NAME_LEN	128

/*
 * "m1,m2,...": CUPTI metric names (letters, digits, '_' and '.': e.g.
 * sm__throughput.avg.pct_of_peak_sustained_elapsed), each shorter than
 * KPROF_GPUCNT_NAME_LEN, no repeats, at most KPROF_GPU_MAX_METRICS.
 * Returns how many, or -1 with err saying which name and why.
 */
int kprof_gpucnt_parse(const char *list, char names[][KPROF_GPUCNT_NAME_LEN], int max,
		       struct kprof_err *err);

/*
 * The join: METRICS records arrive before or after their kernel's
 * record (the agent writes them when the kernel's range is decoded, the
 * kernel record when CUPTI hands its buffer over). A ring of slots by
 * correlation id keeps whichever came first. KPROF_GPUCNT_RING slots:
 * a METRICS record whose kernel does not come within that many
 * correlation ids is counted as unjoined.
 */
#define KPROF_GPUCNT_RING	4096

struct kprof_gpucnt_slot {
	uint32_t corr;
	uint8_t have_vals, kernel_seen;
	uint16_t reserved;
	uint32_t mask;			/* metric i has a value: bit i */
	double vals[KPROF_GPU_MAX_METRICS];
};

struct kprof_gpucnt_join {
	struct kprof_gpucnt_slot *slot;	/* KPROF_GPUCNT_RING */
	uint64_t joined;		/* kernels that got their values */
	uint64_t unjoined;		/* METRICS records no kernel took */
	uint64_t values;		/* metric values that reached a kernel */
};

int kprof_gpucnt_join_init(struct kprof_gpucnt_join *j);
void kprof_gpucnt_join_free(struct kprof_gpucnt_join *j);

/*
 * A METRICS record (n values; NaN: not evaluated). Returns 1 if its
 * kernel was already seen (the caller then emits the values itself:
 * *mask, vals), else 0 (kept for the kernel).
 */
int kprof_gpucnt_join_metrics(struct kprof_gpucnt_join *j, uint32_t corr, const double *v,
			      uint32_t n, uint32_t *mask, double *vals);
/*
 * A kernel record: returns its metric mask (0: none yet) and fills vals
 * (KPROF_GPU_MAX_METRICS) with what a METRICS record brought.
 */
uint32_t kprof_gpucnt_join_kernel(struct kprof_gpucnt_join *j, uint32_t corr, double *vals);
/* At the end: values still waiting count as unjoined. */
void kprof_gpucnt_join_end(struct kprof_gpucnt_join *j);

/*
 * A metric value as a counters.csv counter value: the double's bits
 * (non-negative doubles order as their bits do); kprof_gpucnt_from_u64
 * undoes it. The writer prints such counters as decimals.
 */
uint64_t kprof_gpucnt_to_u64(double v);
double kprof_gpucnt_from_u64(uint64_t u);

/* "kernel" for KPROF_GREPLAY_KERNEL, else "unknown" */
const char *kprof_gpucnt_replay_name(int32_t mode);

#endif /* KPROF_GPUCNT_H */
