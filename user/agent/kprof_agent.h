/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the agent's core (kprof_cupti_agent.c) lends its other parts
 * (kprof_cupti_counters.c): the spool, under the agent's lock, which
 * they are called with.
 */
#ifndef KPROF_AGENT_H
#define KPROF_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <kprof/gpu_rec.h>

/* lock held: one record into the spool; an AGENT record */
void kprof_agent_put(const void *rec, size_t len);
void kprof_agent_event(uint32_t event, int32_t code, uint64_t value, uint64_t value2,
		       const char *text);
/* an AGENT record as kprof_agent_event() writes it, made without the lock */
void kprof_agent_event_rec(struct kprof_grec_agent *r, uint32_t event, int32_t code,
			   uint64_t value, uint64_t value2, const char *text);
/* lock held: a frame of the test recording (KPROF_AGENT_RECORD) */
void kprof_agent_rec_frame(uint16_t type, uint32_t a, uint32_t b, uint64_t c,
			   const void *payload, size_t len);

#endif /* KPROF_AGENT_H */
