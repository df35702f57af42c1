/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The narrow interface between kprof's core and a device backend.
 *
 * A backend (the simulator, or a driver for real hardware) registers one
 * kprof_device per accelerator with a table of ops. The core owns the
 * character device, the capture ring, exclusivity, clock bookkeeping and
 * time sync; the backend only touches hardware. docs/backend.md describes
 * the contract in full for integrators.
 */
#ifndef _KPROF_BACKEND_H
#define _KPROF_BACKEND_H

#include <linux/types.h>
#include <linux/mm_types.h>
#include <uapi/linux/kprof.h>

struct device;
struct kprof_device;

/* kprof's minors: at most this many devices at a time, all backends. */
#define KPROF_MAX_DEVICES	64

/*
 * The core exports the functions below in this symbol namespace; a backend
 * module says MODULE_IMPORT_NS(KPROF).
 */

/* Static description of the hardware, filled by the backend. */
struct kprof_hw_info {
	const char *backend;		/* "sim", "pci", ... */
	u32 num_cores;
	u32 grid_x, grid_y;
	u32 riscs_per_core;		/* <= KPROF_MAX_RISCS */
	const char *risc_names[KPROF_MAX_RISCS];
	u32 num_counters;		/* <= KPROF_MAX_COUNTERS */
	const struct kprof_counter_desc *counters;
	u64 ref_clock_hz;		/* nominal marker timestamp rate */
	u32 clock_min_mhz, clock_base_mhz, clock_max_mhz;
	u32 l1_ring_entries;
	u32 counter_block_size;		/* bytes of struct kprof_counter_block */
};

/* One DMA descriptor: the core lends the backend a span of the ring. */
struct kprof_dma_desc {
	void *cpu_addr;			/* kernel address of the span */
	dma_addr_t dma_addr;		/* bus address of the span */
	u32 len;			/* bytes available, multiple of 8 */
};

/* What the backend reports when a descriptor completes. */
struct kprof_dma_result {
	u32 bytes;			/* bytes written from the span start */
	u32 records;			/* whole records in those bytes */
	u64 lost_markers;		/* markers in LOST records written */
};

/* Hardware clock state as the backend sees it. */
struct kprof_hw_clock {
	u32 mhz;			/* current core clock */
	bool locked;			/* pinned; false = automatic DVFS */
};

struct kprof_backend_ops {
	/*
	 * Begin/end marker collection and counter updates for a capture.
	 * capture_stop must make the in-flight descriptor (if any) complete
	 * or be cancelled before it returns, and may sleep.
	 */
	int (*capture_start)(struct kprof_device *kd, u64 counter_mask);
	void (*capture_stop)(struct kprof_device *kd);
	/* Paused: cores skip marker writes; ops still run. */
	void (*capture_pause)(struct kprof_device *kd, bool paused);

	/*
	 * Queue one descriptor; at most one is in flight. Callable in atomic
	 * context. The backend fills the span with whole kprof records
	 * (MARKER, LOST, OP, COUNTERS) asynchronously and then calls
	 * kprof_dma_complete(), from any context, as an interrupt would.
	 */
	int (*dma_submit)(struct kprof_device *kd,
			  const struct kprof_dma_desc *desc);
	/*
	 * Read the completion status of the in-flight descriptor without an
	 * interrupt, for when a completion was missed. Returns true and fills
	 * res if the descriptor is done. Callable in atomic context.
	 */
	bool (*dma_poll)(struct kprof_device *kd, struct kprof_dma_result *res);

	/* Map the live counter block read-only into vma (may sleep). */
	int (*mmap_counters)(struct kprof_device *kd,
			     struct vm_area_struct *vma);

	/* Clock control. set_clock(locked=false) restores automatic DVFS. */
	void (*get_clock)(struct kprof_device *kd, struct kprof_hw_clock *clk);
	int (*set_clock)(struct kprof_device *kd, bool locked, u32 mhz);

	/*
	 * Cross timestamp: CLOCK_MONOTONIC before, reference timer, after.
	 * Callable in process context.
	 */
	int (*cross_timestamp)(struct kprof_device *kd, u64 *host_before_ns,
			       u64 *device_cycles, u64 *host_after_ns);

	/*
	 * Optional. Complete the in-flight descriptor soon with what has been
	 * written so far (res->bytes may be 0): the core has records of its
	 * own (STATE, CLOCK, SYNC) waiting, and an idle device would
	 * otherwise hold the span indefinitely. Callable in atomic context;
	 * must not call kprof_dma_complete() itself (do it from the engine).
	 */
	void (*dma_flush)(struct kprof_device *kd);
};

/* Registration; parent provides the DMA API (dma_alloc_coherent). */
struct kprof_device *kprof_device_register(struct device *parent,
					   const struct kprof_backend_ops *ops,
					   const struct kprof_hw_info *info,
					   void *priv);
/* Ends any capture (readers see EOF/ENODEV) and resets the clock. */
void kprof_device_unregister(struct kprof_device *kd);
void *kprof_device_priv(struct kprof_device *kd);
int kprof_device_id(struct kprof_device *kd);

/* Backend -> core notifications, callable from any context. */
void kprof_dma_complete(struct kprof_device *kd,
			const struct kprof_dma_result *res);
void kprof_clock_changed(struct kprof_device *kd, u32 mhz, bool locked);

#endif /* _KPROF_BACKEND_H */
