// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NVIDIA clock decisions and texts (kprof_nvclock.h); no NVML calls here. */
#include "kprof_nvclock.h"
#include "kprof_nvml_api.h"
#include "kprof_array_size.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void kprof_nvclock_range(const uint32_t *clk, size_t n, uint32_t *lo, uint32_t *hi)
{
	size_t i;

	*lo = *hi = 0;
	for (i = 0; i < n; i++) {
		if (!i || clk[i] < *lo)
			*lo = clk[i];
		if (!i || clk[i] > *hi)
			*hi = clk[i];
	}
}

int kprof_nvclock_pick(const uint32_t *clk, size_t n, uint32_t want, uint32_t *got)
{
	uint32_t lo, hi, best = 0, best_d = UINT32_MAX;
	size_t i;

	if (!n)
		return -ENOENT;
	kprof_nvclock_range(clk, n, &lo, &hi);
	if (want < lo || want > hi)
		return -ERANGE;
	for (i = 0; i < n; i++) {
		uint32_t d = clk[i] > want ? clk[i] - want : want - clk[i];

		if (d < best_d || (d == best_d && clk[i] < best)) {
			best = clk[i];
			best_d = d;
		}
	}
	*got = best;
	return best != want;
}

void kprof_nvclock_reset_plan(const struct kprof_gpu_clock *held, int force,
			      struct kprof_nvclock_plan *plan)
{
	plan->reset_sm = force || (held && held->sm_locked_mhz);
	plan->reset_mem = force || (held && held->mem_locked_mhz);
}

/* nvmlClocksEventReason* bit by bit (kprof_nvml_api.h) */
static const char *const reason_names[] = {
	"gpu_idle",			/* GpuIdle */
	"applications_clocks_setting",	/* ApplicationsClocksSetting */
	"sw_power_cap",			/* SwPowerCap */
	"hw_slowdown",			/* HwSlowdown */
	"sync_boost",			/* SyncBoost */
	"sw_thermal_slowdown",		/* SwThermalSlowdown */
	"hw_thermal_slowdown",		/* HwThermalSlowdown */
	"hw_power_brake_slowdown",	/* HwPowerBrakeSlowdown */
	"display_clock_setting",	/* DisplayClockSetting */
};

_Static_assert(KPROF_NVML_EVENT_DISPLAY_CLOCK_SETTING ==
	       1ULL << (ARRAY_SIZE(reason_names) - 1),
	       "reason_names follows the bits of kprof_nvml_api.h");

const char *kprof_nvclock_reason_name(unsigned int bit)
{
	return bit < ARRAY_SIZE(reason_names) ?
	       reason_names[bit] : NULL;
}

const char *kprof_nvclock_reasons_str(uint64_t mask, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int b;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!mask) {
		snprintf(buf, len, "none");
		return buf;
	}
	for (b = 0; b < 64; b++) {
		const char *name = kprof_nvclock_reason_name(b);
		int n;

		if (!(mask & (1ULL << b)))
			continue;
		if (name)
			n = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", name);
		else
			n = snprintf(buf + off, len - off, "%sbit %u", off ? ", " : "", b);
		if (n < 0 || (size_t)n >= len - off) {
			buf[off] = '\0';	/* truncated: whole names only */
			break;
		}
		off += (size_t)n;
	}
	return buf;
}

const char *kprof_nvclock_lock_str(const struct kprof_gpu_clock *held,
				   const char *state_path, char *buf, size_t len)
{
	if (!held) {
		snprintf(buf, len,
			 "unknown: NVML cannot read a lock set by another tool (kprof holds none)");
		return buf;
	}
	if (held->mem_locked_mhz)
		snprintf(buf, len,
			 "locked by kprof at %u MHz, memory at %u MHz (state file %s)",
			 held->sm_locked_mhz, held->mem_locked_mhz, state_path);
	else
		snprintf(buf, len, "locked by kprof at %u MHz (state file %s)",
			 held->sm_locked_mhz, state_path);
	return buf;
}

int kprof_nvclock_state_path(const char *run_dir, const char *uuid, char *buf,
			     size_t len)
{
	int n = snprintf(buf, len, "%s/nvidia-%s.json", run_dir, uuid);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Advice too long to follow a return within 100 columns. */
#define ADVICE_RM_MISMATCH "libnvidia-ml.so.1 and the loaded kernel driver are of different versions: reload the nvidia module or reboot"
#define ADVICE_NO_FUNCTION "this driver's libnvidia-ml.so.1 lacks the function: update the NVIDIA driver"
#define ADVICE_BAD_VALUE "NVML refused the value: kprofctl info --device nvidia:N shows the supported range"

const char *kprof_nvclock_advice(int rc)
{
	switch (rc) {
	case KPROF_NVML_ERROR_NO_PERMISSION:
		return "changing GPU clocks needs root: run kprofctl as root";
	case KPROF_NVML_ERROR_NOT_SUPPORTED:
		return "this GPU or driver does not offer it";
	case KPROF_NVML_ERROR_DRIVER_NOT_LOADED:
		return "the NVIDIA kernel driver is not loaded (modprobe nvidia)";
	case KPROF_NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		return ADVICE_RM_MISMATCH;
	case KPROF_NVML_ERROR_GPU_IS_LOST:
		return "the GPU has fallen off the bus: see dmesg; it needs a reset or a reboot";
	case KPROF_NVML_ERROR_FUNCTION_NOT_FOUND:
		return ADVICE_NO_FUNCTION;
	case KPROF_NVML_ERROR_INVALID_ARGUMENT:
		return ADVICE_BAD_VALUE;
	case KPROF_NVML_ERROR_IN_USE:
		return "the GPU is busy with another management operation: try again";
	default:
		return "";
	}
}
