// SPDX-License-Identifier: GPL-2.0
/* The one CSV reader (see kprof_csvread.h). */
#include "kprof_csvread.h"
#include "kprof_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

void kprof_csv_src_init(struct kprof_csv_src *s, FILE *f, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->name = name;
}

void kprof_csv_src_free(struct kprof_csv_src *s)
{
	free(s->in);
	s->in = NULL;
	free(s->buf);
	free(s->off);
	free(s->fld);
	free(s->flen);
	free(s->cmask);
	s->cmask = NULL;
	s->cmaskcap = 0;
	s->buf = NULL;
	s->off = NULL;
	s->fld = NULL;
	s->flen = NULL;
	s->cap = 0;
	s->offcap = 0;
	s->fldcap = 0;
}

/* Doubles *arr (n elements of elem bytes) until it holds need. */
static int grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	void **a = arr;
	size_t c = *cap ? *cap : 64;
	void *p;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return 0;
	p = realloc(*a, c * elem);
	if (!p)
		return -ENOMEM;
	*a = p;
	*cap = c;
	return 0;
}

/* Room for need fields in fld and flen, which grow together. */
static int fld_room(struct kprof_csv_src *s, size_t need)
{
	size_t cap = s->fldcap;

	if (need <= cap)
		return 0;
	if (grow(&s->flen, &cap, need, sizeof(*s->flen)))
		return -ENOMEM;
	return grow(&s->fld, &s->fldcap, cap, sizeof(*s->fld));
}

enum { S_START, S_PLAIN, S_QUOTED, S_QUOTE, S_AFTER };

static inline int is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Bytes that end a run of field bytes copied at once (any state). */
static const unsigned char special[256] = {
	['\0'] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1, [' '] = 1, [','] = 1, ['"'] = 1,
};

#define IN_SIZE	(64 * 1024)
/*
 * The read-ahead's allocation goes on this far, zero-filled: the
 * splitter reads 64 bytes at a time from any byte before inlen, and
 * masks off what lies past it
 */
#define IN_PAD	64

/* More input: bytes now buffered, 0 at the end (or an error: ferror). */
static size_t refill(struct kprof_csv_src *s)
{
	if (!s->in)
		s->in = calloc(1, IN_SIZE + IN_PAD);
	if (!s->in)
		return 0;
	s->inpos = 0;
	s->inlen = fread(s->in, 1, IN_SIZE, s->f);
	return s->inlen;
}

/*
 * More input after the bytes not yet consumed, moved to the front (the
 * records handed out before are no longer needed): so that a line across
 * the read-ahead's end lies whole in it. Bytes read, 0 when there is no
 * room (a line as long as the read-ahead) or no more input.
 */
static size_t refill_keep(struct kprof_csv_src *s)
{
	size_t n = s->inlen - s->inpos, got;

	if (!s->inpos)
		return 0;
	memmove(s->in, s->in + s->inpos, n);
	s->inpos = 0;
	got = fread(s->in + n, 1, IN_SIZE - n, s->f);
	s->inlen = n + got;
	return got;
}

/*
 * After field skip_from - 1 ended with a ',': the rest of the record is
 * counted, not stored. Plain bytes are passed over with memchr; a '"'
 * (it may open a quoted field, which may hold a line break) or a NUL
 * hands the rest back to the state machine (*state: where it resumes).
 * Returns 1 at the record's end, 0 to resume, -errno with err set.
 */
static int skip_rest(struct kprof_csv_src *s, size_t *skipped, int *state, size_t max,
		     struct kprof_err *err)
{
	int at_start = 1;	/* the next byte starts a field */

	for (;;) {
		const unsigned char *b, *e, *nl, *q;

		if (s->inpos == s->inlen && !refill(s)) {
			if (!s->in)
				return kprof_err_set(err, ENOMEM, "out of memory");
			if (ferror(s->f))
				return kprof_err_set(err, EIO, "%s: read error: %s",
						     s->name, strerror(errno));
			s->nskip++;	/* a last line without its line break */
			s->lines++;
			return 1;
		}
		b = s->in + s->inpos;
		nl = memchr(b, '\n', s->inlen - s->inpos);
		e = nl ? nl : s->in + s->inlen;
		if (memchr(b, '"', (size_t)(e - b)) || memchr(b, '\0', (size_t)(e - b))) {
			*state = at_start ? S_START : S_PLAIN;
			return 0;
		}
		for (q = b; (q = memchr(q, ',', (size_t)(e - q))); q++)
			s->nskip++;
		*skipped += (size_t)(e - b);
		if (s->len + *skipped > max)
			return kprof_err_set(err, EBADMSG,
					     "%s:%lu: record longer than %zu bytes: not a CSV file of this kind?",
					     s->name, s->line, max);
		for (q = e; q > b && is_blank(q[-1]); q--)
			;
		if (q > b)
			at_start = q[-1] == ',';
		s->inpos = (size_t)(e - s->in);
		if (nl) {
			s->inpos++;
			s->lines++;
			s->nskip++;	/* the last field */
			return 1;
		}
	}
}

/* Bit i for byte i of 64: a ',', a '\n', a '"' or NUL (bad). */
struct scan64 {
	uint64_t comma, nl, bad;
};

/* The portable scan's classes: 1 ',', 2 '\n', 4 '"' or NUL */
static const unsigned char scan_class[256] = { [','] = 1, ['\n'] = 2, ['"'] = 4, ['\0'] = 4 };

/* The portable scan, a byte at a time; the SSE2 one gives the same (test_csvsplit.c). */
static inline struct scan64 scan64_scalar(const unsigned char *q)
{
	struct scan64 m = { 0, 0, 0 };

	for (unsigned int i = 0; i < 64; i++) {
		unsigned int k = scan_class[q[i]];

		if (k) {
			m.comma |= (uint64_t)(k & 1) << i;
			m.nl |= (uint64_t)(k >> 1 & 1) << i;
			m.bad |= (uint64_t)(k >> 2) << i;
		}
	}
	return m;
}

#ifdef __SSE2__
/* 64 bits of four 16-byte compares */
static inline uint64_t mask64(__m128i a, __m128i b, __m128i c, __m128i d)
{
	return (uint64_t)(unsigned int)_mm_movemask_epi8(a) |
	       (uint64_t)(unsigned int)_mm_movemask_epi8(b) << 16 |
	       (uint64_t)(unsigned int)_mm_movemask_epi8(c) << 32 |
	       (uint64_t)(unsigned int)_mm_movemask_epi8(d) << 48;
}

static inline __m128i eq(__m128i v, char c)
{
	return _mm_cmpeq_epi8(v, _mm_set1_epi8(c));
}

/* a '"' or NUL */
static inline __m128i bad16(__m128i v)
{
	return _mm_or_si128(eq(v, '"'), eq(v, '\0'));
}

/*
 * 16 bytes at a time: the commas and the line ends; a '"' or NUL in
 * any of the 64 bytes is looked for with one mask of all four, and
 * placed only in the block that has one (most have none). A line's
 * block nearly always has its end: that mask is made at once.
 */
static inline __attribute__((always_inline))
struct scan64 scan64_sse2(const unsigned char *q)
{
	__m128i v0 = _mm_loadu_si128((const void *)q);
	__m128i v1 = _mm_loadu_si128((const void *)(q + 16));
	__m128i v2 = _mm_loadu_si128((const void *)(q + 32));
	__m128i v3 = _mm_loadu_si128((const void *)(q + 48));
	__m128i b0 = bad16(v0), b1 = bad16(v1), b2 = bad16(v2), b3 = bad16(v3);
	struct scan64 m;

	m.comma = mask64(eq(v0, ','), eq(v1, ','), eq(v2, ','), eq(v3, ','));
	m.nl = mask64(eq(v0, '\n'), eq(v1, '\n'), eq(v2, '\n'), eq(v3, '\n'));
	m.bad = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(b0, b1), _mm_or_si128(b2, b3))) ?
		mask64(b0, b1, b2, b3) : 0;
	return m;
}
#endif

/* always inline: GCC stopped inlining the SSE2 scan once fast_record() had four copies */
static inline __attribute__((always_inline))
struct scan64 scan64(const unsigned char *q, int scalar)
{
#ifdef __SSE2__
	if (!scalar)
		return scan64_sse2(q);
#endif
	return scan64_scalar(q);
}

/*
 * The common record, split where it lies: a whole line in the read-ahead
 * with no '"' and no NUL. One scan finds its end, its commas (a mask per
 * 64 bytes, kept in cmask) and any '"' or NUL, without writing; its fields
 * are then the runs between the commas, blanks trimmed, NUL-terminated in
 * place (the bytes are consumed), which is what the state machine below
 * makes of such a line, without copying each byte. scalar: the portable
 * scan; chosen: only the fields sel chooses are stored (constants: each
 * caller gets its own copy, and a reader of every field tests no sel).
 * 1: done (fld, flen, nf, nskip, line set); 0: a blank line, consumed;
 * -1: not such a record, -3: no line end before the read-ahead's (nothing
 * consumed); -2: out of memory.
 */
static inline __attribute__((always_inline))
int fast_record(struct kprof_csv_src *s, size_t max, int scalar, int chosen)
{
	unsigned char *b = s->in + s->inpos, *nl, *p, *e, *t, *blk;
	size_t n = s->inlen - s->inpos, at, nblk = 0, k, nf = 0, cap;
	/* commas that end a stored field: all, or the first skip_from */
	size_t want = s->skip_from > 0 ? (size_t)s->skip_from : SIZE_MAX;
	const unsigned char *sel = s->sel;
	uint64_t c, *cmask = s->cmask;
	size_t *flen;
	char **fld;
	int nskip = 0;

	for (at = 0;; at += 64) {
		struct scan64 m;

		if (at >= n)
			return -3;	/* across the read-ahead, or no last line break */
		if (nblk == s->cmaskcap) {
			if (grow(&s->cmask, &s->cmaskcap, nblk + 1, sizeof(*s->cmask)))
				return -2;
			cmask = s->cmask;
		}
		m = scan64(b + at, scalar);
		if (n - at < 64) {
			c = (1ULL << (n - at)) - 1;	/* bytes before inlen */
			m.comma &= c;
			m.nl &= c;
			m.bad &= c;
		}
		if (m.nl) {
			c = (m.nl & -m.nl) - 1;		/* bytes before the line end */
			m.comma &= c;
			m.bad &= c;
		}
		if (m.bad)
			return -1;
		cmask[nblk++] = m.comma;
		if (m.nl) {
			n = at + (size_t)__builtin_ctzll(m.nl);
			break;
		}
	}
	/* the state machine's length cap (stored bytes and NULs) */
	if (n + 2 >= max)
		return -1;
	nl = b + n;
	for (p = b; p < nl && is_blank(*p); p++)
		;
	s->line = s->lines + 1;
	s->lines++;
	s->inpos = (size_t)(nl + 1 - s->in);
	if (p == nl)
		return 0;
	/* (locals: the NULs written below could alias s's fields) */
	fld = s->fld;
	flen = s->flen;
	cap = s->fldcap;
	p = b;
	for (k = 0, blk = b; k < nblk; k++, blk += 64) {
		for (c = cmask[k]; c; c &= c - 1) {
			if (nf == want) {
				/* the rest: counted, not stored */
				for (nskip = 1; c; c &= c - 1)
					nskip++;
				while (++k < nblk)
					for (c = cmask[k]; c; c &= c - 1)
						nskip++;
				goto done;
			}
			if (chosen && !sel[nf]) {
				/*
				 * a run of fields not stored, their entries left as
				 * they are: only counted, up to the block's end, want
				 * or a field to store; the next starts after the last
				 * of their commas (c's bit left for the loop to clear)
				 */
				for (nf++; (c & (c - 1)) && nf < want && !sel[nf]; nf++)
					c &= c - 1;
				p = blk + (unsigned int)__builtin_ctzll(c) + 1;
				continue;
			}
			e = blk + (unsigned int)__builtin_ctzll(c);
			if (nf >= cap) {
				if (fld_room(s, nf + 1))
					return -2;
				fld = s->fld;
				flen = s->flen;
				cap = s->fldcap;
			}
			/* blanks around it (any byte up to ' ' looks): rare */
			if (e > p && (*p <= ' ' || e[-1] <= ' ')) {
				while (p < e && is_blank(*p))
					p++;
				for (t = e; t > p && is_blank(t[-1]); t--)
					;
			} else {
				t = e;
			}
			*t = '\0';	/* over a blank or the ',' */
			fld[nf] = (char *)p;
			flen[nf++] = (size_t)(t - p);
			p = e + 1;
		}
	}
	/* the last field, up to the line end */
	if (nf == want) {
		nskip = 1;
		goto done;
	}
	if (chosen && !sel[nf]) {
		nf++;
		goto done;
	}
	if (nf >= cap && fld_room(s, nf + 1))
		return -2;
	while (p < nl && is_blank(*p))
		p++;
	for (t = nl; t > p && is_blank(t[-1]); t--)
		;
	*t = '\0';
	s->fld[nf] = (char *)p;
	s->flen[nf++] = (size_t)(t - p);
done:
	s->nf = (int)nf;
	s->nskip = nskip;
	return 1;
}

/*
 * One pass over the bytes of one record: each byte moves the state
 * machine and is stored at most once, so time and memory are linear in
 * the record whatever it holds, and the field count and the fields come
 * from the same decisions. A plain line takes fast_record() instead.
 */
int kprof_csv_record(struct kprof_csv_src *s, struct kprof_err *err)
{
	size_t max = s->max_record ? s->max_record : KPROF_CSV_MAX_RECORD;
	int state, quoted, any, skipping, c;
	size_t keep, skipped;

	while (!s->slow_only) {
		if (s->inpos == s->inlen && !refill(s))
			break;	/* the end, or an error: the state machine says */
		s->nf = 0;
		s->nskip = 0;
		if (s->skip_from > 0 && s->sel)
			c = s->scalar_scan ? fast_record(s, max, 1, 1) : fast_record(s, max, 0, 1);
		else
			c = s->scalar_scan ? fast_record(s, max, 1, 0) : fast_record(s, max, 0, 0);
		if (c == -2)
			return kprof_err_set(err, ENOMEM, "out of memory");
		if (c == 1)
			return 1;
		/* about one line in 340 of 190 bytes: split in place too */
		if (c == -3 && refill_keep(s))
			continue;
		if (c < 0)
			break;
	}
	if (grow(&s->off, &s->offcap, 2, sizeof(*s->off)))
		return kprof_err_set(err, ENOMEM, "out of memory");
	for (;;) {
		state = S_START;
		quoted = 0;
		any = 0;
		skipping = 0;
		keep = 0;
		skipped = 0;
		s->len = 0;
		s->nf = 0;
		s->nskip = 0;
		s->line = s->lines + 1;
		s->off[0] = 0;
		for (;;) {
			if (s->inpos == s->inlen && !refill(s)) {
				if (!s->in)
					return kprof_err_set(err, ENOMEM, "out of memory");
				c = EOF;
				goto got;
			}
			/* a run of ordinary bytes in a field: copied at once (at
			 * a field's start it starts an unquoted field)
			 */
			if (state == S_START || state == S_PLAIN || state == S_QUOTED) {
				const unsigned char *b = s->in + s->inpos, *q = b;
				const unsigned char *e = s->in + s->inlen;
				size_t n;

				while (q < e && !special[*q])
					q++;
				n = (size_t)(q - b);
				if (n) {
					if (s->len + skipped + n > max)
						goto too_long;
					if (grow(&s->buf, &s->cap, s->len + n, 1))
						return kprof_err_set(err, ENOMEM, "out of memory");
					memcpy(s->buf + s->len, b, n);
					s->len += n;
					keep = s->len;
					s->inpos += n;
					any = 1;
					if (state == S_START)
						state = S_PLAIN;
				}
				/*
				 * the ',' that ends an unquoted field, taken here: what
				 * the switch below does for it (S_START: an empty
				 * field; S_PLAIN: trailing blanks dropped)
				 */
				if (q < e && *q == ',' && state != S_QUOTED) {
					s->inpos++;
					any = 1;
					if (state == S_PLAIN)
						s->len = keep;
					c = ',';
					goto field_end;
				}
				if (n)
					continue;
			}
			c = s->in[s->inpos++];
got:
			if (c == '\0')
				return kprof_err_set(err, EBADMSG, "%s:%lu: NUL byte",
						     s->name, s->lines + 1);
			if (c == EOF) {
				if (ferror(s->f))
					return kprof_err_set(err, EIO, "%s: read error: %s",
							     s->name, strerror(errno));
				if (state == S_QUOTED)
					return kprof_err_set(err, EBADMSG,
							     "%s:%lu: unterminated quoted field (the file ends inside the record that starts here)",
							     s->name, s->line);
				if (!any)
					return 0;
				c = '\n';	/* a last line without its line break */
			} else {
				any = 1;
			}
			if (c == '\n')
				s->lines++;
			switch (state) {
			case S_START:
				if (is_blank(c))
					continue;
				if (c == '"') {
					state = S_QUOTED;
					quoted = 1;
					continue;
				}
				if (c == ',' || c == '\n')
					break;
				state = S_PLAIN;
				goto store;
			case S_PLAIN:
				if (c == ',' || c == '\n') {
					s->len = keep;	/* trailing blanks */
					break;
				}
				goto store;
			case S_QUOTED:
				if (c == '"') {
					state = S_QUOTE;
					continue;
				}
				goto store;
			case S_QUOTE:
				if (c == '"') {
					state = S_QUOTED;
					goto store;
				}
				state = S_AFTER;
				__attribute__((fallthrough));
			case S_AFTER:
				if (is_blank(c))
					continue;
				if (c == ',' || c == '\n')
					break;
				return kprof_err_set(err, EBADMSG,
						     "%s:%lu: '%c' after the closing quote of a field (a quote inside a quoted field is written \"\")",
						     s->name, s->lines + 1,
						     c >= 0x20 && c < 0x7f ? c : '?');
			}
			/* the end of a field: ',' or '\n' outside quotes */
field_end:
			if (s->len + skipped >= max)
				goto too_long;
			if ((s->len == s->cap && grow(&s->buf, &s->cap, s->len + 1, 1)) ||
			    ((size_t)s->nf + 2 > s->offcap &&
			     grow(&s->off, &s->offcap, (size_t)s->nf + 2, sizeof(*s->off))))
				return kprof_err_set(err, ENOMEM, "out of memory");
			s->buf[s->len++] = '\0';
			if (skipping) {
				s->nskip++;	/* after skip_rest handed back */
			} else {
				s->nf++;
				s->off[s->nf] = s->len;
			}
			keep = s->len;
			state = S_START;
			if (c == '\n')
				break;
			if (!skipping && s->nf == s->skip_from) {
				int r = skip_rest(s, &skipped, &state, max, err);

				if (r < 0)
					return r;
				if (r)
					break;
				skipping = 1;
			}
			continue;
store:
			if (s->len + skipped >= max)
				goto too_long;
			if (s->len == s->cap && grow(&s->buf, &s->cap, s->len + 1, 1))
				return kprof_err_set(err, ENOMEM, "out of memory");
			s->buf[s->len++] = (char)c;
			if (state != S_PLAIN || !is_blank(c))
				keep = s->len;
		}
		/* a line of blanks only: skipped (a quoted "" is a field; "," is two) */
		if (s->nf == 1 && !s->nskip && s->len == 1 && !quoted)
			continue;
		break;
	}
	if (fld_room(s, (size_t)s->nf))
		return kprof_err_set(err, ENOMEM, "out of memory");
	for (int i = 0; i < s->nf; i++) {
		if (s->skip_from > 0 && s->sel && !s->sel[i])
			continue;
		s->fld[i] = s->buf + s->off[i];
		s->flen[i] = s->off[i + 1] - s->off[i] - 1;
	}
	return 1;
too_long:
	return kprof_err_set(err, EBADMSG,
			     "%s:%lu: record longer than %zu bytes: not a CSV file of this kind?",
			     s->name, s->line, max);
}

/* The record's fields in one allocation: n pointers, then the bytes. */
static char **pack(const struct kprof_csv_src *s)
{
	size_t len = 0, l;
	char **p;
	char *b;

	for (int i = 0; i < s->nf; i++)
		len += s->flen[i] + 1;
	p = malloc((size_t)s->nf * sizeof(char *) + len);
	if (!p)
		return NULL;
	b = (char *)(p + s->nf);
	for (int i = 0; i < s->nf; i++) {
		l = s->flen[i] + 1;
		memcpy(b, s->fld[i], l);
		p[i] = b;
		b += l;
	}
	return p;
}

int kprof_csv_open(const char *path, struct kprof_csv_reader *r, struct kprof_err *err)
{
	int fd = kprof_in_open(AT_FDCWD, path, NULL, err);

	if (fd < 0) {
		memset(r, 0, sizeof(*r));
		return fd;
	}
	return kprof_csv_open_fd(fd, path, r, err);
}

int kprof_csv_open_fd(int fd, const char *path, struct kprof_csv_reader *r,
		      struct kprof_err *err)
{
	FILE *f;
	int ret;

	memset(r, 0, sizeof(*r));
	r->path = strdup(path);
	f = r->path ? fdopen(fd, "r") : NULL;
	if (!f) {
		ret = kprof_err_set(err, r->path ? errno : ENOMEM, "%s: %s", path,
				    strerror(r->path ? errno : ENOMEM));
		close(fd);
		goto fail;
	}
	kprof_csv_src_init(&r->src, f, r->path);
	ret = kprof_csv_record(&r->src, err);
	if (ret <= 0) {
		if (!ret)
			ret = kprof_err_set(err, EBADMSG, "%s: empty file (no header line)", path);
		goto fail;
	}
	if (r->src.nf > KPROF_CSV_MAX_COLS) {
		ret = kprof_err_set(err, EBADMSG, "%s:%lu: %d columns in the header, more than %d",
				    path, r->src.line, r->src.nf, KPROF_CSV_MAX_COLS);
		goto fail;
	}
	r->ncols = r->src.nf;
	r->header = pack(&r->src);
	/* (kprof_csv_select's, here so that it cannot fail) */
	r->sel = malloc((size_t)r->ncols);
	if (!r->header || !r->sel) {
		ret = kprof_err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	return 0;
fail:
	kprof_csv_close(r);
	return ret;
}

int kprof_csv_next(struct kprof_csv_reader *r, struct kprof_err *err)
{
	int ret = kprof_csv_record(&r->src, err);

	if (ret <= 0)
		return ret;
	if (r->src.nf + r->src.nskip != r->ncols)
		return kprof_err_set(err, EBADMSG, "%s:%lu: %d fields, the header has %d",
				     r->path, r->src.line, r->src.nf + r->src.nskip, r->ncols);
	r->row = r->src.fld;
	r->len = r->src.flen;
	return 1;
}

static int find_col(char *const *header, int ncols, const char *name)
{
	for (int i = 0; i < ncols; i++)
		if (!strcmp(header[i], name))
			return i;
	return -1;
}

int kprof_csv_rcol(const struct kprof_csv_reader *r, const char *name)
{
	return find_col(r->header, r->ncols, name);
}

void kprof_csv_select(struct kprof_csv_reader *r, const int *cols, int n)
{
	int last = 0;

	memset(r->sel, 0, (size_t)r->ncols);
	for (int i = 0; i < n; i++)
		if (cols[i] >= 0 && cols[i] < r->ncols) {
			r->sel[cols[i]] = 1;
			if (cols[i] >= last)
				last = cols[i] + 1;
		}
	/* none: the first field not stored, the rest counted */
	r->src.skip_from = last ? last : 1;
	r->src.sel = r->sel;
	/* never written while the selection holds (the header filled ncols) */
	for (int i = 0; i < r->ncols; i++)
		if (!r->sel[i])
			r->src.fld[i] = NULL;
}

void kprof_csv_close(struct kprof_csv_reader *r)
{
	if (r->src.f)
		fclose(r->src.f);
	kprof_csv_src_free(&r->src);
	free(r->path);
	free(r->header);
	free(r->sel);
	memset(r, 0, sizeof(*r));
}

int kprof_csv_load(const char *path, struct kprof_csv_table *t, struct kprof_err *err)
{
	int fd = kprof_in_open(AT_FDCWD, path, NULL, err);

	if (fd < 0) {
		memset(t, 0, sizeof(*t));
		return fd;
	}
	return kprof_csv_load_fd(fd, path, t, err);
}

int kprof_csv_load_fd(int fd, const char *path, struct kprof_csv_table *t,
		      struct kprof_err *err)
{
	struct kprof_csv_reader r;
	size_t cap = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = kprof_csv_open_fd(fd, path, &r, err);
	if (ret)
		return ret;
	t->ncols = r.ncols;
	t->header = r.header;	/* now the table's */
	r.header = NULL;
	while ((ret = kprof_csv_next(&r, err)) > 0) {
		char **row;

		row = NULL;
		if (!grow(&t->rows, &cap, t->nrows + 1, sizeof(*t->rows)))
			row = pack(&r.src);
		if (!row) {
			ret = kprof_err_set(err, ENOMEM, "out of memory");
			break;
		}
		t->rows[t->nrows++] = row;
	}
	kprof_csv_close(&r);
	if (ret)
		kprof_csv_free(t);
	return ret;
}

int kprof_csv_col(const struct kprof_csv_table *t, const char *name)
{
	return find_col(t->header, t->ncols, name);
}

void kprof_csv_free(struct kprof_csv_table *t)
{
	for (size_t i = 0; i < t->nrows; i++)
		free(t->rows[i]);
	free(t->rows);
	free(t->header);
	memset(t, 0, sizeof(*t));
}
