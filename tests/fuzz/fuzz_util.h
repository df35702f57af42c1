/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libFuzzer targets: a private scratch directory
 * (made once per process, removed at exit) and writing an input to a file
 * there, for the parsers whose API takes a path.
 */
#ifndef KPROF_FUZZ_UTIL_H
#define KPROF_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The scratch directory ($TMPDIR or /tmp), created on first use. */
const char *fuzz_scratch(void);
/* Writes data to <scratch>/<name>; aborts on I/O errors (not the target's
 * fault, and a silent skip would hide it). Returns the path (static).
 */
const char *fuzz_write(const char *name, const void *data, size_t len);
/* The input as a NUL-terminated string (malloc'ed; NULL if out of
 * memory), for the parsers that take text.
 */
char *fuzz_cstr(const uint8_t *data, size_t size);
/* Removes every file under <scratch>/<sub> (one level of directories). */
void fuzz_clean(const char *sub);

#endif /* KPROF_FUZZ_UTIL_H */
