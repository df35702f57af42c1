/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * NVIDIA GPUs through NVML: libnvidia-ml.so.1 is loaded with dlopen on
 * first use, so kprofctl runs where there is no NVIDIA driver (no
 * library: no NVIDIA devices). The ops table (kprof_device_nvidia_ops)
 * is in kprof_nvml.c; the decisions it makes are kprof_nvclock.c's.
 *
 * Clock lock and reset keep a state file per GPU in the run directory
 * (kprof_clockstate.h's "gpu" section, named by UUID), because NVML can
 * set a locked clock but cannot read one back: the file is how reset
 * knows what kprof did, and all it undoes.
 */
#ifndef KPROF_NVML_H
#define KPROF_NVML_H

#include <stdint.h>

#include "kprof_clockstate.h"
#include "kprof_err.h"
#include "kprof_nvml_api.h"

/* An open GPU (inside struct kprof_device). */
struct kprof_nvml_dev {
	kprof_nvmlDevice_t handle;
	uint32_t index;
	char uuid[KPROF_NVML_DEVICE_UUID_V2_BUFFER_SIZE];
};

/* What info shows. A clock of 0 MHz: NVML could not give it. */
struct kprof_nvml_info {
	uint32_t index;
	char name[KPROF_NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	char uuid[KPROF_NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	char pci_bus_id[KPROF_NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
	char driver[KPROF_NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	uint32_t sm_mhz, mem_mhz;		/* now */
	uint32_t max_sm_mhz, max_mem_mhz;
	uint32_t app_sm_mhz, app_mem_mhz;	/* applications clocks */
	uint32_t def_app_sm_mhz, def_app_mem_mhz;	/* their defaults */
	/* supported SM clocks at the current memory clock */
	uint32_t sup_sm_min, sup_sm_max, sup_sm_count;
	int has_reasons;
	uint64_t reasons;			/* clocks event reasons */
	/* kprof's lock, from the state file */
	char state_path[512];
	int held;
	struct kprof_gpu_clock state;
	int32_t state_pid;
};

/*
 * Load libnvidia-ml.so.1 and initialise NVML, once per process. 0;
 * -ENOENT when the library is absent (no NVIDIA driver installed); -ENODEV
 * when NVML cannot start (*nvml_rc gets its return code, may be NULL);
 * -ENOSYS when the library lacks a function kprof cannot do without.
 */
int kprof_nvml_load(struct kprof_err *err, int *nvml_rc);

#endif /* KPROF_NVML_H */
