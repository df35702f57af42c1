// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_csvread on malformed and foreign CSV: quotes inside fields,
 * unterminated quotes, field-count mismatches (an error naming
 * file:line), the record cap, what RFC 4180 allows, and fields skipped
 * without being stored (skip_from, kprof_csv_select) read exactly as
 * stored ones.
 */
#include "kt.h"
#include "kprof_csvread.h"

#include <errno.h>

static char dir[64];

static const char *put_file(const char *name, const char *text, size_t len)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(2);
	}
	return path;
}

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PUT(name, lit) put_file(name, lit, sizeof(lit) - 1)

/* A quote that does not start a field is an ordinary character: count and
 * split agree (they once disagreed and left row slots NULL or pointing
 * into the freed previous record).
 */
static void test_inner_quotes(void)
{
	struct kprof_csv_table t;
	struct kprof_csv_reader r;
	struct kprof_err err = { 0 };
	const char *p = PUT("inner.csv", "a,b\nx\"y,z\"w\n1,2\nq\"\",\"r,s\"\"\"\n");
	int ret;

	ret = kprof_csv_load(p, &t, &err);
	KT_CHECK(ret == 0, "load: %s", err.msg);
	if (!ret) {
		KT_EQ_U64(t.nrows, 3);
		KT_STR(t.rows[0][0], "x\"y");
		KT_STR(t.rows[0][1], "z\"w");
		KT_STR(t.rows[1][0], "1");
		KT_STR(t.rows[1][1], "2");
		KT_STR(t.rows[2][0], "q\"\"");
		KT_STR(t.rows[2][1], "r,s\"");
		kprof_csv_free(&t);
	}
	/* the streaming reader: every slot of every row is the row's own */
	KT_CHECK(kprof_csv_open(p, &r, &err) == 0, "open: %s", err.msg);
	KT_CHECK(kprof_csv_next(&r, &err) == 1, "row 1: %s", err.msg);
	KT_STR(r.row[0], "x\"y");
	KT_STR(r.row[1], "z\"w");
	KT_CHECK(kprof_csv_next(&r, &err) == 1, "row 2: %s", err.msg);
	KT_STR(r.row[1], "2");
	kprof_csv_close(&r);
}

/* An error is "file:line: what", with the line the record starts on. */
static void want_error(const char *name, const char *text, size_t len, const char *what,
		       const char *line)
{
	struct kprof_csv_table t;
	struct kprof_err err = { 0 };
	const char *p = put_file(name, text, len);
	char where[160];
	int ret = kprof_csv_load(p, &t, &err);

	snprintf(where, sizeof(where), "%s:%s:", p, line);
	KT_CHECK(ret == -EBADMSG, "%s: load returned %d (%s)", name, ret, err.msg);
	KT_CHECK(strstr(err.msg, where) == err.msg, "%s: message '%s' starts with '%s'",
		 name, err.msg, where);
	KT_CHECK(strstr(err.msg, what), "%s: message '%s' says '%s'", name, err.msg,
		 what);
	if (!ret)
		kprof_csv_free(&t);
}

#define WANT_ERROR(name, lit, what, line) want_error(name, lit, sizeof(lit) - 1, what, line)

static void test_errors(void)
{
	/* too few fields: an error, not padding */
	WANT_ERROR("short.csv", "a,b,c\n1,2,3\n1,2\n", "2 fields, the header has 3", "3");
	/* too many */
	WANT_ERROR("long.csv", "a,b\n1,2\n\n1,2,3\n", "3 fields, the header has 2", "4");
	/* an unterminated quote at the end of the file; the count and the
	 * split once disagreed on x"y,"z (a write before the row array)
	 */
	WANT_ERROR("open.csv", "a,b\nx\"y,\"z\n", "unterminated quoted field", "2");
	WANT_ERROR("open2.csv", "a,b\n1,2\n\"3\n4,5\n", "unterminated quoted field", "3");
	/* text after a closing quote */
	WANT_ERROR("after.csv", "a,b\n\"x\"y,1\n", "after the closing quote", "2");
	/* the record the error is in starts on line 4 (a field spans 2-3) */
	WANT_ERROR("span.csv", "a,b\n\"1\n2\",3\n1,2,3\n", "3 fields", "4");
	WANT_ERROR("nul.csv", "a,b\n1,\0002\n", "NUL byte", "2");
}

/* What a CSV may hold: quoted fields over lines, doubled quotes, CR LF,
 * blank lines, blanks around fields, a last line without its newline.
 * (\x20\x20: a line of two blanks, spelled so that they show.)
 */
static void test_valid(void)
{
	struct kprof_csv_table t;
	struct kprof_err err = { 0 };
	const char *p = PUT("ok.csv", "\"a\",b ,c\r\n\r\n 1 , \"x\r\ny\" ,\"\"\r\n"
			    "\"q\"\"\",\"\",3\n\x20\x20\n,,\n\"l,a\",b\n\"last\",2,3");
	int ret = kprof_csv_load(p, &t, &err);

	KT_CHECK(ret == -EBADMSG && strstr(err.msg, ":8:") && strstr(err.msg, "2 fields"),
		 "row 8 has 2 fields: %s", err.msg);
	p = PUT("ok2.csv", "\"a\",b ,c\r\n\r\n 1 , \"x\r\ny\" ,\"\"\r\n"
		"\"q\"\"\",\"\",3\n\x20\x20\n,,\n\"last\",2,3");
	ret = kprof_csv_load(p, &t, &err);
	KT_CHECK(ret == 0, "load: %s", err.msg);
	if (ret)
		return;
	KT_EQ_U64(t.ncols, 3);
	KT_STR(t.header[0], "a");
	KT_STR(t.header[1], "b");
	KT_STR(t.header[2], "c");
	KT_EQ_U64(t.nrows, 4);
	KT_STR(t.rows[0][0], "1");
	KT_STR(t.rows[0][1], "x\r\ny");
	KT_STR(t.rows[0][2], "");
	KT_STR(t.rows[1][0], "q\"");
	KT_STR(t.rows[1][1], "");
	KT_STR(t.rows[2][0], "");
	KT_STR(t.rows[2][2], "");
	KT_STR(t.rows[3][0], "last");
	KT_STR(t.rows[3][2], "3");
	KT_EQ_U64(kprof_csv_col(&t, "c"), 2);
	kprof_csv_free(&t);
}

/* A record longer than the cap is an error while it is read. */
static void test_cap(void)
{
	size_t n = KPROF_CSV_MAX_RECORD + 100, len;
	char *text = malloc(n + 16);
	struct kprof_csv_table t;
	struct kprof_err err = { 0 };
	int ret;

	if (!text)
		exit(2);
	len = (size_t)sprintf(text, "a\n\"");
	memset(text + len, 'x', n);
	len += n;
	ret = kprof_csv_load(put_file("cap.csv", text, len), &t, &err);
	KT_CHECK(ret == -EBADMSG && strstr(err.msg, ":2: record longer than"),
		 "over the cap: %d %s", ret, err.msg);
	if (!ret)
		kprof_csv_free(&t);
	free(text);
}

/*
 * every record of path read with skip_from = k (0: none), only the
 * fields sel marks stored (NULL: all), and the plain lines split in
 * place, and by the state machine alone with every field stored: the
 * same
 */
static void same_sel(const char *path, int k, int want_skips, const unsigned char *sel)
{
	struct kprof_csv_src a, b;
	struct kprof_err ea = { 0 }, eb = { 0 };
	FILE *fa = fopen(path, "r"), *fb = fopen(path, "r");
	int ra, rb, skips = 0;

	if (!fa || !fb)
		exit(2);
	kprof_csv_src_init(&a, fa, "f");
	kprof_csv_src_init(&b, fb, "f");
	a.slow_only = 1;
	b.skip_from = k;
	b.sel = sel;
	do {
		ra = kprof_csv_record(&a, &ea);
		rb = kprof_csv_record(&b, &eb);
		KT_CHECK(ra == rb, "%s: %d vs %d (%s / %s)", path, ra, rb, ea.msg, eb.msg);
		if (ra != rb)
			break;
		if (ra < 0)
			KT_STR(eb.msg, ea.msg);
		if (ra <= 0)
			break;
		KT_EQ_U64(b.line, a.line);
		KT_EQ_U64(b.nf + b.nskip, a.nf);
		KT_CHECK(b.nf == (a.nf < k || !k ? a.nf : k), "%s:%lu: %d fields stored",
			 path, a.line, b.nf);
		for (int i = 0; i < b.nf; i++)
			if (!k || !sel || sel[i])
				KT_STR(b.fld[i], a.fld[i]);
		skips += b.nskip > 0;
	} while (ra > 0);
	KT_CHECK(skips >= want_skips, "%s: %d records skipped into", path, skips);
	kprof_csv_src_free(&a);
	kprof_csv_src_free(&b);
	fclose(fa);
	fclose(fb);
}

static void same_records(const char *path, int k, int want_skips)
{
	/* of the first k fields: all, every other one, the last */
	static const unsigned char odd[] = { 0, 1, 0, 1 }, last[][4] = {
		{ 1 }, { 0, 1 }, { 0, 0, 1 }, { 0, 0, 0, 1 },
	};

	same_sel(path, k, want_skips, NULL);
	if (k > 0 && k <= 4) {
		same_sel(path, k, want_skips, odd);
		same_sel(path, k, want_skips, last[k - 1]);
	}
}

/*
 * skip_from: the fields after it are counted, never stored, and the
 * records, their field counts, line numbers and errors are those of a
 * full read, whatever the rest holds (quoted line breaks and commas,
 * quotes inside a plain field, blanks, CR LF, a NUL, no last line break),
 * also where the rest crosses the reader's 64 KiB read-ahead.
 */
static void test_skip(void)
{
	static const char *const texts[] = {
		"a,b,c,d\n1,2,/src/x.cc,\n3,4,5\n6,7\n8,9,a,b,c,d,e\n",
		"a,b,c\r\n1,2,\"x,\ny\"\r\n3,4, \"q\" ,z\r\n5,6,p\"q,r\n7,8,last",
		"a,b,c\n1,2,  ,\"\n",
		"a,b,c\n1,2,x\0y\n",
		"a,b,c\n1,2,\"x\"y\n",
	};
	size_t big = 3 * 65536, len;
	char *text = malloc(big + 64);

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		char name[16];

		snprintf(name, sizeof(name), "skip%zu.csv", i);
		len = i == 3 ? 14 : strlen(texts[i]);
		same_records(put_file(name, texts[i], len), 2, 1);
		same_records(put_file(name, texts[i], len), 0, 0);
	}
	/* rests across read-ahead boundaries, a quote after one */
	if (!text)
		exit(2);
	len = 0;
	while (len < big) {
		size_t n = (size_t)snprintf(text + len, 64, "1,2,%.*s,%s\n", (int)(len % 37),
					    "/a/long/source/path/x/y/z/w/v/u/t/s/r",
					    len % 5 ? "m" : "a\"b , \"c\"");
		len += n;
	}
	same_records(put_file("skipbig.csv", text, len), 2, 1000);
	same_records(put_file("skipbig.csv", text, len), 3, 1000);
	same_records(put_file("skipbig.csv", text, len), 0, 0);
	/*
	 * the read-ahead ends just before a '"' in the rest: inside a
	 * plain field it is an ordinary byte; after ", " it opens a field
	 */
	for (int at = 0; at < 2; at++) {
		const char *tail = at ? "1,2,x, \"q\n,\"\n3,4\n" : "1,2,p\"q,\n3,4\n";
		size_t quote = at ? 7 : 5;	/* the '"' in tail */

		len = (size_t)sprintf(text, "a,b,c\n1,2,");
		memset(text + len, 'x', 65536 - len - quote - 1);
		len = 65536 - quote - 1;
		text[len++] = '\n';
		len += (size_t)sprintf(text + len, "%s", tail);
		same_records(put_file("skipedge.csv", text, len), 2, 2);
	}
	free(text);
}

/*
 * Plain lines (no quote, no NUL) are split in place: blanks around
 * fields, blank and blank-only lines, CR LF, empty and trailing fields,
 * a '\r' inside a field, lines mixed with quoted ones and lines across
 * the read-ahead give what the state machine gives.
 */
static void test_fast(void)
{
	static const char *const texts[] = {
		" a , b\t,c\x20\r\n\n \t\r\n1,,3\n,\n,,\n x\ry ,2,\n",
		"a,b\n\"q\",2\n3,4\n \x20\n5, \"x,y\"\x20\n6,7",
		"a\n\n\n b\x20\n",
		",\n\x20\n",
		"a\n,x\n,\n \t, y\n",	/* skip_from 1: not blank lines */
	};
	size_t big = 2 * 65536 + 77, len = 0;
	char *text = malloc(big + 64);

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		char name[16];

		snprintf(name, sizeof(name), "fast%zu.csv", i);
		for (int k = 0; k < 4; k++)
			same_records(put_file(name, texts[i], strlen(texts[i])), k, 0);
	}
	if (!text)
		exit(2);
	while (len < big)
		len += (size_t)snprintf(text + len, 64, "%zu, %.*s ,x\r\n%s", len,
					(int)(len % 23), "0123456789abcdefghijklmn",
					len % 7 ? "" : "\x20\n");
	for (int k = 0; k < 3; k++)
		same_records(put_file("fastbig.csv", text, len), k, 0);
	free(text);
}

/*
 * kprof_csv_select: the columns chosen are those of a full read, quoted
 * or not, the others NULL; the field count is checked as without it.
 */
static void test_select(void)
{
	const char *p = PUT("sel.csv", "a,b,c,d\n1,2,3,4\n5,\"6,x\",7,8\n9,10,11,12,13\n14,15\n");
	struct kprof_err err = { 0 };
	struct kprof_csv_reader r;

	if (kprof_csv_open(p, &r, &err)) {
		KT_CHECK(0, "open: %s", err.msg);
		return;
	}
	kprof_csv_select(&r, (const int[]){ 3, -1, 1 }, 3);
	KT_CHECK(kprof_csv_next(&r, &err) == 1, "row 1: %s", err.msg);
	KT_CHECK(!r.row[0] && !r.row[2], "row 1: the columns not chosen are NULL");
	KT_STR(r.row[1], "2");
	KT_STR(r.row[3], "4");
	KT_EQ_U64(r.len[3], 1);
	/* a quoted field: the state machine's copy, the same choice */
	kprof_csv_select(&r, (const int[]){ 1 }, 1);
	KT_CHECK(kprof_csv_next(&r, &err) == 1, "row 2: %s", err.msg);
	KT_CHECK(!r.row[0] && !r.row[2] && !r.row[3], "row 2: the columns not chosen are NULL");
	KT_STR(r.row[1], "6,x");
	KT_EQ_U64(r.len[1], 3);
	/* fields past the last chosen one are counted all the same */
	KT_CHECK(kprof_csv_next(&r, &err) == -EBADMSG && strstr(err.msg, "sel.csv:4: 5 fields"),
		 "a row too long: %s", err.msg);
	KT_CHECK(kprof_csv_next(&r, &err) == -EBADMSG && strstr(err.msg, "sel.csv:5: 2 fields"),
		 "a row too short: %s", err.msg);
	kprof_csv_close(&r);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "%s", kt_tmpdir());
	test_inner_quotes();
	test_errors();
	test_valid();
	test_cap();
	test_skip();
	test_fast();
	test_select();
	kt_rmrf(dir);
	return kt_done("test_csvread");
}
