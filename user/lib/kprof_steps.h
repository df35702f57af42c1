/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Devices of one capture compared by what their time went to and by
 * step (report.md of a multi-device capture, kprof_multi.h):
 *
 *  - op classes: an op whose OP CODE starts with ncclKernel_ or
 *    ncclDevKernel_ (NCCL's collective kernels) is a collective; one
 *    that starts with "[memcpy" or "[memset" (NVIDIA captures' copies)
 *    a copy; any other op compute. Per device, the sum of each class's
 *    DEVICE KERNEL DURATION.
 *  - steps: the ops whose OP CODE matches the step pattern (fnmatch;
 *    kprofctl's --step, default KPROF_STEP_DEFAULT: NCCL's all-reduce)
 *    mark the steps: step k of a device is where its k-th such op
 *    starts (DEVICE FW START TS, host ns). In a collective every device
 *    waits for the last one to arrive, so the slowest device of step k
 *    is the one whose k-th marker starts last, and the others' wait is
 *    its lateness. Only the first min(count) markers of each device are
 *    compared (the report says when counts differ).
 * Pure (tests/unit/test_steps.c). Memory: one double per marker, at
 * most KPROF_STEPS_MAX per device (the rest counted, not compared).
 */
#ifndef KPROF_STEPS_H
#define KPROF_STEPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KPROF_STEP_DEFAULT	"nccl*AllReduce*"
#define KPROF_STEPS_MAX		(1u << 20)

enum kprof_op_class {
	KPROF_OPC_COMPUTE,
	KPROF_OPC_COLLECTIVE,
	KPROF_OPC_COPY,
	KPROF_OPC_N
};

enum kprof_op_class kprof_op_class(const char *op_code);

struct kprof_steps;

/* ndev devices, steps marked by glob (NULL: KPROF_STEP_DEFAULT); NULL: ENOMEM. */
struct kprof_steps *kprof_steps_new(unsigned int ndev, const char *glob);
void kprof_steps_free(struct kprof_steps *s);
/*
 * One op of device dev: OP CODE, device start (NAN: none) and kernel
 * duration (NAN: none). 0 or -ENOMEM.
 */
int kprof_steps_op(struct kprof_steps *s, unsigned int dev, const char *op,
		   double start_ns, double kernel_ns);
/* Sum of the kernel durations of class c on dev. */
double kprof_steps_class_ns(const struct kprof_steps *s, unsigned int dev,
			    enum kprof_op_class c);
/* Step markers seen on dev (all, the ones past KPROF_STEPS_MAX too). */
uint64_t kprof_steps_markers(const struct kprof_steps *s, unsigned int dev);
/* Steps compared: the least kept marker count over the devices. */
size_t kprof_steps_count(const struct kprof_steps *s);
/*
 * Step k: the device that arrived last (its marker started last, the
 * first of equals), and in *late_ns how much after the first one.
 * -1 when k is not a compared step.
 */
int kprof_steps_slowest(struct kprof_steps *s, size_t k, double *late_ns);
/* report.md's sections "Collectives and compute" and "Steps". */
void kprof_steps_md(FILE *f, struct kprof_steps *s, const char *const *names);

#endif /* KPROF_STEPS_H */
