// SPDX-License-Identifier: GPL-2.0
/*
 * kprof declares the NVML subset it uses itself (user/lib/kprof_nvml_api.h)
 * so that it builds without NVIDIA's headers. This file, compiled against
 * the real nvml.h on a GPU host (tests/nvidia/check.sh, make
 * check-nvidia), proves each declaration equal to NVIDIA's: every enum
 * value and constant, the size and every field offset of the struct, and
 * every function's signature (each real function is assigned to a pointer
 * of our declared type, with -Werror=incompatible-pointer-types). It
 * compiles, or names the declaration that differs; there is nothing to run.
 */
#include <stddef.h>

#include <nvml.h>

#include "kprof_nvml_api.h"

#define SAME(ours, theirs) \
	_Static_assert((long long)(ours) == (long long)(theirs), #ours " == " #theirs)

/* nvmlReturn_t */
_Static_assert(sizeof(kprof_nvmlReturn_t) == sizeof(nvmlReturn_t), "nvmlReturn_t size");
SAME(KPROF_NVML_SUCCESS, NVML_SUCCESS);
SAME(KPROF_NVML_ERROR_UNINITIALIZED, NVML_ERROR_UNINITIALIZED);
SAME(KPROF_NVML_ERROR_INVALID_ARGUMENT, NVML_ERROR_INVALID_ARGUMENT);
SAME(KPROF_NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED);
SAME(KPROF_NVML_ERROR_NO_PERMISSION, NVML_ERROR_NO_PERMISSION);
SAME(KPROF_NVML_ERROR_ALREADY_INITIALIZED, NVML_ERROR_ALREADY_INITIALIZED);
SAME(KPROF_NVML_ERROR_NOT_FOUND, NVML_ERROR_NOT_FOUND);
SAME(KPROF_NVML_ERROR_INSUFFICIENT_SIZE, NVML_ERROR_INSUFFICIENT_SIZE);
SAME(KPROF_NVML_ERROR_DRIVER_NOT_LOADED, NVML_ERROR_DRIVER_NOT_LOADED);
SAME(KPROF_NVML_ERROR_FUNCTION_NOT_FOUND, NVML_ERROR_FUNCTION_NOT_FOUND);
SAME(KPROF_NVML_ERROR_GPU_IS_LOST, NVML_ERROR_GPU_IS_LOST);
SAME(KPROF_NVML_ERROR_LIB_RM_VERSION_MISMATCH, NVML_ERROR_LIB_RM_VERSION_MISMATCH);
SAME(KPROF_NVML_ERROR_IN_USE, NVML_ERROR_IN_USE);
SAME(KPROF_NVML_ERROR_UNKNOWN, NVML_ERROR_UNKNOWN);

/* nvmlClockType_t */
_Static_assert(sizeof(kprof_nvmlClockType_t) == sizeof(nvmlClockType_t), "nvmlClockType_t size");
SAME(KPROF_NVML_CLOCK_GRAPHICS, NVML_CLOCK_GRAPHICS);
SAME(KPROF_NVML_CLOCK_SM, NVML_CLOCK_SM);
SAME(KPROF_NVML_CLOCK_MEM, NVML_CLOCK_MEM);
SAME(KPROF_NVML_CLOCK_VIDEO, NVML_CLOCK_VIDEO);

/* nvmlDevice_t */
_Static_assert(sizeof(kprof_nvmlDevice_t) == sizeof(nvmlDevice_t), "nvmlDevice_t size");

/* buffer sizes */
SAME(KPROF_NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_NAME_V2_BUFFER_SIZE);
SAME(KPROF_NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE);
SAME(KPROF_NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE);
SAME(KPROF_NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE, NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE);
SAME(KPROF_NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE, NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE);

/* nvmlPciInfo_t: size, and each field's offset and size */
#define FIELD(f) \
	SAME(offsetof(kprof_nvmlPciInfo_t, f), offsetof(nvmlPciInfo_t, f)); \
	SAME(sizeof(((kprof_nvmlPciInfo_t *)0)->f), sizeof(((nvmlPciInfo_t *)0)->f))
SAME(sizeof(kprof_nvmlPciInfo_t), sizeof(nvmlPciInfo_t));
FIELD(busIdLegacy);
FIELD(domain);
FIELD(bus);
FIELD(device);
FIELD(pciDeviceId);
FIELD(pciSubSystemId);
FIELD(busId);

/*
 * Clocks event reasons. nvml.h names some bits nvmlClocksEventReason*
 * and keeps nvmlClocksThrottleReason* for the others (and as the old
 * names): take whichever this header has.
 */
#ifdef nvmlClocksEventReasonHwSlowdown
#define R_HW_SLOWDOWN nvmlClocksEventReasonHwSlowdown
#else
#define R_HW_SLOWDOWN nvmlClocksThrottleReasonHwSlowdown
#endif
#ifdef nvmlClocksEventReasonHwThermalSlowdown
#define R_HW_THERMAL nvmlClocksEventReasonHwThermalSlowdown
#else
#define R_HW_THERMAL nvmlClocksThrottleReasonHwThermalSlowdown
#endif
#ifdef nvmlClocksEventReasonHwPowerBrakeSlowdown
#define R_HW_BRAKE nvmlClocksEventReasonHwPowerBrakeSlowdown
#else
#define R_HW_BRAKE nvmlClocksThrottleReasonHwPowerBrakeSlowdown
#endif
SAME(KPROF_NVML_EVENT_GPU_IDLE, nvmlClocksEventReasonGpuIdle);
SAME(KPROF_NVML_EVENT_APP_CLOCKS_SETTING, nvmlClocksEventReasonApplicationsClocksSetting);
SAME(KPROF_NVML_EVENT_SW_POWER_CAP, nvmlClocksEventReasonSwPowerCap);
SAME(KPROF_NVML_EVENT_HW_SLOWDOWN, R_HW_SLOWDOWN);
SAME(KPROF_NVML_EVENT_SYNC_BOOST, nvmlClocksEventReasonSyncBoost);
SAME(KPROF_NVML_EVENT_SW_THERMAL_SLOWDOWN, nvmlClocksEventReasonSwThermalSlowdown);
SAME(KPROF_NVML_EVENT_HW_THERMAL_SLOWDOWN, R_HW_THERMAL);
SAME(KPROF_NVML_EVENT_HW_POWER_BRAKE_SLOWDOWN, R_HW_BRAKE);
SAME(KPROF_NVML_EVENT_DISPLAY_CLOCK_SETTING, nvmlClocksEventReasonDisplayClockSetting);

/*
 * Functions: KPROF_NVML_FUNCS once more, now with NVIDIA's types in place
 * of ours (proven equal above), each real function assigned to a pointer
 * of the declared signature. A differing return or argument type is an
 * incompatible-pointer-types error.
 */
#define kprof_nvmlReturn_t	nvmlReturn_t
#define kprof_nvmlClockType_t	nvmlClockType_t
#define kprof_nvmlDevice_t	nvmlDevice_t
#define kprof_nvmlPciInfo_t	nvmlPciInfo_t
#define CHECK_FN(sym, ret, args) ret (*check_##sym) args = sym;
KPROF_NVML_FUNCS(CHECK_FN)

int main(void)
{
	return 0;
}
