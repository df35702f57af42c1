// SPDX-License-Identifier: GPL-2.0
/* External merge sort of fixed-size records (see kprof_xsort.h). */
#include "kprof_xsort.h"
#include "kprof_outdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_LEN	1024	/* records buffered per run while merging */

struct run {
	off_t off;		/* next unread record in the file */
	size_t left;		/* records not yet read from the file */
	size_t pos, len;	/* buffered records: buf[pos .. len) */
	char *buf;
};

struct kprof_xsort {
	size_t size, run_len;
	int (*cmp)(const void *a, const void *b);
	struct kprof_outdir *od;
	char *dir;		/* od's path, for messages */
	char *buf;		/* the run being filled */
	size_t n, cap;
	int fd;
	off_t end;
	struct run *runs;
	unsigned int nruns;
	int merging;		/* next() started */
	size_t mpos;		/* all in memory: next record */
	unsigned int *heap;	/* run indices, smallest current record first */
	unsigned int nheap;
	char *cur;		/* the record next() returned */
};

struct kprof_xsort *kprof_xsort_new(size_t size, int (*cmp)(const void *, const void *),
				    size_t run_len, struct kprof_outdir *od,
				    struct kprof_err *err)
{
	struct kprof_xsort *x = calloc(1, sizeof(*x));

	if (x) {
		x->dir = strdup(kprof_outdir_path(od));
		x->cur = malloc(size);
	}
	if (!x || !x->dir || !x->cur) {
		kprof_xsort_free(x);
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	x->size = size;
	x->cmp = cmp;
	x->run_len = run_len ? run_len : 1;
	x->fd = -1;
	x->od = od;
	return x;
}

/* An unlinked file in the output directory: nothing is left behind
 * whatever happens, and no name another user could have planted.
 */
static int open_tmp(struct kprof_xsort *x, struct kprof_err *err)
{
	x->fd = kprof_outdir_tmpfile(x->od, err);
	if (x->fd >= 0)
		return 0;
	return kprof_err_set(err, err ? err->code : EIO,
			     "cannot create a temporary file in %s: %s", x->dir,
			     strerror(err ? err->code : EIO));
}

/*
 * Sorts the buffered records, unless they are in order already: one pass
 * of comparisons, not qsort's n log n (trace.json's slices mostly come in
 * time order). Records in order are what glibc's stable qsort leaves.
 */
static void sort_buf(struct kprof_xsort *x)
{
	for (size_t i = 1; i < x->n; i++) {
		if (x->cmp(x->buf + (i - 1) * x->size, x->buf + i * x->size) > 0) {
			qsort(x->buf, x->n, x->size, x->cmp);
			return;
		}
	}
}

/* Sorts the buffered records and appends them to the file as a run. */
static int spill(struct kprof_xsort *x, struct kprof_err *err)
{
	size_t len = x->n * x->size, done = 0;
	struct run *r;

	if (!x->n)
		return 0;
	if (x->fd < 0 && open_tmp(x, err))
		return -err->code;
	r = realloc(x->runs, (x->nruns + 1) * sizeof(*r));
	if (!r)
		return kprof_err_set(err, ENOMEM, "out of memory");
	x->runs = r;
	sort_buf(x);
	while (done < len) {
		ssize_t w = pwrite(x->fd, x->buf + done, len - done, x->end + (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return kprof_err_set(err, w < 0 ? errno : ENOSPC,
					     "writing a sort run in %s failed: %s", x->dir,
					     strerror(w < 0 ? errno : ENOSPC));
		done += (size_t)w;
	}
	x->runs[x->nruns++] = (struct run){ .off = x->end, .left = x->n };
	x->end += (off_t)len;
	x->n = 0;
	return 0;
}

int kprof_xsort_add(struct kprof_xsort *x, const void *rec, struct kprof_err *err)
{
	if (x->n == x->run_len) {
		int ret = spill(x, err);

		if (ret)
			return ret;
	}
	if (x->n == x->cap) {
		/* grow up to run_len: small outputs stay small */
		size_t nc = x->cap ? x->cap * 2 : 256;
		char *b;

		if (nc > x->run_len)
			nc = x->run_len;
		b = realloc(x->buf, nc * x->size);
		if (!b)
			return kprof_err_set(err, ENOMEM, "out of memory");
		x->buf = b;
		x->cap = nc;
	}
	memcpy(x->buf + x->n * x->size, rec, x->size);
	x->n++;
	return 0;
}

static int fill(struct kprof_xsort *x, struct run *r, struct kprof_err *err)
{
	size_t want = r->left < READ_LEN ? r->left : READ_LEN, len = want * x->size, got = 0;

	while (got < len) {
		ssize_t n = pread(x->fd, r->buf + got, len - got, r->off + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return kprof_err_set(err, n < 0 ? errno : EIO,
					     "reading a sort run in %s failed", x->dir);
		got += (size_t)n;
	}
	r->off += (off_t)len;
	r->left -= want;
	r->pos = 0;
	r->len = want;
	return 0;
}

static const void *head(const struct kprof_xsort *x, unsigned int i)
{
	const struct run *r = &x->runs[i];

	return r->buf + r->pos * x->size;
}

static void sift_down(struct kprof_xsort *x, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, m = i, t;

		if (l < x->nheap && x->cmp(head(x, x->heap[l]), head(x, x->heap[m])) < 0)
			m = l;
		if (l + 1 < x->nheap && x->cmp(head(x, x->heap[l + 1]), head(x, x->heap[m])) < 0)
			m = l + 1;
		if (m == i)
			return;
		t = x->heap[i];
		x->heap[i] = x->heap[m];
		x->heap[m] = t;
		i = m;
	}
}

/* The last run is spilled too; the big buffer goes, each run gets a small one. */
static int start_merge(struct kprof_xsort *x, struct kprof_err *err)
{
	int ret = spill(x, err);

	if (ret)
		return ret;
	free(x->buf);
	x->buf = NULL;
	x->cap = 0;
	x->heap = calloc(x->nruns, sizeof(*x->heap));
	if (!x->heap)
		return kprof_err_set(err, ENOMEM, "out of memory");
	for (unsigned int i = 0; i < x->nruns; i++) {
		x->runs[i].buf = malloc(READ_LEN * x->size);
		if (!x->runs[i].buf)
			return kprof_err_set(err, ENOMEM, "out of memory");
		ret = fill(x, &x->runs[i], err);
		if (ret)
			return ret;
		x->heap[x->nheap++] = i;
	}
	for (unsigned int i = x->nheap / 2; i-- > 0;)
		sift_down(x, i);
	return 0;
}

int kprof_xsort_next(struct kprof_xsort *x, const void **rec, struct kprof_err *err)
{
	struct run *r;
	int ret;

	if (!x->merging) {
		x->merging = 1;
		if (!x->nruns) {
			sort_buf(x);
		} else {
			ret = start_merge(x, err);
			if (ret)
				return ret;
		}
	}
	if (!x->nruns) {
		if (x->mpos == x->n)
			return 0;
		*rec = x->buf + x->mpos++ * x->size;
		return 1;
	}
	if (!x->nheap)
		return 0;
	r = &x->runs[x->heap[0]];
	memcpy(x->cur, r->buf + r->pos * x->size, x->size);
	*rec = x->cur;
	if (++r->pos == r->len) {
		if (r->left) {
			ret = fill(x, r, err);
			if (ret)
				return ret;
		} else {
			x->heap[0] = x->heap[--x->nheap];
		}
	}
	sift_down(x, 0);
	return 1;
}

unsigned int kprof_xsort_runs(const struct kprof_xsort *x)
{
	return x->nruns;
}

void kprof_xsort_free(struct kprof_xsort *x)
{
	if (!x)
		return;
	if (x->fd >= 0)
		close(x->fd);
	for (unsigned int i = 0; i < x->nruns; i++)
		free(x->runs[i].buf);
	free(x->runs);
	free(x->heap);
	free(x->buf);
	free(x->cur);
	free(x->dir);
	free(x);
}
