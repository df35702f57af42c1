/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry points of the simulated accelerator backend, called by the kprof
 * core's module init/exit. Everything else about the sim is private to
 * kmod/sim/ (kprof_sim_priv.h).
 */
#ifndef _KPROF_SIM_H
#define _KPROF_SIM_H

/* Registers the kprof_sim bus and creates sim_devices devices. */
int kprof_sim_init(void);
/* Removes every sim device and the bus. */
void kprof_sim_exit(void);

#endif /* _KPROF_SIM_H */
