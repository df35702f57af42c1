/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* kprofctl: subcommand entry points and the helpers they share. */
#ifndef _KPROFCTL_H
#define _KPROFCTL_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/kprof.h>

/* From packaging/debian/changelog, by user/Makefile (scripts/version.sh). */
#ifndef KPROF_VERSION
#error "KPROF_VERSION is not defined: build kprofctl with user/Makefile"
#endif

/* Exit codes beside a command's own status. */
#define KPROFCTL_EXIT_OK	0
#define KPROFCTL_EXIT_FAIL	1
#define KPROFCTL_EXIT_USAGE	2

int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_lock_clock(int argc, char **argv);
int cmd_reset_clock(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/* "kprofctl CMD: <msg>\nTry 'kprofctl CMD --help'." and returns 2. */
int kprofctl_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "kprofctl: <msg>" on stderr. */
void kprofctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kprofctl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict number parsing: whole string, in range. 0 or -1. */
int kprofctl_parse_u32(const char *s, uint32_t max, uint32_t *out);
/* Size with optional K/M/G suffix (powers of 1024). */
int kprofctl_parse_size(const char *s, uint64_t *out);

/* Device description shared by list and info (text and JSON). */
struct json_object;
struct kprof_dev;
struct json_object *kprofctl_device_json(const struct kprof_device_info *info,
					 const struct kprof_counter_info *ci,
					 const struct kprof_clock_state *cs);
struct kprof_device_desc;
/* An NVIDIA GPU for list and info --json. */
struct json_object *kprofctl_nvidia_json(const struct kprof_device_desc *desc);
/*
 * The output directory dir (kprof_outdir_open with flags), or NULL after
 * printing why. uid/gid: who the outputs belong to, (uid_t)-1/(gid_t)-1
 * for kprofctl's own user (report and diff, which have already become
 * the files' owner); capture passes the workload's user.
 */
struct kprof_outdir;
struct kprof_outdir *kprofctl_outdir(const char *dir, unsigned int flags, uid_t uid,
				     gid_t gid);
struct kprof_report_result;
/* The few lines printed after a report or capture. */
void kprofctl_print_result(const char *dir, const struct kprof_report_result *res,
			   int ttmetal);
/*
 * report and diff need no privileges. As root, before reading or writing
 * anything: under sudo become the sudo user; else become the one
 * non-root user who owns paths (inputs, and outputs or the directories
 * they go in). Nothing to do when not root, or as root (no sudo) on
 * root's files. 0, or -1 after saying why (files of two users, or the
 * drop failed).
 */
int kprofctl_run_as_owner(const char *cmd, const char *const *paths, size_t n);

#endif /* _KPROFCTL_H */
