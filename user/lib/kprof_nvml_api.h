/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The part of NVML (NVIDIA Management Library, libnvidia-ml.so.1) that
 * kprof uses, declared here under kprof_ names so that kprof builds
 * without NVIDIA's headers and loads the library at run time (dlopen):
 * kprofctl starts on machines without the driver. Values, layouts and
 * signatures are NVML's; tests/nvidia/nvml_decl_check.c checks every one
 * of them against the real nvml.h on a GPU host (`make check-nvidia`).
 * Add a declaration here only together with its check there.
 */
#ifndef KPROF_NVML_API_H
#define KPROF_NVML_API_H

/* nvmlReturn_t */
typedef enum kprof_nvmlReturn_enum {
	KPROF_NVML_SUCCESS = 0,
	KPROF_NVML_ERROR_UNINITIALIZED = 1,
	KPROF_NVML_ERROR_INVALID_ARGUMENT = 2,
	KPROF_NVML_ERROR_NOT_SUPPORTED = 3,
	KPROF_NVML_ERROR_NO_PERMISSION = 4,
	KPROF_NVML_ERROR_ALREADY_INITIALIZED = 5,
	KPROF_NVML_ERROR_NOT_FOUND = 6,
	KPROF_NVML_ERROR_INSUFFICIENT_SIZE = 7,
	KPROF_NVML_ERROR_DRIVER_NOT_LOADED = 9,
	KPROF_NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	KPROF_NVML_ERROR_GPU_IS_LOST = 15,
	KPROF_NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	KPROF_NVML_ERROR_IN_USE = 19,
	KPROF_NVML_ERROR_UNKNOWN = 999,
} kprof_nvmlReturn_t;

/* nvmlClockType_t */
typedef enum kprof_nvmlClockType_enum {
	KPROF_NVML_CLOCK_GRAPHICS = 0,
	KPROF_NVML_CLOCK_SM = 1,
	KPROF_NVML_CLOCK_MEM = 2,
	KPROF_NVML_CLOCK_VIDEO = 3,
} kprof_nvmlClockType_t;

/* nvmlDevice_t: an opaque handle */
typedef struct kprof_nvmlDevice_st *kprof_nvmlDevice_t;

/* Buffer sizes NVML guarantees to be enough. */
#define KPROF_NVML_DEVICE_NAME_V2_BUFFER_SIZE		96
#define KPROF_NVML_DEVICE_UUID_V2_BUFFER_SIZE		96
#define KPROF_NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE	80
#define KPROF_NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE	32
#define KPROF_NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE	16

/* nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3) */
typedef struct kprof_nvmlPciInfo_st {
	char busIdLegacy[KPROF_NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[KPROF_NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} kprof_nvmlPciInfo_t;

/*
 * nvmlClocksEventReason* (formerly nvmlClocksThrottleReason*): the bits of
 * nvmlDeviceGetCurrentClocksEventReasons().
 */
#define KPROF_NVML_EVENT_GPU_IDLE		0x0000000000000001ULL
#define KPROF_NVML_EVENT_APP_CLOCKS_SETTING	0x0000000000000002ULL
#define KPROF_NVML_EVENT_SW_POWER_CAP		0x0000000000000004ULL
#define KPROF_NVML_EVENT_HW_SLOWDOWN		0x0000000000000008ULL
#define KPROF_NVML_EVENT_SYNC_BOOST		0x0000000000000010ULL
#define KPROF_NVML_EVENT_SW_THERMAL_SLOWDOWN	0x0000000000000020ULL
#define KPROF_NVML_EVENT_HW_THERMAL_SLOWDOWN	0x0000000000000040ULL
#define KPROF_NVML_EVENT_HW_POWER_BRAKE_SLOWDOWN 0x0000000000000080ULL
#define KPROF_NVML_EVENT_DISPLAY_CLOCK_SETTING	0x0000000000000100ULL

/*
 * The functions, as pointer types. X(symbol, return type, arguments) is
 * expanded by the loader (kprof_nvml.c), the declaration check and the
 * stand-in library used by the tests; the symbol is the exported name
 * (versioned where nvml.h maps the plain name to a version).
 */
#define KPROF_NVML_FUNCS(X)							\
	X(nvmlInit_v2, kprof_nvmlReturn_t, (void))				\
	X(nvmlShutdown, kprof_nvmlReturn_t, (void))				\
	X(nvmlErrorString, const char *, (kprof_nvmlReturn_t result))		\
	X(nvmlSystemGetDriverVersion, kprof_nvmlReturn_t,			\
	  (char *version, unsigned int length))					\
	X(nvmlDeviceGetCount_v2, kprof_nvmlReturn_t, (unsigned int *deviceCount)) \
	X(nvmlDeviceGetHandleByIndex_v2, kprof_nvmlReturn_t,			\
	  (unsigned int index, kprof_nvmlDevice_t *device))			\
	X(nvmlDeviceGetHandleByUUID, kprof_nvmlReturn_t,			\
	  (const char *uuid, kprof_nvmlDevice_t *device))			\
	X(nvmlDeviceGetIndex, kprof_nvmlReturn_t,				\
	  (kprof_nvmlDevice_t device, unsigned int *index))			\
	X(nvmlDeviceGetName, kprof_nvmlReturn_t,				\
	  (kprof_nvmlDevice_t device, char *name, unsigned int length))		\
	X(nvmlDeviceGetUUID, kprof_nvmlReturn_t,				\
	  (kprof_nvmlDevice_t device, char *uuid, unsigned int length))		\
	X(nvmlDeviceGetPciInfo_v3, kprof_nvmlReturn_t,				\
	  (kprof_nvmlDevice_t device, kprof_nvmlPciInfo_t *pci))		\
	X(nvmlDeviceGetClockInfo, kprof_nvmlReturn_t,				\
	  (kprof_nvmlDevice_t device, kprof_nvmlClockType_t type,		\
	   unsigned int *clock))						\
	X(nvmlDeviceGetMaxClockInfo, kprof_nvmlReturn_t,			\
	  (kprof_nvmlDevice_t device, kprof_nvmlClockType_t type,		\
	   unsigned int *clock))						\
	X(nvmlDeviceGetApplicationsClock, kprof_nvmlReturn_t,			\
	  (kprof_nvmlDevice_t device, kprof_nvmlClockType_t clockType,		\
	   unsigned int *clockMHz))						\
	X(nvmlDeviceGetDefaultApplicationsClock, kprof_nvmlReturn_t,		\
	  (kprof_nvmlDevice_t device, kprof_nvmlClockType_t clockType,		\
	   unsigned int *clockMHz))						\
	X(nvmlDeviceGetSupportedMemoryClocks, kprof_nvmlReturn_t,		\
	  (kprof_nvmlDevice_t device, unsigned int *count,			\
	   unsigned int *clocksMHz))						\
	X(nvmlDeviceGetSupportedGraphicsClocks, kprof_nvmlReturn_t,		\
	  (kprof_nvmlDevice_t device, unsigned int memoryClockMHz,		\
	   unsigned int *count, unsigned int *clocksMHz))			\
	X(nvmlDeviceGetCurrentClocksEventReasons, kprof_nvmlReturn_t,		\
	  (kprof_nvmlDevice_t device, unsigned long long *clocksEventReasons))	\
	X(nvmlDeviceSetGpuLockedClocks, kprof_nvmlReturn_t,			\
	  (kprof_nvmlDevice_t device, unsigned int minGpuClockMHz,		\
	   unsigned int maxGpuClockMHz))					\
	X(nvmlDeviceResetGpuLockedClocks, kprof_nvmlReturn_t,			\
	  (kprof_nvmlDevice_t device))						\
	X(nvmlDeviceSetMemoryLockedClocks, kprof_nvmlReturn_t,			\
	  (kprof_nvmlDevice_t device, unsigned int minMemClockMHz,		\
	   unsigned int maxMemClockMHz))					\
	X(nvmlDeviceResetMemoryLockedClocks, kprof_nvmlReturn_t,		\
	  (kprof_nvmlDevice_t device))

/* kprof_nvml_fn_<symbol>: pointer to each function */
#define KPROF_NVML_FN_TYPEDEF(sym, ret, args) typedef ret (*kprof_nvml_fn_##sym) args;
KPROF_NVML_FUNCS(KPROF_NVML_FN_TYPEDEF)
#undef KPROF_NVML_FN_TYPEDEF

#endif /* KPROF_NVML_API_H */
