// SPDX-License-Identifier: GPL-2.0
/*
 * `kprofctl diff A B` on fuzzed captures (kprof_diff.c through the CSV
 * reader): the input is A's ops.csv, A's counters.csv, B's ops.csv and
 * B's counters.csv, separated by form feeds ("\f"); a missing part is no
 * file. The table and the CSV are written to memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kprof_diff.h"

static const char *const names[] = { "a/ops.csv", "a/counters.csv", "b/ops.csv",
				     "b/counters.csv" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kprof_err err = { 0 };
	const struct kprof_diff_row *rows;
	struct kprof_diff *d;
	char dir[2][4096], *buf = NULL;
	size_t n, len, off = 0;
	FILE *f;

	fuzz_clean("a");
	fuzz_clean("b");
	for (int i = 0; i < 4 && off <= size; i++) {
		const uint8_t *ff = memchr(data + off, '\f', size - off);
		size_t end = ff ? (size_t)(ff - data) : size;

		fuzz_write(names[i], data + off, end - off);
		off = end + 1;
	}
	snprintf(dir[0], sizeof(dir[0]), "%s/a", fuzz_scratch());
	snprintf(dir[1], sizeof(dir[1]), "%s/b", fuzz_scratch());
	d = kprof_diff_new();
	if (!d)
		return 0;
	for (int side = 0; side < 2; side++)
		if (kprof_diff_add_capture(d, side, dir[side], &err)) {
			if (!err.msg[0])
				abort();
			goto out;
		}
	if (kprof_diff_compute(d, NULL, &rows, &n))
		goto out;
	f = open_memstream(&buf, &len);
	if (!f)
		goto out;
	kprof_diff_print(f, rows, n);
	kprof_diff_write_csv(f, rows, n);
	fclose(f);
	free(buf);
out:
	kprof_diff_free(d);
	return 0;
}
