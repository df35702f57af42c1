/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * NVIDIA clock decisions and texts, apart from the NVML calls (those are
 * kprof_nvml.c's) so that they have host unit tests: which supported
 * clock a request becomes, what a reset must undo, the clock-event
 * reasons decoded, the lock state as kprof knows it, advice for NVML
 * errors, the GPU state file's name.
 */
#ifndef KPROF_NVCLOCK_H
#define KPROF_NVCLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "kprof_clockstate.h"

/*
 * The supported clock nearest to want (a tie goes to the lower one):
 * 0 when want is supported, 1 when *got differs, -ERANGE when want lies
 * outside the lowest..highest supported clock, -ENOENT for an empty list.
 * The list may come in any order.
 */
int kprof_nvclock_pick(const uint32_t *clk, size_t n, uint32_t want, uint32_t *got);
/* Lowest and highest of the list (0, 0 when empty). */
void kprof_nvclock_range(const uint32_t *clk, size_t n, uint32_t *lo, uint32_t *hi);

/* What reset-clock calls. */
struct kprof_nvclock_plan {
	int reset_sm;	/* nvmlDeviceResetGpuLockedClocks */
	int reset_mem;	/* nvmlDeviceResetMemoryLockedClocks */
};

/*
 * held: kprof's state for this GPU, NULL when it has none. Without force
 * a reset undoes what kprof locked and nothing else (nothing at all when
 * held is NULL); force resets both, whoever locked them.
 */
void kprof_nvclock_reset_plan(const struct kprof_gpu_clock *held, int force,
			      struct kprof_nvclock_plan *plan);

/* Name of bit i of the clocks event reasons mask ("gpu_idle"...), or NULL. */
const char *kprof_nvclock_reason_name(unsigned int bit);
/* "gpu_idle, sw_power_cap"; "none" for 0; unknown bits as "bit N". */
const char *kprof_nvclock_reasons_str(uint64_t mask, char *buf, size_t len);

/*
 * The lock state kprof can state: "locked by kprof at F MHz (state file
 * PATH)" when held, else that NVML cannot read a lock another tool set.
 */
const char *kprof_nvclock_lock_str(const struct kprof_gpu_clock *held,
				   const char *state_path, char *buf, size_t len);

/* <run_dir>/nvidia-<uuid>.json; -ENAMETOOLONG if it does not fit. */
int kprof_nvclock_state_path(const char *run_dir, const char *uuid, char *buf,
			     size_t len);

/* What to do about a failed NVML call (rc: nvmlReturn_t), or "". */
const char *kprof_nvclock_advice(int rc);

#endif /* KPROF_NVCLOCK_H */
