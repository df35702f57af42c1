/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host CPU clock lock and reset through cpufreq sysfs.
 *
 * A snapshot (LIBK's struct kprof_clockstate, the state file's contents)
 * holds the text of every sysfs file a lock changes, so a reset writes
 * back exactly what was there. Per-policy values are stored under
 * cpu = N of policyN (a policy is named after its first CPU). The state
 * file keeps values without their trailing newline; sysfs files always
 * end in one, so restore writes value + "\n". The sysfs root is
 * $KPROF_SYSFS_ROOT (default "/sys"), so tests run against a fake tree.
 * Functions return 0 or -errno.
 */
#ifndef _KPROF_CPUFREQ_H
#define _KPROF_CPUFREQ_H

#include <stddef.h>
#include <stdint.h>

#include "kprof_clockstate.h"

/* kprof_cpufreq_lock() target selection */
enum kprof_cpufreq_target {
	KPROF_CPUFREQ_MAX,	/* highest non-boost frequency */
	KPROF_CPUFREQ_BASE,	/* base_frequency where exposed, else MAX */
	KPROF_CPUFREQ_KHZ,	/* explicit frequency */
};

/* $KPROF_SYSFS_ROOT or "/sys". */
const char *kprof_cpufreq_root(void);

/* Number of cpufreq policies under root; -ENOENT when cpufreq is absent. */
int kprof_cpufreq_policies(const char *root);

/*
 * Read every file a lock touches (governor, min, max per policy; boost,
 * no_turbo). Free with kprof_clockstate_free().
 */
int kprof_cpufreq_snapshot(const char *root, struct kprof_clockstate *s);

/*
 * Pin every policy: boost off (boost=0 / intel_pstate no_turbo=1),
 * governor "performance", scaling_min_freq = scaling_max_freq = target.
 * khz is used for KPROF_CPUFREQ_KHZ and must lie within cpuinfo min..max.
 * *locked_khz gets the frequency chosen for policy0 (may be NULL).
 */
int kprof_cpufreq_lock(const char *root, enum kprof_cpufreq_target target,
		       uint32_t khz, uint32_t *locked_khz);

/* Write a snapshot back, in an order the kernel accepts. */
int kprof_cpufreq_restore(const char *root, const struct kprof_clockstate *s);

/*
 * The whole host lock / reset, with the saved state in
 * <run_dir>/host-clock.json and <run_dir>/clock.lock held with flock()
 * so that two runs cannot race. The run directory must be root's (or
 * this user's) and writable by nobody else; the files in it are opened
 * O_NOFOLLOW and checked the same way (kprof_clockstate_trusted()).
 * Lock saves the state only if none is saved (reset returns to the
 * state before the first lock); reset restores it and removes the
 * file. *msg gets a line for the user.
 */
int kprof_host_clock_lock(const char *root, const char *run_dir,
			  enum kprof_cpufreq_target target, uint32_t khz,
			  char *msg, size_t msg_len);
int kprof_host_clock_reset(const char *root, const char *run_dir,
			   char *msg, size_t msg_len);
/*
 * reset's return when the restore was written but the kernel shows other
 * values (*msg lists them): the state file is removed all the same, since
 * writing it again would give the same; not an error.
 */
#define KPROF_HOST_RESET_ADJUSTED	1

/*
 * Discard the saved state without touching any clock (a state that can
 * no longer be restored: unreadable, another sysfs root, values the
 * kernel refuses). *msg says what it recorded. 0 or -errno.
 */
int kprof_host_clock_forget(const char *run_dir, char *msg, size_t msg_len);

/*
 * The saved state, for display (info, params.json): 0, -ENOENT when
 * nothing is saved, or -errno with err; *path gets the file's name.
 * The run directory and the file are checked as for lock and reset.
 */
int kprof_host_clock_saved(const char *run_dir, struct kprof_clockstate *st,
			   char *path, size_t path_len, struct kprof_err *err);

/* $KPROF_RUN_DIR or "/run/kprof". */
const char *kprof_run_dir(void);

/*
 * <run_dir>/clock.lock, the lock every clock change (host and GPU) holds
 * while it reads and writes its state file: an fd, or -errno with *msg.
 */
int kprof_clock_run_lock(const char *run_dir, char *msg, size_t msg_len);
void kprof_clock_run_unlock(int fd);

#endif /* _KPROF_CPUFREQ_H */
