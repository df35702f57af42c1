/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-point decimals without printf: what "%.Nf" writes, byte for byte,
 * for the outputs that write many of them (report.html's timeline). The
 * value is rounded from its exact binary value to N decimals, ties to
 * even, as glibc's printf does in the default rounding mode.
 */
#ifndef KPROF_FMT_H
#define KPROF_FMT_H

#include <stddef.h>

/* the longest kprof_fmt_fixed() output, NUL included */
#define KPROF_FMT_FIXED_MAX	400

/*
 * snprintf(out, len, "%.*f", prec, v) for prec <= 9, the same bytes;
 * values of 2^53 or more, NaN and infinities go to snprintf itself.
 * Returns the length, as snprintf does.
 */
int kprof_fmt_fixed(char *out, size_t len, double v, unsigned int prec);

#endif /* KPROF_FMT_H */
