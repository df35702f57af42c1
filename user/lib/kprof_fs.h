/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small file-system helpers shared by libkprof and kprofctl, and the one
 * way libkprof opens its inputs (capture directories, peaks files, tt-metal
 * logs, CSV files read back). Inputs may come from another user or another
 * machine while kprofctl runs as root, so an input is opened only if it is
 * a regular file reached without a symbolic link: a link to a root-only
 * file cannot leak it into the (world-readable) outputs, and a FIFO or a
 * device cannot block the report or trigger a driver.
 * Outputs: kprof_outdir.h.
 */
#ifndef KPROF_FS_H
#define KPROF_FS_H

#include <stddef.h>
#include <stdio.h>

#include "kprof_err.h"

/* Most kprof_in_read() reads of a small JSON input (config, peaks). */
#define KPROF_IN_JSON_MAX	(1U << 20)

/*
 * mkdir -p with mode 0755: creates dir and its missing parents. Returns 0,
 * or -errno with err (if non-NULL) naming the component that failed;
 * -ENAMETOOLONG for an empty name or one longer than PATH_MAX.
 */
int kprof_mkdir_p(const char *dir, struct kprof_err *err);

/*
 * Opens the input file path for reading (O_CLOEXEC). With dirfd
 * AT_FDCWD, path is a name the user gave: its last component must not be
 * a symbolic link. With a directory fd (a capture directory), path is
 * relative to it ("raw/config.json") and no component may be a link or
 * "..". The file must be a regular file: FIFOs, devices, sockets and
 * directories are refused before anything could block on them. shown
 * names the file in messages (NULL: path). Returns the fd, or -errno with
 * err set (-ENOENT when it does not exist).
 */
int kprof_in_open(int dirfd, const char *path, const char *shown, struct kprof_err *err);
/* Same, as a stdio stream (NULL with err set; errno = err's code). */
FILE *kprof_in_fopen(int dirfd, const char *path, const char *shown, struct kprof_err *err);
/*
 * The whole input file (kprof_in_open rules) as a NUL-terminated string,
 * malloc'ed, *len (if non-NULL) its length. A file over max bytes is
 * refused with a message saying so. NULL with err set (code ENOENT when
 * it does not exist).
 */
char *kprof_in_read(int dirfd, const char *path, const char *shown, size_t max,
		    size_t *len, struct kprof_err *err);

#endif /* KPROF_FS_H */
