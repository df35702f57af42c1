// SPDX-License-Identifier: GPL-2.0
/* The one CSV reader (see kprof_csvread.h). */
#include "kprof_csvread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kprof_csv_split(char *s, char **f, int max)
{
	int n = 0;

	for (;;) {
		char *out, *start;

		while (*s == ' ' || *s == '\t')
			s++;
		start = out = s;
		if (*s == '"') {
			s++;
			for (;;) {
				if (*s == '\0')
					return -1;
				if (*s == '"') {
					if (s[1] == '"') {
						*out++ = '"';
						s += 2;
						continue;
					}
					s++;
					break;
				}
				*out++ = *s++;
			}
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s != ',' && *s != '\0')
				return -1;
		} else {
			while (*s != ',' && *s != '\0')
				*out++ = *s++;
			while (out > start && (out[-1] == ' ' || out[-1] == '\t'))
				out--;
		}
		if (n < max)
			f[n] = start;
		n++;
		if (*s == '\0') {
			*out = '\0';
			return n;
		}
		s++;
		*out = '\0';
	}
}

/* Counts the fields of a line without changing it (quotes respected). */
static int count_fields(const char *s, int *open_quote)
{
	int n = 1, q = 0;

	for (; *s; s++) {
		if (*s == '"')
			q = !q;
		else if (*s == ',' && !q)
			n++;
	}
	*open_quote = q;
	return n;
}

static void chomp(char *line, size_t *len)
{
	while (*len && (line[*len - 1] == '\n' || line[*len - 1] == '\r'))
		line[--*len] = '\0';
}

static int add_row(struct kprof_csv_table *t, char *buf, int nf, size_t *cap)
{
	char **fld;
	int n;

	if (t->nrows == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		char ***r = realloc(t->rows, nc * sizeof(*r));
		char **b;

		if (!r)
			return -ENOMEM;
		t->rows = r;
		b = realloc(t->bufs, (nc + 1) * sizeof(*b));
		if (!b)
			return -ENOMEM;
		t->bufs = b;
		*cap = nc;
	}
	fld = calloc((size_t)(t->ncols > nf ? t->ncols : nf) + 1, sizeof(*fld));
	if (!fld)
		return -ENOMEM;
	n = kprof_csv_split(buf, fld, nf);
	for (int i = n; i < t->ncols; i++)
		fld[i] = buf + strlen(buf);	/* "" */
	t->rows[t->nrows] = fld;
	t->bufs[t->nrows] = buf;
	t->nrows++;
	return 0;
}

int kprof_csv_load(const char *path, struct kprof_csv_table *t, struct kprof_err *err)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *rec = NULL, *hdr = NULL;
	size_t cap = 0, reclen = 0, rowcap = 0;
	unsigned long lineno = 0, recline = 0;
	ssize_t got;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	if (!f)
		return kprof_err_set(err, errno, "%s: %s", path, strerror(errno));
	while ((got = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)got;
		int nf, open;
		char *r;

		lineno++;
		if (strlen(line) != len) {
			ret = kprof_err_set(err, EBADMSG, "%s:%lu: NUL byte in line", path, lineno);
			goto out;
		}
		if (!rec)
			recline = lineno;
		/* a quoted field spanning lines: keep the line break, read on */
		r = realloc(rec, reclen + len + 1);
		if (!r) {
			ret = kprof_err_set(err, ENOMEM, "out of memory");
			goto out;
		}
		rec = r;
		memcpy(rec + reclen, line, len + 1);
		reclen += len;
		nf = count_fields(rec, &open);
		if (open)
			continue;
		chomp(rec, &reclen);
		if (!hdr) {
			hdr = rec;
			t->ncols = nf;
			t->header = calloc((size_t)nf, sizeof(*t->header));
			if (!t->header) {
				ret = kprof_err_set(err, ENOMEM, "out of memory");
				goto out;
			}
			if (kprof_csv_split(hdr, t->header, nf) != nf) {
				ret = kprof_err_set(err, EBADMSG, "%s:1: bad header line", path);
				goto out;
			}
		} else if (reclen) {
			if (nf > t->ncols) {
				ret = kprof_err_set(err, EBADMSG, "%s:%lu: %d fields, the header has %d",
						    path, recline, nf, t->ncols);
				goto out;
			}
			if (add_row(t, rec, nf, &rowcap)) {
				ret = kprof_err_set(err, ENOMEM, "out of memory");
				goto out;
			}
		} else {
			free(rec);
		}
		rec = NULL;
		reclen = 0;
	}
	if (rec) {
		ret = kprof_err_set(err, EBADMSG, "%s:%lu: unterminated quoted field", path, recline);
		goto out;
	}
	if (!hdr)
		ret = kprof_err_set(err, EBADMSG, "%s: empty file (no header line)", path);
out:
	free(rec);
	free(line);
	fclose(f);
	if (hdr) {
		char **b = realloc(t->bufs, (t->nrows + 1) * sizeof(*b));

		if (b) {
			t->bufs = b;
			t->bufs[t->nrows] = hdr;
		} else {
			free(hdr);	/* header names are gone: unusable */
			ret = ret ? ret : kprof_err_set(err, ENOMEM, "out of memory");
			hdr = NULL;
		}
	}
	if (!hdr) {
		free(t->header);
		t->header = NULL;
	}
	if (ret)
		kprof_csv_free(t);
	return ret;
}

int kprof_csv_col(const struct kprof_csv_table *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->header[i], name))
			return i;
	return -1;
}

void kprof_csv_free(struct kprof_csv_table *t)
{
	if (t->bufs) {
		for (size_t i = 0; i < t->nrows; i++)
			free(t->bufs[i]);
		if (t->header)
			free(t->bufs[t->nrows]);
	}
	if (t->rows)
		for (size_t i = 0; i < t->nrows; i++)
			free(t->rows[i]);
	free(t->rows);
	free(t->bufs);
	free(t->header);
	memset(t, 0, sizeof(*t));
}
