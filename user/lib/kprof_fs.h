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

#endif /* KPROF_FS_H */
