/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record reader: the one parser for the {type, size, flags} record format,
 * used for the device stream (struct kprof_rec_* from <linux/kprof.h>),
 * the host spool (<kprof/host_event.h>) and the GPU agent's spools
 * (<kprof/gpu_rec.h>).
 *
 * Validation per record: size >= 8, size % 8 == 0, size >= the minimum for
 * the type (and for COUNTERS, room for popcount(counter_mask) values), and
 * the record does not run past the end of the buffer. Unknown types are
 * skipped by size. A record that fails validation stops the iteration with
 * an error naming its byte offset: after a bad size there is no reliable
 * way to find the next record.
 */
#ifndef KPROF_REC_H
#define KPROF_REC_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kprof.h>
#include <kprof/host_event.h>
#include <kprof/cuda_event.h>
#include <kprof/gpu_rec.h>

#include "kprof_err.h"

/* kprof_rec_next() results */
#define KPROF_REC_END		0	/* no more bytes */
#define KPROF_REC_OK		1	/* *rec points to a valid record */
#define KPROF_REC_PARTIAL	2	/* bytes left form an incomplete record */
#define KPROF_REC_BAD		(-1)	/* malformed record; err says where */

struct kprof_rec_iter {
	const uint8_t *buf;
	size_t len;
	size_t off;		/* next record's offset in buf */
	uint64_t base;		/* stream offset of buf[0], for messages */
	uint64_t skipped;	/* records of unknown type skipped */
};

void kprof_rec_iter_init(struct kprof_rec_iter *it, const void *buf,
			 size_t len, uint64_t base);

/*
 * Next record. On KPROF_REC_OK, *rec points into the buffer (8-byte aligned
 * if the buffer is) and it->off has advanced past it. PAD records and
 * unknown types are skipped, never returned. On KPROF_REC_PARTIAL it->off
 * stays at the incomplete record so that a streaming caller can keep the
 * tail and append more bytes; at the true end of data that is a truncated
 * record. On KPROF_REC_BAD, err has the stream offset and reason.
 * kprof_rec_next_slow() is the same for every case; kprof_rec_next() adds
 * an inline hot path before it.
 */
int kprof_rec_next_slow(struct kprof_rec_iter *it, const struct kprof_rec_hdr **rec,
			struct kprof_err *err);
/*
 * Bits set in v: inline, where a build without the POPCNT instruction
 * makes __builtin_popcountll a library call (once per COUNTERS record)
 */
static inline unsigned int kprof_popcount64(uint64_t v)
{
#ifdef __POPCNT__
	return (unsigned int)__builtin_popcountll(v);
#else
	v -= (v >> 1) & 0x5555555555555555ULL;
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned int)((v * 0x0101010101010101ULL) >> 56);
#endif
}

/* Bytes a COUNTERS record needs: its head and the values its mask names. */
static inline size_t kprof_rec_counters_need(const void *rec)
{
	struct kprof_rec_counters c;

	__builtin_memcpy(&c, rec, sizeof(c));
	return sizeof(c) + 8 * (size_t)kprof_popcount64(c.counter_mask);
}

/* minimum size of each device type, UINT16_MAX for PAD (kprof_rec.c) */
extern const uint16_t kprof_rec_dev_min[KPROF_REC_MAX + 1];
/* and of each GPU agent type, KPROF_GREC_AGENT on (<kprof/gpu_rec.h>) */
#define KPROF_REC_GPU_TYPES	(KPROF_GREC_DEVICE - KPROF_GREC_AGENT + 1)
extern const uint16_t kprof_rec_gpu_min[KPROF_REC_GPU_TYPES];

/*
 * kprof_rec_next()'s hot path, inline (the report's loops call it once per
 * record): the next record when it is a whole device record of a known
 * size and type, with the same checks as kprof_rec_next_slow() (size >=
 * the type's minimum >= 8, a multiple of 8, within the buffer), for the
 * types that need no more (not PAD, not COUNTERS); NULL for every other
 * case, it->off unchanged, for the slow path to do. A COUNTERS record
 * also needs room for its values (kprof_rec_counters_need), as there.
 * The GPU agent's types (an NVIDIA report's every record) come last.
 */
static inline const struct kprof_rec_hdr *kprof_rec_next_fast(struct kprof_rec_iter *it)
{
	size_t left = it->len - it->off;
	struct kprof_rec_hdr h;

	if (left >= sizeof(h)) {
		__builtin_memcpy(&h, it->buf + it->off, sizeof(h));
		/*
		 * a MARKER of its own size (nearly every record) passes the
		 * checks below once it fits: two compares of constants first
		 */
		if ((h.type == KPROF_REC_MARKER && h.size == sizeof(struct kprof_rec_marker) &&
		     h.size <= left) ||
		    (h.type <= KPROF_REC_MAX && h.size >= kprof_rec_dev_min[h.type] &&
		     !(h.size % 8) && h.size <= left &&
		     (h.type != KPROF_REC_COUNTERS ||
		      h.size >= kprof_rec_counters_need(it->buf + it->off))) ||
		    ((unsigned int)h.type - KPROF_GREC_AGENT < KPROF_REC_GPU_TYPES &&
		     h.size >= kprof_rec_gpu_min[h.type - KPROF_GREC_AGENT] &&
		     !(h.size % 8) && h.size <= left)) {
			const struct kprof_rec_hdr *r =
				(const struct kprof_rec_hdr *)(it->buf + it->off);

			it->off += h.size;
			return r;
		}
	}
	return NULL;
}

static inline int kprof_rec_next(struct kprof_rec_iter *it, const struct kprof_rec_hdr **rec,
				 struct kprof_err *err)
{
	const struct kprof_rec_hdr *r = kprof_rec_next_fast(it);

	if (r) {
		*rec = r;
		return KPROF_REC_OK;
	}
	return kprof_rec_next_slow(it, rec, err);
}

/* Minimum size of a known type (device or host), 0 for unknown types. */
size_t kprof_rec_min_size(unsigned int type);
/* Name of a type ("MARKER", "IOCTL", ...) or "UNKNOWN". */
const char *kprof_rec_type_name(unsigned int type);

#endif /* KPROF_REC_H */
