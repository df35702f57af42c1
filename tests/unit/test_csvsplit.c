// SPDX-License-Identifier: GPL-2.0
/*
 * The CSV reader's in-place split (kprof_csvread.c, fast_record): its
 * SSE2 scan, its portable scan and the state machine alone read the same
 * random files side by side and must give the same records, field for
 * field, the same counts, line numbers and errors. The files hold what
 * the split must hand to the state machine or get right itself: quoted
 * fields with commas, quotes and line breaks, a '"' inside a plain
 * field, NUL bytes, CR LF, blanks around fields, blank lines, a last
 * line without its line break or inside a quote, lines longer than the
 * 64-byte blocks and than the 64 KiB read-ahead, at every offset; also
 * with only some of the fields stored (sel, kprof_csv_select).
 */
#include "kt.h"
#include "kprof_csvread.h"

static char dir[64];
static uint64_t seed = 0x9e3779b97f4a7c15ULL;

struct text {
	char *b;
	size_t len, cap;
};

static void put(struct text *t, const void *p, size_t n)
{
	if (t->len + n > t->cap) {
		t->cap = (t->len + n) * 2;
		t->b = realloc(t->b, t->cap);
		if (!t->b)
			exit(2);
	}
	memcpy(t->b + t->len, p, n);
	t->len += n;
}

static void putc_(struct text *t, char c)
{
	put(t, &c, 1);
}

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)(kt_xorshift(&seed) % n);
}

/* blanks a field may have around it */
static void blanks(struct text *t)
{
	static const char b[] = { ' ', '\t', '\r' };

	if (rnd(6))
		return;
	for (unsigned int n = 1 + rnd(3); n; n--)
		putc_(t, b[rnd(3)]);
}

static void field(struct text *t, unsigned int longest)
{
	static const char plain[] = "abcxyz0123456789_-./:;[]{}'+ ";
	unsigned int n = rnd(8) ? rnd(12) : rnd(longest + 1);

	blanks(t);
	switch (rnd(40)) {
	case 0:		/* quoted: commas, doubled quotes, line breaks in it */
	case 1:
		putc_(t, '"');
		for (; n; n--) {
			static const char *const q[] = { ",", "\"\"", "\n", "\r\n", "x", " " };
			const char *c = q[rnd(6)];

			put(t, c, strlen(c));
		}
		if (rnd(30))
			putc_(t, '"');	/* else: open to the next field's quote */
		if (!rnd(20))
			putc_(t, 'z');	/* text after the closing quote */
		break;
	case 2:		/* a quote inside a plain field: an ordinary byte */
		put(t, "x\"y", 3);
		break;
	case 3:
		if (!rnd(8))
			putc_(t, '\0');
		break;
	default:
		for (; n; n--)
			putc_(t, plain[rnd(sizeof(plain) - 1)]);
	}
	blanks(t);
}

/* A CSV file of random lines; longest: the longest plain field. */
static size_t make(struct text *t, unsigned int lines, unsigned int longest)
{
	t->len = 0;
	for (unsigned int l = 0; l < lines; l++) {
		unsigned int nf = 1 + (rnd(4) ? rnd(16) : rnd(200));

		switch (rnd(25)) {
		case 0:
			putc_(t, '\n');		/* blank */
			continue;
		case 1:
			put(t, " \t \r\n", 5);	/* blanks only */
			continue;
		}
		for (unsigned int i = 0; i < nf; i++) {
			if (i)
				putc_(t, ',');
			field(t, longest);
		}
		if (l + 1 < lines || rnd(3))
			put(t, rnd(3) ? "\n" : "\r\n", rnd(3) ? 1 : 2);
	}
	return t->len;
}

/*
 * Bytes from a few that matter, at random: whatever they make; with
 * quotes rare (most lines plain, split in place) or not
 */
static size_t noise(struct text *t, size_t len, int quotes)
{
	static const char b[] = "aaaaaaaa11,,,,,\n\n\r \t";

	t->len = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned int k = rnd(4000);

		putc_(t, !k ? '\0' : k < (quotes ? 200U : 2U) ? '"' : b[rnd(sizeof(b) - 1)]);
	}
	return t->len;
}

enum { SLOW, SSE2, SCALAR, NWAY };

/* sel: of the fields before skip_from, the ones stored (NULL: all) */
static void same(const char *path, int skip_from, size_t max, const unsigned char *sel)
{
	static const char *const way[] = { "state machine", "SSE2 split", "portable split" };
	struct kprof_csv_src s[NWAY];
	struct kprof_err err[NWAY];
	FILE *f[NWAY];
	int r[NWAY], bad = 0;
	unsigned long recs = 0;

	for (int w = 0; w < NWAY; w++) {
		f[w] = fopen(path, "r");
		if (!f[w])
			exit(2);
		kprof_csv_src_init(&s[w], f[w], "f");
		s[w].skip_from = skip_from;
		s[w].sel = sel;
		s[w].max_record = max;
		memset(&err[w], 0, sizeof(err[w]));
	}
	s[SLOW].slow_only = 1;
	s[SCALAR].scalar_scan = 1;
	do {
		recs++;
		for (int w = 0; w < NWAY; w++)
			r[w] = kprof_csv_record(&s[w], &err[w]);
		for (int w = 1; w < NWAY && !bad; w++) {
			const struct kprof_csv_src *a = &s[SLOW], *b = &s[w];

			KT_CHECK(r[w] == r[SLOW],
				 "%s (skip %d, max %zu) record %lu: %s %d, %s %d (%s / %s)",
				 path, skip_from, max, recs, way[w], r[w], way[SLOW], r[SLOW],
				 err[w].msg, err[SLOW].msg);
			bad |= r[w] != r[SLOW];
			if (bad || r[w] <= 0) {
				if (!bad && r[w] < 0)
					KT_STR(err[w].msg, err[SLOW].msg);
				continue;
			}
			bad |= b->line != a->line || b->nf != a->nf || b->nskip != a->nskip;
			KT_CHECK(!bad,
				 "%s (skip %d, max %zu) record %lu: line %lu nf %d nskip %d (%s), %lu %d %d",
				 path, skip_from, max, recs, b->line, b->nf, b->nskip, way[w],
				 a->line, a->nf, a->nskip);
			for (int i = 0; i < a->nf && !bad; i++) {
				if (skip_from > 0 && sel && !sel[i])
					continue;
				bad |= strcmp(a->fld[i], b->fld[i]) ||
				       b->flen[i] != strlen(b->fld[i]);
				KT_CHECK(!bad, "%s:%lu (skip %d): field %d: %s '%s' (%zu), %s '%s'",
					 path, a->line, skip_from, i, way[w], b->fld[i], b->flen[i],
					 way[SLOW], a->fld[i]);
			}
		}
		for (int i = 0; r[SLOW] > 0 && i < s[SLOW].nf; i++)
			KT_CHECK((skip_from > 0 && sel && !sel[i]) ||
				 s[SLOW].flen[i] == strlen(s[SLOW].fld[i]), "%s: flen", path);
	} while (r[SLOW] > 0 && !bad);
	for (int w = 0; w < NWAY; w++) {
		kprof_csv_src_free(&s[w]);
		fclose(f[w]);
	}
}

static const char *save(const struct text *t, unsigned int i)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/r%u.csv", dir, i);
	f = fopen(path, "w");
	if (!f || fwrite(t->b, 1, t->len, f) != t->len || fclose(f))
		exit(2);
	return path;
}

static void each_skip(const char *path)
{
	static const size_t maxes[] = { 0, 0, 0, 40, 300 };
	unsigned char sel[40];

	for (int k = 0; k < 6; k++)
		same(path, k == 5 ? (int)rnd(40) : k, maxes[rnd(5)], NULL);
	/* some of the first fields stored, the rest not (kprof_csv_select) */
	for (int i = 0; i < 40; i++)
		sel[i] = !rnd(3);
	same(path, 1 + (int)rnd(39), maxes[rnd(5)], sel);
}

/*
 * Plain lines across the read-ahead's end are split in place as the rest
 * are: every record's fields lie in the read-ahead, none in the state
 * machine's copy (the same records: same()).
 */
static void across(unsigned int i)
{
	struct text t = { 0 };
	struct kprof_csv_src s;
	struct kprof_err err;
	const char *path;
	size_t recs = 0, in_place = 0;
	FILE *f;
	int r;

	for (unsigned int l = 0; l < 3000; l++) {
		for (unsigned int n = 20 + rnd(300); n; n--)
			putc_(&t, rnd(9) ? 'a' + (char)rnd(26) : ',');
		putc_(&t, '\n');
	}
	path = save(&t, i);
	same(path, 0, 0, NULL);
	f = fopen(path, "r");
	if (!f)
		exit(2);
	kprof_csv_src_init(&s, f, path);
	while ((r = kprof_csv_record(&s, &err)) > 0) {
		recs++;
		in_place += (unsigned char *)s.fld[0] >= s.in &&
			    (unsigned char *)s.fld[0] < s.in + s.inlen;
	}
	KT_CHECK(r == 0 && recs == 3000, "%s: %zu records, %d", path, recs, r);
	KT_CHECK(in_place == recs, "%s: %zu of %zu records split in place", path, in_place, recs);
	kprof_csv_src_free(&s);
	fclose(f);
	free(t.b);
}

int main(void)
{
	struct text t = { 0 };
	unsigned int i;

	snprintf(dir, sizeof(dir), "%s", kt_tmpdir());
	/* small files: every kind of line, many times over */
	for (i = 0; i < 300; i++) {
		make(&t, 1 + rnd(60), 100);
		each_skip(save(&t, i));
	}
	for (; i < 400; i++) {
		noise(&t, rnd(3000), i & 1);
		each_skip(save(&t, i));
	}
	/* over the 64 KiB read-ahead: lines across it, some longer than it */
	for (; i < 412; i++) {
		make(&t, 300 + rnd(1500), i % 3 ? 400 : 70000);
		each_skip(save(&t, i));
	}
	for (; i < 416; i++) {
		noise(&t, 70000 + rnd(140000), i & 1);
		each_skip(save(&t, i));
	}
	across(i);
	free(t.b);
	kt_rmrf(dir);
	return kt_done("test_csvsplit");
}
