/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host cpufreq saved state: what `kprofctl lock-clock --host`
 * found before it changed anything, so reset-clock restores it byte for
 * byte. Values are kept as the exact sysfs text (trailing newline
 * removed), never reformatted. The file is JSON (json-c), written
 * atomically (tmp file + fsync + rename + fsync of the directory) and
 * parsed strictly: unknown keys, missing keys, wrong types -> error.
 *
 * The sysfs I/O itself is CTL's (kprof_cpufreq.c); this file only knows
 * the state file format.
 */
#ifndef KPROF_CLOCKSTATE_H
#define KPROF_CLOCKSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "kprof_err.h"

#define KPROF_CLOCKSTATE_VERSION	1
#define KPROF_CLOCKSTATE_VAL_LEN	64

struct kprof_cpu_clock {
	uint32_t cpu;					/* N of cpuN */
	char governor[KPROF_CLOCKSTATE_VAL_LEN];	/* scaling_governor */
	char min_freq[KPROF_CLOCKSTATE_VAL_LEN];	/* scaling_min_freq (kHz text) */
	char max_freq[KPROF_CLOCKSTATE_VAL_LEN];	/* scaling_max_freq (kHz text) */
};

/*
 * GPU state files (kprofctl lock-clock --device nvidia:N) carry this
 * instead of cpufreq values: what kprof locked, so that reset undoes
 * exactly that, and what it read before the first lock (information:
 * NVML cannot read a lock back). 0 MHz = none / could not be read.
 */
struct kprof_gpu_clock {
	char uuid[96];				/* "GPU-...", NVML's UUID buffer size */
	uint32_t index;				/* NVML index when locked */
	uint32_t sm_locked_mhz;			/* nvmlDeviceSetGpuLockedClocks */
	uint32_t mem_locked_mhz;		/* nvmlDeviceSetMemoryLockedClocks; 0 = not */
	uint32_t before_sm_mhz;
	uint32_t before_mem_mhz;
	uint32_t before_app_sm_mhz;		/* applications clocks */
	uint32_t before_app_mem_mhz;
	int has_before_reasons;
	uint64_t before_reasons;		/* clocks event reasons mask */
};

struct kprof_clockstate {
	char sysfs_root[256];		/* root used when saved ("" = "/") */
	int32_t pid;			/* who saved it */
	uint64_t saved_at;		/* CLOCK_REALTIME seconds */
	int has_boost;			/* cpufreq/boost existed */
	char boost[KPROF_CLOCKSTATE_VAL_LEN];
	int has_no_turbo;		/* intel_pstate/no_turbo existed */
	char no_turbo[KPROF_CLOCKSTATE_VAL_LEN];
	size_t ncpus;
	struct kprof_cpu_clock *cpus;	/* malloc'd; kprof_clockstate_free() */
	int has_gpu;			/* optional "gpu" key */
	struct kprof_gpu_clock gpu;
};

struct stat;

/*
 * Write through a temporary file created with O_EXCL | O_NOFOLLOW in the
 * same directory (dirfd), renamed over name.
 */
int kprof_clockstate_write_at(int dirfd, const char *name, const struct kprof_clockstate *st,
			      struct kprof_err *err);
int kprof_clockstate_write(const char *path, const struct kprof_clockstate *st,
			   struct kprof_err *err);
/*
 * Fills *st (caller's, zeroed first); on error nothing is left allocated.
 * The file is opened O_NOFOLLOW and must be a regular file that passes
 * kprof_clockstate_trusted(); shown names it in messages.
 */
int kprof_clockstate_read_at(int dirfd, const char *name, const char *shown,
			     struct kprof_clockstate *st, struct kprof_err *err);
int kprof_clockstate_read(const char *path, struct kprof_clockstate *st,
			  struct kprof_err *err);
/*
 * A file or directory whose contents decide what gets written to sysfs
 * as root: owned by root or by this user, writable by nobody else. 0, or
 * -EPERM with err saying what is wrong and what to do.
 */
int kprof_clockstate_trusted(const struct stat *sb, const char *path,
			     struct kprof_err *err);
/* Same from a JSON string (tests, messages). */
int kprof_clockstate_parse(const char *json, struct kprof_clockstate *st,
			   struct kprof_err *err);
void kprof_clockstate_free(struct kprof_clockstate *st);

#endif /* KPROF_CLOCKSTATE_H */
