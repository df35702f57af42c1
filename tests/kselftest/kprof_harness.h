/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest_harness.h (from linux-source-6.1) under our -Wextra build.
 * The harness has an unused signal-handler parameter, and its ASSERT_*
 * macros compare the literal expected value (int) with unsigned uAPI
 * fields, so those two warnings are off for the test translation units;
 * everything else in -Wall -Wextra -Werror stays on.
 *
 * TEST_HARNESS_MAIN is replaced by one that first multiplies every test's
 * time limit (the harness's 30 s default and each TEST_F_TIMEOUT) by
 * KPROF_TEST_TIMEOUT_SCALE, a whole number from 1 to 100. The debug-kernel
 * lane sets it (tests/vm/debug-kernel/suite.sh): the limits are sized for
 * the stock kernel under TCG, and KASAN + lockdep make everything several
 * times slower. Unset means 1; a bad value fails the binary.
 */
#ifndef KPROF_HARNESS_H
#define KPROF_HARNESS_H

#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <stdlib.h>

#define KPROF_TIMEOUT_SCALE_ENV	"KPROF_TEST_TIMEOUT_SCALE"

/* 1 when unset, the factor when valid, -1 (after a message) when not. */
static inline int kprof_timeout_scale(void)
{
	const char *s = getenv(KPROF_TIMEOUT_SCALE_ENV);
	char *end;
	long v;

	if (!s || !*s)
		return 1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > 100) {
		ksft_print_msg("%s='%s': want a whole number from 1 to 100\n",
			       KPROF_TIMEOUT_SCALE_ENV, s);
		return -1;
	}
	return (int)v;
}

static inline int kprof_harness_run(int argc, char **argv)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	int scale = kprof_timeout_scale();

	if (scale < 0)
		return KSFT_FAIL;
	if (scale > 1) {
		for (f = __fixture_list; f; f = f->next)
			for (t = f->tests; t; t = t->next)
				t->timeout *= scale;
		ksft_print_msg("time limits x%d (%s)\n", scale,
			       KPROF_TIMEOUT_SCALE_ENV);
	}
	return test_harness_run(argc, argv);
}

#undef TEST_HARNESS_MAIN
#define TEST_HARNESS_MAIN \
	static void __attribute__((constructor)) \
	__constructor_order_last(void) \
	{ \
		if (!__constructor_order) \
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	} \
	int main(int argc, char **argv) \
	{ \
		exit(kprof_harness_run(argc, argv)); \
	}

#endif /* KPROF_HARNESS_H */
