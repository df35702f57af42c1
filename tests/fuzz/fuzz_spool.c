// SPDX-License-Identifier: GPL-2.0
/*
 * Spool reader (kprof_spool.c): the input is a whole spool file. Reads
 * every record, rewinds and reads again: both passes must agree.
 */
#include <stdlib.h>

#include "fuzz_util.h"
#include "kprof_spool.h"

static uint64_t pass(struct kprof_spool_reader *r, int *last)
{
	const struct kprof_rec_hdr *rec;
	struct kprof_err err = { 0 };
	uint64_t n = 0;
	int ret;

	while ((ret = kprof_spool_next(r, &rec, &err)) == KPROF_REC_OK) {
		if (rec->size < 8 || rec->size % 8)
			abort();
		n++;
	}
	if (ret == KPROF_REC_BAD && !err.msg[0])
		abort();
	*last = ret;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write("in.kspool", data, size);
	struct kprof_spool_reader *r;
	struct kprof_err err = { 0 };
	uint64_t n1, n2;
	int l1, l2;

	r = kprof_spool_open(path, &err);
	if (!r) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	(void)kprof_spool_header(r);
	n1 = pass(r, &l1);
	if (kprof_spool_rewind(r, &err) == 0) {
		n2 = pass(r, &l2);
		if (n1 != n2 || l1 != l2)
			abort();
	}
	(void)kprof_spool_reader_stats(r);
	kprof_spool_free(r);
	return 0;
}
