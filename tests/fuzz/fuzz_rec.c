// SPDX-License-Identifier: GPL-2.0
/*
 * Raw record stream (kprof_rec.c): the input is ring bytes. Iterates it
 * whole, then again fed in two pieces the way a streaming reader does
 * (keep the PARTIAL tail, append the rest), and checks the iterator's own
 * promises: records lie inside the buffer, are 8-byte multiples and at
 * least the type's minimum size.
 */
#include <stdlib.h>
#include <string.h>

#include "kprof_rec.h"

static void walk(const uint8_t *buf, size_t len)
{
	struct kprof_rec_iter it;
	const struct kprof_rec_hdr *rec;
	struct kprof_err err = { 0 };
	int r;

	kprof_rec_iter_init(&it, buf, len, 4096);
	while ((r = kprof_rec_next(&it, &rec, &err)) == KPROF_REC_OK) {
		const uint8_t *p = (const uint8_t *)rec;

		if (p < buf || p + rec->size > buf + len || rec->size < 8 ||
		    rec->size % 8 || rec->size < kprof_rec_min_size(rec->type))
			abort();
		(void)kprof_rec_type_name(rec->type);
	}
	if (r == KPROF_REC_BAD && !err.msg[0])
		abort();
	if (it.off > len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an aligned copy, as the ring and the spool reader provide */
	uint8_t *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	walk(buf, size);
	/* first half, then whatever the iterator left plus the rest */
	if (size >= 16) {
		struct kprof_rec_iter it;
		const struct kprof_rec_hdr *rec;
		struct kprof_err err = { 0 };
		size_t cut = (size / 2) & ~(size_t)7;

		kprof_rec_iter_init(&it, buf, cut, 0);
		while (kprof_rec_next(&it, &rec, &err) == KPROF_REC_OK)
			;
		walk(buf + it.off, size - it.off);
	}
	free(buf);
	return 0;
}
