/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The devices kprofctl drives, behind one small ops table: kprof.ko's
 * /dev/kprofN (kprof_device_kprof.c, over kprof_dev.c) and NVIDIA GPUs
 * through NVML, loaded at run time (kprof_nvml.c).
 *
 * Devices are named as kprof_devname.h says.
 *
 * The ops cover what list, info, lock-clock and reset-clock need; a
 * capture op joins the table when capture learns NVIDIA devices.
 * Functions return 0 or -errno, with a message for the user in *err.
 */
#ifndef KPROF_DEVICE_H
#define KPROF_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "kprof_dev.h"
#include "kprof_devname.h"
#include "kprof_err.h"
#include "kprof_nvml.h"

/* Everything info shows about one device, by kind. */
struct kprof_device_desc {
	enum kprof_device_kind kind;
	char name[KPROF_DEVICE_NAME_LEN];	/* canonical: "0", "nvidia:0" */
	union {
		struct {
			struct kprof_device_info info;
			struct kprof_counter_info ci;
			struct kprof_clock_state cs;
		} kprof;
		struct kprof_nvml_info nvidia;
	};
};

/* lock-clock's request. */
enum kprof_clock_target {
	KPROF_CLOCK_TARGET_BASE,	/* default */
	KPROF_CLOCK_TARGET_MAX,
	KPROF_CLOCK_TARGET_MHZ,
};

struct kprof_clock_request {
	enum kprof_clock_target target;
	uint32_t mhz;			/* KPROF_CLOCK_TARGET_MHZ */
	int mem;			/* also lock the memory clock (NVIDIA) */
	uint32_t mem_mhz;		/* 0: at its current clock */
};

/* An open device. */
struct kprof_device {
	const struct kprof_device_ops *ops;
	struct kprof_device_id id;
	char name[KPROF_DEVICE_NAME_LEN];	/* canonical */
	struct kprof_dev kdev;			/* KPROF_DEVICE_KPROF */
	struct kprof_nvml_dev nv;		/* KPROF_DEVICE_NVIDIA */
};

struct kprof_device_ops {
	enum kprof_device_kind kind;
	/*
	 * Ids of the devices present (at most max), ascending; returns the
	 * count. A kind whose driver is absent has none: 0, not an error.
	 * -errno only when the driver is there but cannot be asked.
	 */
	int (*enumerate)(struct kprof_device_id *ids, int max, struct kprof_err *err);
	/* write: the caller will change clocks. Sets d->name. */
	int (*open)(struct kprof_device *d, int write, struct kprof_err *err);
	void (*close)(struct kprof_device *d);
	int (*describe)(struct kprof_device *d, struct kprof_device_desc *desc,
			struct kprof_err *err);
	/*
	 * Lock / reset the clock; msg gets the lines for the user (also on
	 * a partial success, e.g. a refused memory lock). force (reset):
	 * release a lock kprof has no record of.
	 */
	int (*clock_lock)(struct kprof_device *d, const struct kprof_clock_request *req,
			  char *msg, size_t msg_len, struct kprof_err *err);
	int (*clock_reset)(struct kprof_device *d, int force, char *msg,
			   size_t msg_len, struct kprof_err *err);
};

extern const struct kprof_device_ops kprof_device_kprof_ops;
extern const struct kprof_device_ops kprof_device_nvidia_ops;

/* The ops of a kind. */
const struct kprof_device_ops *kprof_device_ops_of(enum kprof_device_kind kind);

int kprof_device_open(struct kprof_device *d, const struct kprof_device_id *id,
		      int write, struct kprof_err *err);
void kprof_device_close(struct kprof_device *d);
int kprof_device_describe(struct kprof_device *d, struct kprof_device_desc *desc,
			  struct kprof_err *err);
int kprof_device_clock_lock(struct kprof_device *d, const struct kprof_clock_request *req,
			    char *msg, size_t msg_len, struct kprof_err *err);
int kprof_device_clock_reset(struct kprof_device *d, int force, char *msg,
			     size_t msg_len, struct kprof_err *err);

#endif /* KPROF_DEVICE_H */
