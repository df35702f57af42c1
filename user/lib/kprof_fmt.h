/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decimals without printf, byte for byte what printf writes, for the
 * outputs that write many of them: integers (device_log.csv's and the
 * other CSVs' cells, trace.json, report.html) and fixed-point numbers
 * ("%.Nf": report.html's timeline; the value rounded from its exact
 * binary value to N decimals, ties to even, as glibc's printf does in the
 * default rounding mode).
 */
#ifndef KPROF_FMT_H
#define KPROF_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* the longest kprof_fmt_fixed() output, NUL included */
#define KPROF_FMT_FIXED_MAX	400

/*
 * snprintf(out, len, "%.*f", prec, v) for prec <= 9, the same bytes;
 * values of 2^53 or more, NaN and infinities go to snprintf itself.
 * Returns the length, as snprintf does.
 */
int kprof_fmt_fixed(char *out, size_t len, double v, unsigned int prec);

/*
 * v in decimal at p, as "%" PRIu64 writes it (at most 20 bytes, no NUL);
 * returns the end. Inline: device_log.csv writes four a row. Two digits
 * per division from the end, the last 8 of a long number (timestamps
 * have a dozen or more) by 32-bit divisions, cheaper than 64-bit ones.
 */
static inline char *kprof_fmt_u64(char *p, uint64_t v)
{
	/* "00" "01" ... "99": two digits at a time */
	static const char pairs[201] = {
		'0', '0', '0', '1', '0', '2', '0', '3', '0', '4', '0', '5', '0', '6', '0', '7',
		'0', '8', '0', '9', '1', '0', '1', '1', '1', '2', '1', '3', '1', '4', '1', '5',
		'1', '6', '1', '7', '1', '8', '1', '9', '2', '0', '2', '1', '2', '2', '2', '3',
		'2', '4', '2', '5', '2', '6', '2', '7', '2', '8', '2', '9', '3', '0', '3', '1',
		'3', '2', '3', '3', '3', '4', '3', '5', '3', '6', '3', '7', '3', '8', '3', '9',
		'4', '0', '4', '1', '4', '2', '4', '3', '4', '4', '4', '5', '4', '6', '4', '7',
		'4', '8', '4', '9', '5', '0', '5', '1', '5', '2', '5', '3', '5', '4', '5', '5',
		'5', '6', '5', '7', '5', '8', '5', '9', '6', '0', '6', '1', '6', '2', '6', '3',
		'6', '4', '6', '5', '6', '6', '6', '7', '6', '8', '6', '9', '7', '0', '7', '1',
		'7', '2', '7', '3', '7', '4', '7', '5', '7', '6', '7', '7', '7', '8', '7', '9',
		'8', '0', '8', '1', '8', '2', '8', '3', '8', '4', '8', '5', '8', '6', '8', '7',
		'8', '8', '8', '9', '9', '0', '9', '1', '9', '2', '9', '3', '9', '4', '9', '5',
		'9', '6', '9', '7', '9', '8', '9', '9',
	};
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	uint32_t lo = 0, a, b;
	int low8 = 0;
	unsigned int t;
	char *e;

	if (v < 10) {
		*p++ = (char)('0' + v);
		return p;
	}
	/*
	 * the timestamps have a dozen digits or more: their last 8 go by
	 * 32-bit divisions, cheaper than 64-bit ones
	 */
	if (v >= 100000000) {
		uint64_t hi = v / 100000000;

		lo = (uint32_t)(v - hi * 100000000);
		v = hi;
		low8 = 1;
	}
	/* digits: log10 from the bit length (1233 / 4096 ~ log10(2)), then
	 * two per division from the end
	 */
	t = (unsigned int)(64 - __builtin_clzll(v)) * 1233 >> 12;
	e = p + t + 1 - (v < pow10[t]);
	p = e;
	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	if (!low8)
		return e;
	a = lo / 10000;
	b = lo % 10000;
	memcpy(e, pairs + 2 * (a / 100), 2);
	memcpy(e + 2, pairs + 2 * (a % 100), 2);
	memcpy(e + 4, pairs + 2 * (b / 100), 2);
	memcpy(e + 6, pairs + 2 * (b % 100), 2);
	return e + 8;
}

#endif /* KPROF_FMT_H */
