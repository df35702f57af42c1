/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* kprofctl capture --device nvidia:N (capture_nvidia.c). */
#ifndef _KPROFCTL_CAPTURE_NVIDIA_H
#define _KPROFCTL_CAPTURE_NVIDIA_H

#include <stdint.h>

/* 1 if capture's arguments name an NVIDIA device (--device nvidia:N). */
int capture_nvidia_wanted(int argc, char **argv);
/* The whole `kprofctl capture` for an NVIDIA device; returns the exit status. */
int capture_nvidia(int argc, char **argv);

#endif /* _KPROFCTL_CAPTURE_NVIDIA_H */
