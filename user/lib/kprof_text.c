// SPDX-License-Identifier: GPL-2.0
/* Names from foreign input made safe to show a person (kprof_text.h). */
#include "kprof_text.h"

#include <stdint.h>
#include <string.h>

/*
 * The length of the character at s (at most n bytes there): > 0 when it
 * passes, < 0 (minus its length) when it is shown as one '?'.
 */
static int char_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	uint32_t cp;
	int len;

	if (c < 0x80)
		return c < 0x20 || c == 0x7f ? -1 : 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return -1;	/* a stray continuation byte, 0xc0, 0xc1, 0xf5.. */
	}
	if ((size_t)len > n)
		return -1;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;	/* only this byte: the next may start a character */
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, past U+10FFFF: not UTF-8 */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	if (cp <= 0x9f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return -len;	/* C1 controls, bidi overrides: one '?' */
	return len;
}

size_t kprof_text_safen(char *out, size_t len, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, wr = 0;

	while (i < n && p[i]) {
		int l = char_len(p + i, strnlen(s + i, n - i < 4 ? n - i : 4));
		size_t w = l > 0 ? (size_t)l : 1;

		/* o only grows: once a character does not fit, none does */
		if (o + w < len) {
			if (l > 0)
				memmove(out + o, p + i, w);
			else
				out[o] = '?';
			wr = o + w;
		}
		o += w;
		i += l > 0 ? (size_t)l : (size_t)-l;
	}
	if (len)
		out[wr] = '\0';
	return o;
}

char *kprof_text_safe(char *out, size_t len, const char *s)
{
	kprof_text_safen(out, len, s, SIZE_MAX);
	return out;
}

/* Each character of s's safe form to f; md: with Markdown escapes. */
static void put(FILE *f, const char *s, int md)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int l = char_len(p, strnlen((const char *)p, 4));

		if (l < 0) {
			fputc('?', f);
			p += -l;
			continue;
		}
		if (md && l == 1 && strchr("\\`*_[]<>&|~", *p))
			fputc('\\', f);
		fwrite(p, 1, (size_t)l, f);
		p += l;
	}
}

void kprof_text_put(FILE *f, const char *s)
{
	put(f, s, 0);
}

void kprof_md_put(FILE *f, const char *s)
{
	put(f, s, 1);
}
