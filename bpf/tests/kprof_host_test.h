/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the BPF host tests (kprof_bpf_host_test.c, kprof_cuda_host_test.c)
 * report with: CHECK() counts a failure and says where, test_ok() prints
 * a test's "ok NAME" or "not ok NAME" line.
 */
#ifndef KPROF_HOST_TEST_H
#define KPROF_HOST_TEST_H

#include <stdarg.h>
#include <stdio.h>

static int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

/* The line of a test begun when failures was before; 1 if it passed. */
static inline __attribute__((format(printf, 2, 3)))
int test_ok(int before, const char *fmt, ...)
{
	int ok = failures == before;
	va_list ap;

	printf("%s ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return ok;
}

#endif /* KPROF_HOST_TEST_H */
