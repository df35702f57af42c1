// SPDX-License-Identifier: GPL-2.0
/* The one CSV reader (see kprof_csvread.h). */
#include "kprof_csvread.h"
#include "kprof_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * Reads one logical record (a quoted field may span lines) into r->rec:
 * 1 with r->nf fields counted, 0 at the end, -errno with err set.
 * Blank lines are skipped.
 */
static int next_record(struct kprof_csv_reader *r, struct kprof_err *err)
{
	size_t reclen = 0;
	ssize_t got;

	free(r->rec);
	r->rec = NULL;
	while ((got = getline(&r->line, &r->linecap, r->f)) >= 0) {
		size_t len = (size_t)got;
		int open;
		char *p;

		r->lineno++;
		if (strlen(r->line) != len)
			return kprof_err_set(err, EBADMSG, "%s:%lu: NUL byte in line",
					     r->path, r->lineno);
		if (!r->rec)
			r->recline = r->lineno;
		/* a quoted field spanning lines: keep the line break, read on */
		p = realloc(r->rec, reclen + len + 1);
		if (!p)
			return kprof_err_set(err, ENOMEM, "out of memory");
		r->rec = p;
		memcpy(r->rec + reclen, r->line, len + 1);
		reclen += len;
		r->nf = count_fields(r->rec, &open);
		if (open)
			continue;
		chomp(r->rec, &reclen);
		if (reclen)
			return 1;
		free(r->rec);
		r->rec = NULL;
	}
	if (ferror(r->f))
		return kprof_err_set(err, EIO, "%s: read error", r->path);
	if (r->rec)
		return kprof_err_set(err, EBADMSG, "%s:%lu: unterminated quoted field",
				     r->path, r->recline);
	return 0;
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
	int ret;

	memset(r, 0, sizeof(*r));
	r->path = strdup(path);
	r->f = r->path ? fdopen(fd, "r") : NULL;
	if (!r->f) {
		close(fd);
		ret = kprof_err_set(err, r->path ? errno : ENOMEM, "%s: %s", path,
				    strerror(r->path ? errno : ENOMEM));
		goto fail;
	}
	ret = next_record(r, err);
	if (ret <= 0) {
		if (!ret)
			ret = kprof_err_set(err, EBADMSG, "%s: empty file (no header line)", path);
		goto fail;
	}
	r->ncols = r->nf;
	r->header = calloc((size_t)r->nf, sizeof(*r->header));
	r->row = calloc((size_t)r->nf + 1, sizeof(*r->row));
	if (!r->header || !r->row) {
		ret = kprof_err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	if (kprof_csv_split(r->rec, r->header, r->nf) != r->nf) {
		ret = kprof_err_set(err, EBADMSG, "%s:1: bad header line", path);
		goto fail;
	}
	r->hdrbuf = r->rec;
	r->rec = NULL;
	return 0;
fail:
	kprof_csv_close(r);
	return ret;
}

/* The current record's field count against the header's. */
static int check_width(const struct kprof_csv_reader *r, struct kprof_err *err)
{
	if (r->nf > r->ncols)
		return kprof_err_set(err, EBADMSG, "%s:%lu: %d fields, the header has %d",
				     r->path, r->recline, r->nf, r->ncols);
	return 0;
}

/* Splits buf into fld (ncols + 1 slots); missing trailing fields are "". */
static void split_row(char *buf, char **fld, int nf, int ncols)
{
	int n = kprof_csv_split(buf, fld, nf);

	for (int i = n; i < ncols; i++)
		fld[i] = buf + strlen(buf);
}

int kprof_csv_next(struct kprof_csv_reader *r, struct kprof_err *err)
{
	int ret = next_record(r, err);

	if (ret <= 0)
		return ret;
	ret = check_width(r, err);
	if (ret)
		return ret;
	split_row(r->rec, r->row, r->nf, r->ncols);
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

void kprof_csv_close(struct kprof_csv_reader *r)
{
	if (r->f)
		fclose(r->f);
	free(r->path);
	free(r->line);
	free(r->rec);
	free(r->hdrbuf);
	free(r->header);
	free(r->row);
	memset(r, 0, sizeof(*r));
}

static int add_row(struct kprof_csv_table *t, char *buf, int nf, size_t *cap)
{
	char **fld;

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
	split_row(buf, fld, nf, t->ncols);
	t->rows[t->nrows] = fld;
	t->bufs[t->nrows] = buf;
	t->nrows++;
	return 0;
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
	size_t rowcap = 0;
	char **b;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = kprof_csv_open_fd(fd, path, &r, err);
	if (ret)
		return ret;
	t->ncols = r.ncols;
	while ((ret = next_record(&r, err)) > 0) {
		ret = check_width(&r, err);
		if (ret)
			break;
		if (add_row(t, r.rec, r.nf, &rowcap)) {
			ret = kprof_err_set(err, ENOMEM, "out of memory");
			break;
		}
		r.rec = NULL;	/* now the row's */
	}
	/* the table owns the header: names in header, storage in bufs[nrows] */
	b = ret ? NULL : realloc(t->bufs, (t->nrows + 1) * sizeof(*b));
	if (b) {
		t->bufs = b;
		t->bufs[t->nrows] = r.hdrbuf;
		t->header = r.header;
		r.hdrbuf = NULL;
		r.header = NULL;
	} else if (!ret) {
		ret = kprof_err_set(err, ENOMEM, "out of memory");
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
