/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ARRAY_SIZE, as the kernel's linux/array_size.h has it, for the user
 * space of kprof (the kselftests take kselftest.h's).
 */
#ifndef KPROF_ARRAY_SIZE_H
#define KPROF_ARRAY_SIZE_H

/* The number of elements of an array (not of a pointer). */
#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))

#endif /* KPROF_ARRAY_SIZE_H */
