// SPDX-License-Identifier: GPL-2.0
/* report.md as HTML (kprof_mdhtml.h). */
#include "kprof_mdhtml.h"
#include "kprof_html.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MD_LINE_MAX	(64u << 10)
#define MD_COLS_MAX	64

enum block { B_NONE, B_PARA, B_UL, B_OL, B_TABLE };

struct md {
	FILE *out;
	int shift;
	enum block blk;
	char *pending;		/* a "| ... |" line that may head a table */
	char align[MD_COLS_MAX];	/* 'l', 'r', 'c' or 0 per column */
	int ncols;
};

static void esc_char(FILE *out, unsigned char c)
{
	char s[2] = { (char)c, '\0' };

	/* control characters would reach the reader's screen as they are */
	if ((c < 0x20 && c != '\t') || c == 0x7f)
		s[0] = '?';
	kprof_html_escape(out, s);
}

/* Inline markup of s[0..n): backslash escapes, **bold**, `code`. */
static void inline_md(FILE *out, const char *s, size_t n)
{
	int bold = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) {
			esc_char(out, (unsigned char)s[++i]);
		} else if (s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
			fputs(bold ? "</strong>" : "<strong>", out);
			bold = !bold;
			i++;
		} else if (s[i] == '`' && memchr(s + i + 1, '`', n - i - 1)) {
			const char *e = memchr(s + i + 1, '`', n - i - 1);

			fputs("<code>", out);
			for (const char *p = s + i + 1; p < e; p++)
				esc_char(out, (unsigned char)*p);
			fputs("</code>", out);
			i = (size_t)(e - s);
		} else {
			esc_char(out, (unsigned char)s[i]);
		}
	}
	if (bold)
		fputs("</strong>", out);
}

static void close_block(struct md *m)
{
	static const char *const end[] = {
		[B_NONE] = "", [B_PARA] = "</p>\n", [B_UL] = "</ul>\n",
		[B_OL] = "</ol>\n", [B_TABLE] = "</tbody></table>\n",
	};

	fputs(end[m->blk], m->out);
	m->blk = B_NONE;
}

static void open_block(struct md *m, enum block b)
{
	static const char *const start[] = {
		[B_NONE] = "", [B_PARA] = "<p>", [B_UL] = "<ul>\n",
		[B_OL] = "<ol>\n", [B_TABLE] = "",
	};

	if (m->blk == b)
		return;
	close_block(m);
	fputs(start[b], m->out);
	m->blk = b;
}

/*
 * Splits a "| a | b |" row at unescaped pipes into trimmed cells
 * (pointers into s, lengths in len). Returns the cell count.
 */
static int table_cells(const char *s, const char **cell, size_t *len)
{
	const char *p = s, *end = s + strlen(s);
	int n = 0;

	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (*p == '|')
		p++;
	if (end > p && end[-1] == '|' && !(end - 1 > p && end[-2] == '\\'))
		end--;
	while (p <= end && n < MD_COLS_MAX) {
		const char *q = p;

		while (q < end && !(*q == '|' && (q == p || q[-1] != '\\')))
			q++;
		const char *a = p, *b = q;

		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		cell[n] = a;
		len[n++] = (size_t)(b - a);
		if (q >= end)
			break;
		p = q + 1;
	}
	return n;
}

/* "|---|:--:|---:|": fills align[] and returns 1. */
static int align_row(struct md *m, const char *s)
{
	const char *cell[MD_COLS_MAX];
	size_t len[MD_COLS_MAX];
	int n = table_cells(s, cell, len);

	for (int i = 0; i < n; i++) {
		size_t a = 0, b = len[i];

		if (!b)
			return 0;
		if (cell[i][0] == ':')
			a++;
		if (b > a && cell[i][b - 1] == ':')
			b--;
		if (a >= b)
			return 0;
		for (size_t j = a; j < b; j++)
			if (cell[i][j] != '-')
				return 0;
		m->align[i] = cell[i][0] == ':' ? (cell[i][len[i] - 1] == ':' ? 'c' : 'l') :
			      cell[i][len[i] - 1] == ':' ? 'r' : 0;
	}
	m->ncols = n;
	return n > 0;
}

static void table_row(struct md *m, const char *s, const char *tag)
{
	static const char *const style[] = { ['l'] = " class=\"l\"", ['r'] = " class=\"r\"",
					     ['c'] = " class=\"c\"" };
	const char *cell[MD_COLS_MAX];
	size_t len[MD_COLS_MAX];
	int n = table_cells(s, cell, len);

	fputs("<tr>", m->out);
	for (int i = 0; i < n; i++) {
		unsigned char a = i < m->ncols ? (unsigned char)m->align[i] : 0;

		fprintf(m->out, "<%s%s>", tag, a ? style[a] : "");
		inline_md(m->out, cell[i], len[i]);
		fprintf(m->out, "</%s>", tag);
	}
	fputs("</tr>\n", m->out);
}

static void paragraph_line(struct md *m, const char *s)
{
	if (m->blk == B_PARA)
		fputc('\n', m->out);
	open_block(m, B_PARA);
	inline_md(m->out, s, strlen(s));
}

static void line_md(struct md *m, char *s)
{
	size_t h = 0, d = 0;

	if (m->pending) {
		char *head = m->pending;

		m->pending = NULL;
		if (align_row(m, s)) {
			close_block(m);
			fputs("<table class=\"md\"><thead>\n", m->out);
			table_row(m, head, "th");
			fputs("</thead><tbody>\n", m->out);
			m->blk = B_TABLE;
			free(head);
			return;
		}
		paragraph_line(m, head);
		free(head);
	}
	while (s[h] == '#')
		h++;
	while (isdigit((unsigned char)s[d]))
		d++;
	if (!*s || strspn(s, " \t") == strlen(s)) {
		close_block(m);
	} else if (h >= 1 && h <= 6 && s[h] == ' ') {
		int lv = (int)h + m->shift;

		close_block(m);
		lv = lv > 6 ? 6 : lv;
		fprintf(m->out, "<h%d>", lv);
		inline_md(m->out, s + h + 1, strlen(s + h + 1));
		fprintf(m->out, "</h%d>\n", lv);
	} else if ((s[0] == '-' || s[0] == '*') && s[1] == ' ') {
		open_block(m, B_UL);
		fputs("<li>", m->out);
		inline_md(m->out, s + 2, strlen(s + 2));
		fputs("</li>\n", m->out);
	} else if (d && s[d] == '.' && s[d + 1] == ' ') {
		open_block(m, B_OL);
		fputs("<li>", m->out);
		inline_md(m->out, s + d + 2, strlen(s + d + 2));
		fputs("</li>\n", m->out);
	} else if (s[0] == '|' && m->blk == B_TABLE) {
		table_row(m, s, "td");
	} else if (s[0] == '|') {
		m->pending = strdup(s);
		if (!m->pending)
			paragraph_line(m, s);
	} else {
		paragraph_line(m, s);
	}
}

int kprof_md_to_html(FILE *in, FILE *out, int shift)
{
	struct md m = { .out = out, .shift = shift };
	char *line = malloc(MD_LINE_MAX + 1);
	int c, r = 0;

	if (!line)
		return -ENOMEM;
	for (;;) {
		size_t n = 0;

		/* byte at a time, so no line can grow past the cap in memory */
		while ((c = getc(in)) != EOF && c != '\n')
			if (n < MD_LINE_MAX && c != '\r' && c != '\0')
				line[n++] = (char)c;
		if (c == EOF && !n)
			break;
		line[n] = '\0';
		line_md(&m, line);
		if (c == EOF)
			break;
	}
	if (ferror(in))
		r = -EIO;
	if (m.pending) {
		paragraph_line(&m, m.pending);
		free(m.pending);
	}
	close_block(&m);
	free(line);
	return r;
}
