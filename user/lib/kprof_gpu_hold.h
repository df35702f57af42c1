/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One capture per NVIDIA GPU, as kprof.ko allows one per device: a
 * capture holds its GPU by binding the abstract unix socket
 * "kprof-capture:<key>" (key: the GPU's UUID, else nvidia:N) and
 * listening on it. A second capture's bind fails; it connects to learn
 * the holder's pid (SO_PEERCRED) and name (/proc/PID/comm). The kernel
 * releases it when the holder's socket closes, also when the holder dies:
 * no stale lock files, and it works for every user. Abstract sockets are
 * per network namespace: captures in different ones do not see each other.
 */
#ifndef KPROF_GPU_HOLD_H
#define KPROF_GPU_HOLD_H

#include <stddef.h>
#include <sys/types.h>

#include "kprof_err.h"

/*
 * Holds key: the socket's fd (>= 0; kprof_gpu_release gives it back), or
 * -EBUSY with the holder's *pid and comm (0 and "" when it cannot be
 * learnt), or -errno with err set.
 */
int kprof_gpu_hold(const char *key, pid_t *pid, char *comm, size_t comm_len,
		   struct kprof_err *err);
void kprof_gpu_release(int fd);

#endif /* KPROF_GPU_HOLD_H */
