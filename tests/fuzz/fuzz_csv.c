// SPDX-License-Identifier: GPL-2.0
/*
 * The CSV reader (kprof_csvread.c) on a fuzzed file: the whole-table
 * loader and the row-at-a-time reader. Every field of every row is read,
 * so that ASan sees a slot left NULL or pointing into a freed record.
 * The records split in place must be the state machine's: both read the
 * file side by side (with a skip_from taken from the input) and any
 * difference aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kprof_csvread.h"

static size_t touch(char *const *f, int n)
{
	size_t sum = 0;

	for (int i = 0; i < n; i++)
		sum += strlen(f[i]);
	return sum;
}

static void same_as_slow(const char *path, int skip_from)
{
	FILE *fa = fopen(path, "r"), *fb = fopen(path, "r");
	struct kprof_err ea = { 0 }, eb = { 0 };
	struct kprof_csv_src a, b;
	int ra, rb;

	if (!fa || !fb)
		abort();
	kprof_csv_src_init(&a, fa, "f");
	kprof_csv_src_init(&b, fb, "f");
	a.slow_only = 1;
	a.skip_from = skip_from;
	b.skip_from = skip_from;
	do {
		ra = kprof_csv_record(&a, &ea);
		rb = kprof_csv_record(&b, &eb);
		if (ra != rb || (ra < 0 && strcmp(ea.msg, eb.msg)))
			abort();
		if (ra <= 0)
			break;
		if (a.nf != b.nf || a.nskip != b.nskip || a.line != b.line)
			abort();
		for (int i = 0; i < a.nf; i++)
			if (strcmp(a.fld[i], b.fld[i]))
				abort();
	} while (ra > 0);
	kprof_csv_src_free(&a);
	kprof_csv_src_free(&b);
	fclose(fa);
	fclose(fb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write("in.csv", data, size);
	struct kprof_csv_reader r;
	struct kprof_csv_table t;
	struct kprof_err err = { 0 };
	volatile size_t sum = 0;
	int ret;

	ret = kprof_csv_load(path, &t, &err);
	if (ret < 0 && !err.msg[0])
		abort();
	if (!ret) {
		sum += touch(t.header, t.ncols);
		for (size_t i = 0; i < t.nrows; i++)
			sum += touch(t.rows[i], t.ncols);
		sum += (size_t)kprof_csv_col(&t, "OP CODE");
		kprof_csv_free(&t);
	}
	memset(&err, 0, sizeof(err));
	ret = kprof_csv_open(path, &r, &err);
	if (ret < 0 && !err.msg[0])
		abort();
	if (!ret) {
		while ((ret = kprof_csv_next(&r, &err)) > 0)
			sum += touch(r.row, r.ncols);
		if (ret < 0 && !err.msg[0])
			abort();
		kprof_csv_close(&r);
	}
	same_as_slow(path, size ? data[0] % 5 : 0);
	(void)sum;
	return 0;
}
