// SPDX-License-Identifier: GPL-2.0
/*
 * "%.Nf" without printf (kprof_fmt.h). glibc's printf formats a double
 * with multi-precision arithmetic, about 1,500 instructions for a
 * timeline coordinate; this takes the value apart as M x 2^e (M an
 * integer below 2^53) and does the rounding in 128-bit integers, exact.
 */
#include "kprof_fmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const uint32_t pow10_u32[10] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

/* bits of pow10_u32[prec] */
static const unsigned char pow10_bits[10] = { 1, 4, 7, 10, 14, 17, 20, 24, 27, 30 };

/* the rounded fraction q carried into ip: all of it at 0 decimals */
static inline void carry(uint64_t *ip, uint64_t *q, unsigned int prec, uint64_t scale)
{
	if (prec == 0) {
		*ip += *q;
		*q = 0;
	} else if (*q == scale) {
		(*ip)++;
		*q = 0;
	}
}

int kprof_fmt_fixed(char *out, size_t len, double v, unsigned int prec)
{
	char b[48], *p;
	int neg, e, n;
	uint64_t ip, q = 0, scale;
	double a;

	if (prec > 9 || !isfinite(v) || fabs(v) >= 9007199254740992.0)
		return snprintf(out, len, "%.*f", (int)prec, v);
	neg = signbit(v) != 0;
	a = fabs(v);
	scale = pow10_u32[prec];
	/*
	 * a = m x 2^(e - 53), m below 2^53: the double's own fields (frexp
	 * and ldexp were a quarter of the time); a subnormal's m is smaller,
	 * the same value
	 */
	{
		uint64_t u, m;
		int s;			/* a = m / 2^s */

		memcpy(&u, &a, sizeof(u));
		e = (int)(u >> 52);	/* the biased exponent (a is not negative) */
		m = u & (((uint64_t)1 << 52) - 1);
		if (e)
			m |= (uint64_t)1 << 52;
		s = 1075 - (e ? e : 1);
		if (s <= 0) {
			ip = m << -s;	/* an integer below 2^53 */
		} else if (s >= 100) {
			/* a below 2^-47: a x 10^9 is far below one half */
			ip = 0;
		} else if (s < 64 && (s < 53 ? s : 53) + pow10_bits[prec] <= 64) {
			/*
			 * the fraction times scale fits 64 bits (always for 3
			 * decimals or fewer): the same steps as below, cheaper
			 */
			uint64_t fm, pr, r, half;

			ip = m >> s;
			fm = m & (((uint64_t)1 << s) - 1);
			pr = fm * scale;
			q = pr >> s;
			r = pr & (((uint64_t)1 << s) - 1);
			half = (uint64_t)1 << (s - 1);
			if (r > half || (r == half && ((prec ? q : ip) & 1)))
				q++;
			carry(&ip, &q, prec, scale);
		} else {
			unsigned __int128 fm, pr, r, half;

			ip = s < 64 ? m >> s : 0;
			fm = s < 64 ? m & (((uint64_t)1 << s) - 1) : m;
			pr = fm * scale;		/* below 2^83 */
			q = (uint64_t)(pr >> s);
			r = pr - ((unsigned __int128)q << s);
			half = (unsigned __int128)1 << (s - 1);
			/* to nearest, ties to even (the last digit written) */
			if (r > half || (r == half && ((prec ? q : ip) & 1)))
				q++;
			carry(&ip, &q, prec, scale);
		}
	}
	/*
	 * at most '-', 16 digits, '.', 9 and the NUL: straight into out when
	 * it has the room (no copy), else into b
	 */
	p = len >= 28 ? out : b;
	if (neg)
		*p++ = '-';
	p = kprof_fmt_u64(p, ip);
	if (prec) {
		uint32_t f = (uint32_t)q;	/* below scale */

		*p++ = '.';
		for (unsigned int k = prec; k-- > 0; f /= 10)
			p[k] = (char)('0' + f % 10);
		p += prec;
	}
	if (len >= 28) {
		*p = '\0';
		return (int)(p - out);
	}
	n = (int)(p - b);
	if (len) {
		size_t c = (size_t)n < len ? (size_t)n : len - 1;

		memcpy(out, b, c);
		out[c] = '\0';
	}
	return n;
}
