/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest_harness.h (from linux-source-6.1) under our -Wextra build.
 * The harness has an unused signal-handler parameter, and its ASSERT_*
 * macros compare the literal expected value (int) with unsigned uAPI
 * fields, so those two warnings are off for the test translation units;
 * everything else in -Wall -Wextra -Werror stays on.
 */
#ifndef KPROF_HARNESS_H
#define KPROF_HARNESS_H

#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#endif /* KPROF_HARNESS_H */
