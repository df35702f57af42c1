/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The agent's counters (KPROF_AGENT_COUNTERS=m1,m2,...): CUPTI's range
 * profiler, auto range (one range per kernel), kernel replay.
 */
#ifndef KPROF_CUPTI_COUNTERS_H
#define KPROF_CUPTI_COUNTERS_H

#include <stdint.h>

#include "kprof_cupti.h"

/*
 * From InitializeInjection (agent lock held), after cuptiSubscribe:
 * nothing when KPROF_AGENT_COUNTERS is unset. Writes the metrics' names
 * and enables the kernel launch callbacks it needs.
 */
void kprof_counters_init(void *cupti_lib, struct CUpti_Subscriber_st *sub,
			 kprof_cuptiEnableCallback_fn enable_cb,
			 kprof_cuptiGetCallbackName_fn cb_name);
/* From the subscriber callback, first (agent lock not held). */
void kprof_counters_cb(unsigned int domain, uint32_t cbid, const void *cbdata);
/* At exit, before the agent's STOP (agent lock not held). */
void kprof_counters_exit(void);
/* Agent lock held: the records the callbacks queued, into the spool. */
void kprof_counters_drain(void);

#endif /* KPROF_CUPTI_COUNTERS_H */
