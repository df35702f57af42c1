/* SPDX-License-Identifier: GPL-2.0 */
/* Small file-system helpers shared by libkprof and kprofctl. */
#ifndef KPROF_FS_H
#define KPROF_FS_H

#include "kprof_err.h"

/*
 * mkdir -p with mode 0755: creates dir and its missing parents. Returns 0,
 * or -errno with err (if non-NULL) naming the component that failed;
 * -ENAMETOOLONG for an empty name or one longer than PATH_MAX.
 */
int kprof_mkdir_p(const char *dir, struct kprof_err *err);

/*
 * The whole file as a NUL-terminated string (malloc'ed; the caller frees
 * it), or NULL if it cannot be opened or read (errno says why). Meant for
 * small text files: JSON configs, peaks, report pages.
 */
char *kprof_read_file(const char *path);

#endif /* KPROF_FS_H */
