// SPDX-License-Identifier: GPL-2.0
/*
 * The CSV reader (kprof_csvread.c) on a fuzzed file: the whole-table
 * loader and the row-at-a-time reader. Every field of every row is read,
 * so that ASan sees a slot left NULL or pointing into a freed record.
 * The records split in place must be the state machine's, with the
 * split's SSE2 scan and with its portable one: the three read the file
 * side by side (with a skip_from taken from the input) and any
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
	struct kprof_err err[3];
	struct kprof_csv_src s[3];
	FILE *f[3];
	int r[3];

	for (int w = 0; w < 3; w++) {
		f[w] = fopen(path, "r");
		if (!f[w])
			abort();
		kprof_csv_src_init(&s[w], f[w], "f");
		s[w].skip_from = skip_from;
		memset(&err[w], 0, sizeof(err[w]));
	}
	s[0].slow_only = 1;
	s[2].scalar_scan = 1;
	do {
		for (int w = 0; w < 3; w++)
			r[w] = kprof_csv_record(&s[w], &err[w]);
		for (int w = 1; w < 3; w++) {
			const struct kprof_csv_src *a = &s[0], *b = &s[w];

			if (r[w] != r[0] || (r[0] < 0 && strcmp(err[0].msg, err[w].msg)))
				abort();
			if (r[0] <= 0)
				continue;
			if (a->nf != b->nf || a->nskip != b->nskip || a->line != b->line)
				abort();
			for (int i = 0; i < a->nf; i++)
				if (strcmp(a->fld[i], b->fld[i]) || b->flen[i] != strlen(b->fld[i]))
					abort();
		}
	} while (r[0] > 0);
	for (int w = 0; w < 3; w++) {
		kprof_csv_src_free(&s[w]);
		fclose(f[w]);
	}
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
