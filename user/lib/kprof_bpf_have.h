/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Whether this build has the BPF loaders (kprof_bpf.c, kprof_bpf_cuda.c),
 * for their headers. They are in libkprof.a only when the BPF skeletons
 * were built (user/Makefile looks for them in $(BUILD)/bpf, which is on
 * the include path). The same test here turns the loaders' calls into
 * stand-ins without them, so that kprofctl still builds and says at run
 * time what is missing.
 */
#ifndef KPROF_BPF_HAVE_H
#define KPROF_BPF_HAVE_H

#if defined(__has_include)
#if __has_include("kprof_ioctl.skel.h") && __has_include("kprof_cuda.skel.h")
#define KPROF_HAVE_BPF 1
#endif
#endif
#ifndef KPROF_HAVE_BPF
#define KPROF_HAVE_BPF 0
#endif

#if !KPROF_HAVE_BPF
#include <errno.h>
#include "kprof_err.h"

/* What the stand-in of each loader's open says. */
static inline int kprof_bpf_unsupported(struct kprof_err *err)
{
	return kprof_err_set(err, ENOTSUP,
			     "this kprofctl was built without BPF support (no skeletons: run 'make bpf' then 'make user')");
}
#endif

#endif /* KPROF_BPF_HAVE_H */
