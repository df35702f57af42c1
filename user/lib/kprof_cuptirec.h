/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recordings of what CUPTI handed the agent (KPROF_AGENT_RECORD=FILE):
 * the raw activity records of each buffer, the kernel name strings their
 * pointers pointed to, and the callback names the agent asked for. A
 * stand-in libcupti (tests/nvidia/cupti_standin.c) plays a recording back
 * through the same functions the agent calls, so the agent and the
 * report are tested on records from a real GPU without one.
 *
 * File: frames, each a struct kprof_crec_frame followed by len payload
 * bytes and zeros to a multiple of 8. Little-endian, the host's layout.
 */
#ifndef KPROF_CUPTIREC_H
#define KPROF_CUPTIREC_H

#include <stdint.h>

#define KPROF_CREC_MAGIC	0x3152434bU	/* "KCR1" */

#define KPROF_CREC_BEGIN	1	/* a buffer: a = stream id */
#define KPROF_CREC_RECORD	2	/* a = CUPTI kind; payload = the record */
#define KPROF_CREC_END		3	/* end of buffer: c = dropped records */
#define KPROF_CREC_STRING	4	/* c = pointer value; payload = text, NUL */
#define KPROF_CREC_CBNAME	5	/* a = domain, b = cbid; payload = name, NUL */
#define KPROF_CREC_CLOCK	6	/* a = 1: timestamp callback registered */
/* a kernel's counter values: a = correlation, b = count, c = cost ns;
 * payload = the doubles (NaN: metric refused)
 */
#define KPROF_CREC_METRICS	7

struct kprof_crec_frame {
	uint32_t magic;			/* KPROF_CREC_MAGIC */
	uint16_t type;			/* KPROF_CREC_* */
	uint16_t reserved;
	uint32_t a, b;
	uint64_t c;
	uint64_t len;			/* payload bytes (before padding) */
};

#include <stddef.h>

#include "kprof_err.h"

/* A recording, read whole (test data: small). */
struct kprof_crec {
	uint8_t *data;
	size_t len;
};

/* Reads and checks a recording (every frame's magic and length). */
int kprof_crec_load(const char *path, struct kprof_crec *r, struct kprof_err *err);
void kprof_crec_free(struct kprof_crec *r);
/* The frame at *off (0 for the first) and its payload, advancing *off;
 * NULL after the last.
 */
const struct kprof_crec_frame *kprof_crec_next(const struct kprof_crec *r, size_t *off,
					       const void **payload);

#endif /* KPROF_CUPTIREC_H */
