// SPDX-License-Identifier: GPL-2.0
/*
 * Spool files: raw capture data on disk, written as it arrives.
 */
#include "kprof_spool.h"
#include "kprof_env.h"
#include "kprof_fs.h"
#include "kprof_outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(struct kprof_spool_hdr) % 8 == 0,
	       "records after the header must stay 8-byte aligned");

#define WBUF_SIZE	(64U << 10)
#define RBUF_SIZE	(1U << 20)	/* > largest record (64 KiB) */
/* Spools are read through a sliding mmap window of this size (no copy;
 * what stays resident is bounded by it); through read() where a file
 * system cannot map.
 */
#define MAP_WINDOW	(4U << 20)

struct kprof_spool_writer {
	int fd;
	char *path;
	uint64_t bytes;		/* record bytes accepted */
	size_t used;
	int failed;		/* a write failed: the index is not finished */
	/*
	 * device kind: raw/device.kidx (NULL: none, or given up), and how
	 * many bytes of a record cut by the end of an append are still to
	 * come in the next
	 */
	struct kprof_spool_writer *idx;
	size_t idx_skip;
	uint8_t buf[WBUF_SIZE];
};

/* the records an index keeps: few, and what a report needs first */
#define INDEX_TYPES	(1U << KPROF_REC_SYNC | 1U << KPROF_REC_CLOCK | 1U << KPROF_REC_STATE)

static int write_all(int fd, const void *buf, size_t len, const char *path,
		     struct kprof_err *err)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return kprof_err_set(err, errno, "writing %s: %s", path,
					     strerror(errno));
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A new spool file name in raw/ with header h. */
static struct kprof_spool_writer *spool_new(struct kprof_outdir *raw, const char *name,
					    const struct kprof_spool_hdr *h,
					    struct kprof_err *err)
{
	struct kprof_spool_writer *w;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", kprof_outdir_path(raw), name);
	w = calloc(1, sizeof(*w));
	if (w)
		w->path = strdup(path);
	if (!w || !w->path) {
		free(w);
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	/* one openat in the held raw/ fd; the hot path is unchanged */
	w->fd = kprof_outdir_create_new(raw, name, err);
	if (w->fd < 0)
		goto fail;
	if (write_all(w->fd, h, sizeof(*h), path, err))
		goto fail;
	return w;
fail:
	if (w->fd >= 0)
		close(w->fd);
	free(w->path);
	free(w);
	return NULL;
}

struct kprof_spool_writer *kprof_spool_create(struct kprof_outdir *capture,
					      uint32_t kind,
					      const struct kprof_device_info *dev,
					      const struct kprof_counter_info *cnt,
					      struct kprof_err *err)
{
	struct kprof_outdir *raw;

	if (kind != KPROF_SPOOL_DEVICE && kind != KPROF_SPOOL_HOST) {
		kprof_err_set(err, EINVAL, "bad spool kind %u", kind);
		return NULL;
	}
	raw = kprof_outdir_sub(capture, KPROF_SPOOL_DIR, err);
	if (!raw)
		return NULL;
	return kprof_spool_create_in(raw, kind == KPROF_SPOOL_HOST ? KPROF_SPOOL_HOST_NAME :
				     KPROF_SPOOL_DEVICE_NAME, kind, dev, cnt, err);
}

struct kprof_spool_writer *kprof_spool_create_in(struct kprof_outdir *raw, const char *name,
						 uint32_t kind,
						 const struct kprof_device_info *dev,
						 const struct kprof_counter_info *cnt,
						 struct kprof_err *err)
{
	struct kprof_spool_writer *w;
	struct kprof_spool_hdr h;
	struct timespec ts;

	if (kind != KPROF_SPOOL_DEVICE && kind != KPROF_SPOOL_HOST && kind != KPROF_SPOOL_GPU) {
		kprof_err_set(err, EINVAL, "bad spool kind %u", kind);
		return NULL;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, KPROF_SPOOL_MAGIC, sizeof(h.magic));
	h.version = KPROF_SPOOL_VERSION;
	h.kind = kind;
	h.hdr_size = sizeof(h);
	clock_gettime(CLOCK_REALTIME, &ts);
	h.created_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (dev)
		h.device = *dev;
	if (cnt)
		h.counters = *cnt;
	w = spool_new(raw, name, &h, err);
	if (!w || kind != KPROF_SPOOL_DEVICE || strcmp(name, KPROF_SPOOL_DEVICE_NAME))
		return w;
	/* the index: the device spool's header, its own kind */
	h.kind = KPROF_SPOOL_INDEX;
	w->idx = spool_new(raw, KPROF_SPOOL_INDEX_NAME, &h, err);
	if (!w->idx) {
		kprof_spool_close(w, NULL);
		return NULL;
	}
	return w;
}

int kprof_spool_flush(struct kprof_spool_writer *w, struct kprof_err *err)
{
	int ret;

	if (!w->used)
		return 0;
	ret = write_all(w->fd, w->buf, w->used, w->path, err);
	w->used = 0;
	w->failed |= ret != 0;
	return ret;
}

/* The index is given up: left unfinished, so that reports do without. */
static void index_drop(struct kprof_spool_writer *w)
{
	kprof_spool_close(w->idx, NULL);
	w->idx = NULL;
}

/*
 * Copies the index's records of an append to the index. Records cut by
 * an append's end are skipped over in the next, unless the index needs
 * their bytes (then it is given up); a size the reader would refuse
 * gives it up too: the report reads the spool and says where.
 */
static void index_scan(struct kprof_spool_writer *w, const uint8_t *p, size_t len)
{
	size_t off = w->idx_skip < len ? w->idx_skip : len;

	w->idx_skip -= off;
	while (off < len) {
		struct kprof_rec_hdr h;
		size_t left = len - off;

		if (left < sizeof(h))
			goto drop;
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8)
			goto drop;
		if (h.type < 32 && (INDEX_TYPES >> h.type & 1)) {
			if (h.size > left || kprof_spool_append(w->idx, p + off, h.size, NULL))
				goto drop;
		}
		if (h.size > left) {
			w->idx_skip = h.size - left;
			return;
		}
		off += h.size;
	}
	return;
drop:
	index_drop(w);
}

int kprof_spool_append(struct kprof_spool_writer *w, const void *buf,
		       size_t len, struct kprof_err *err)
{
	int ret;

	if (w->idx)
		index_scan(w, buf, len);
	w->bytes += len;
	if (len <= WBUF_SIZE - w->used) {
		memcpy(w->buf + w->used, buf, len);
		w->used += len;
		return w->used == WBUF_SIZE ? kprof_spool_flush(w, err) : 0;
	}
	ret = kprof_spool_flush(w, err);
	if (ret)
		return ret;
	if (len >= WBUF_SIZE / 2) {
		ret = write_all(w->fd, buf, len, w->path, err);
		w->failed |= ret != 0;
		return ret;
	}
	memcpy(w->buf, buf, len);
	w->used = len;
	return 0;
}

uint64_t kprof_spool_bytes(const struct kprof_spool_writer *w)
{
	return w->bytes;
}

/*
 * After the device spool is on disk: the index says how many record bytes
 * it covers (a failure leaves it unfinished, which reports do without).
 */
static void index_finish(struct kprof_spool_writer *w)
{
	struct kprof_spool_writer *x = w->idx;
	uint64_t covers = w->bytes;

	if (!kprof_spool_flush(x, NULL) &&
	    pwrite(x->fd, &covers, sizeof(covers),
		   offsetof(struct kprof_spool_hdr, covers_bytes)) != (ssize_t)sizeof(covers))
		x->failed = 1;
	kprof_spool_close(x, NULL);
	w->idx = NULL;
}

int kprof_spool_close(struct kprof_spool_writer *w, struct kprof_err *err)
{
	int ret;

	if (!w)
		return 0;
	ret = kprof_spool_flush(w, err);
	if (!ret && fsync(w->fd))
		ret = kprof_err_set(err, errno, "fsync %s: %s", w->path,
				    strerror(errno));
	if (close(w->fd) && !ret)
		ret = kprof_err_set(err, errno, "close %s: %s", w->path,
				    strerror(errno));
	if (w->idx && !ret && !w->failed && !w->idx_skip)
		index_finish(w);
	else
		index_drop(w);
	free(w->path);
	free(w);
	return ret;
}

/* ------------------------------------------------------------------ */

struct kprof_spool_reader {
	struct kprof_spool_cursor cur;	/* first: kprof_spool_next() inline */
	int fd;
	char *path;
	struct kprof_spool_hdr hdr;
	uint64_t data_start;	/* file offset of the first record */
	uint64_t file_off;	/* file offset of buf[0] */
	size_t len;		/* valid bytes in buf */
	int eof;
	uint8_t *buf;
	uint8_t *rbuf;		/* read() buffer, when not mapped */
	int mapped;		/* regular file: sliding mmap window */
	uint64_t fsize;		/* file size at open (mapped mode) */
	void *map;		/* current window */
	size_t map_len;
};

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (uint8_t *)buf + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

struct kprof_spool_reader *kprof_spool_openat(int dirfd, const char *rel,
					      const char *shown,
					      struct kprof_err *err)
{
	struct kprof_spool_reader *r = calloc(1, sizeof(*r));
	const char *path = shown ? shown : rel;
	struct stat sb;
	ssize_t n;

	if (r)
		r->path = strdup(path);
	if (!r || !r->path) {
		free(r);
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	r->fd = kprof_in_open(dirfd, rel, path, err);
	if (r->fd < 0)
		goto fail;
	if (fstat(r->fd, &sb)) {
		kprof_err_set(err, errno, "cannot read spool %s: %s", path, strerror(errno));
		goto fail;
	}
	r->mapped = 1;	/* kprof_in_open: a regular file */
	r->fsize = (uint64_t)sb.st_size;
	n = read_full(r->fd, &r->hdr, sizeof(r->hdr));
	if (n < 0) {
		kprof_err_set(err, errno, "reading %s: %s", path, strerror(errno));
		goto fail;
	}
	if ((size_t)n < sizeof(r->hdr) || memcmp(r->hdr.magic, KPROF_SPOOL_MAGIC, 8)) {
		kprof_err_set(err, EBADMSG,
			      "%s is not a kprof spool file (bad magic or short header)",
			      path);
		goto fail;
	}
	if (r->hdr.version != KPROF_SPOOL_VERSION) {
		kprof_err_set(err, EPROTONOSUPPORT,
			      "%s: spool version %u, this kprof reads version %u",
			      path, r->hdr.version, KPROF_SPOOL_VERSION);
		goto fail;
	}
	if (r->hdr.kind != KPROF_SPOOL_DEVICE && r->hdr.kind != KPROF_SPOOL_HOST &&
	    r->hdr.kind != KPROF_SPOOL_GPU && r->hdr.kind != KPROF_SPOOL_INDEX) {
		kprof_err_set(err, EBADMSG, "%s: bad spool kind %u", path,
			      r->hdr.kind);
		goto fail;
	}
	if (r->hdr.hdr_size < sizeof(r->hdr) || r->hdr.hdr_size % 8 ||
	    r->hdr.hdr_size > RBUF_SIZE) {
		kprof_err_set(err, EBADMSG, "%s: bad header size %u", path,
			      r->hdr.hdr_size);
		goto fail;
	}
	r->data_start = r->hdr.hdr_size;
	if (kprof_spool_rewind(r, err))
		goto fail;
	return r;
fail:
	kprof_spool_free(r);
	return NULL;
}

struct kprof_spool_reader *kprof_spool_open(const char *path, struct kprof_err *err)
{
	return kprof_spool_openat(AT_FDCWD, path, NULL, err);
}

const struct kprof_spool_hdr *kprof_spool_header(const struct kprof_spool_reader *r)
{
	return &r->hdr;
}

const struct kprof_spool_stats *kprof_spool_reader_stats(const struct kprof_spool_reader *r)
{
	return &r->cur.st;
}

struct kprof_spool_reader *kprof_spool_index_openat(int dirfd,
						    const struct kprof_spool_reader *dev)
{
	struct kprof_spool_reader *x;
	struct kprof_spool_hdr a = dev->hdr, b;

	if (a.kind != KPROF_SPOOL_DEVICE || dev->fsize < dev->data_start)
		return NULL;
	x = kprof_spool_openat(dirfd, KPROF_SPOOL_INDEX_FILE, NULL, NULL);
	if (!x)
		return NULL;
	/* the same header but for the kind and what the index covers */
	b = x->hdr;
	a.kind = KPROF_SPOOL_INDEX;
	a.covers_bytes = dev->fsize - dev->data_start;
	if (!a.covers_bytes || memcmp(&a, &b, sizeof(a))) {
		kprof_spool_free(x);
		return NULL;
	}
	return x;
}

static void unmap(struct kprof_spool_reader *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
	r->map_len = 0;
}

static int refill(struct kprof_spool_reader *r, struct kprof_err *err);

/* Maps the window that starts at the next unconsumed byte. */
static int remap(struct kprof_spool_reader *r, struct kprof_err *err)
{
	uint64_t at = r->file_off + r->cur.it.off, base;
	long page = sysconf(_SC_PAGESIZE);
	size_t skip;

	r->cur.st.skipped += r->cur.it.skipped;
	unmap(r);
	r->file_off = at;
	base = at & ~(uint64_t)(page - 1);
	skip = (size_t)(at - base);
	if (at >= r->fsize) {
		r->len = 0;
		r->eof = 1;
		kprof_rec_iter_init(&r->cur.it, NULL, 0, at);
		return 0;
	}
	r->map_len = r->fsize - base < MAP_WINDOW ? (size_t)(r->fsize - base) : MAP_WINDOW;
	/* KPROF_SPOOL_NO_MMAP=1 takes the fallback below (tests, debugging) */
	r->map = kprof_env("KPROF_SPOOL_NO_MMAP") ? MAP_FAILED :
		 mmap(NULL, r->map_len, PROT_READ, MAP_PRIVATE, r->fd, (off_t)base);
	if (r->map == MAP_FAILED) {
		/* some file systems (9p, FUSE without caching) cannot map:
		 * go on with read() from here
		 */
		r->map = NULL;
		r->map_len = 0;
		r->rbuf = malloc(RBUF_SIZE);
		if (!r->rbuf)
			return kprof_err_set(err, ENOMEM, "out of memory");
		if (lseek(r->fd, (off_t)at, SEEK_SET) < 0)
			return kprof_err_set(err, errno, "seek %s: %s", r->path,
					     strerror(errno));
		r->mapped = 0;
		r->buf = r->rbuf;
		r->len = 0;
		r->eof = 0;
		kprof_rec_iter_init(&r->cur.it, r->buf, 0, at);
		return refill(r, err);
	}
	madvise(r->map, r->map_len, MADV_SEQUENTIAL);
	r->buf = (uint8_t *)r->map + skip;
	r->len = r->map_len - skip;
	r->eof = base + r->map_len >= r->fsize;
	kprof_rec_iter_init(&r->cur.it, r->buf, r->len, at);
	return 0;
}

int kprof_spool_rewind(struct kprof_spool_reader *r, struct kprof_err *err)
{
	if (r->mapped) {
		unmap(r);
		r->file_off = r->data_start;
		r->len = 0;
		r->eof = 0;
		memset(&r->cur.st, 0, sizeof(r->cur.st));
		kprof_rec_iter_init(&r->cur.it, NULL, 0, r->file_off);
		return 0;
	}
	if (lseek(r->fd, (off_t)r->data_start, SEEK_SET) < 0)
		return kprof_err_set(err, errno,
				     "cannot rewind %s (%s): a report reads the spool twice, so it must be a regular file",
				     r->path, strerror(errno));
	r->file_off = r->data_start;
	r->len = 0;
	r->eof = 0;
	memset(&r->cur.st, 0, sizeof(r->cur.st));
	kprof_rec_iter_init(&r->cur.it, r->buf, 0, r->file_off);
	return 0;
}

/* Keeps the unconsumed tail, reads more after it. */
static int refill(struct kprof_spool_reader *r, struct kprof_err *err)
{
	size_t keep = r->len - r->cur.it.off;
	ssize_t n;

	memmove(r->buf, r->buf + r->cur.it.off, keep);
	r->file_off += r->cur.it.off;
	n = read_full(r->fd, r->buf + keep, RBUF_SIZE - keep);
	if (n < 0)
		return kprof_err_set(err, errno, "reading %s: %s", r->path,
				     strerror(errno));
	if ((size_t)n < RBUF_SIZE - keep)
		r->eof = 1;
	r->len = keep + (size_t)n;
	r->cur.st.skipped += r->cur.it.skipped;
	kprof_rec_iter_init(&r->cur.it, r->buf, r->len, r->file_off);
	return 0;
}

/*
 * kprof_spool_next's slow path: ret is what kprof_rec_next gave from
 * offset before (the end of the window or the file, or a bad record).
 */
static __attribute__((noinline)) int spool_next_slow(struct kprof_spool_reader *r,
						     const struct kprof_rec_hdr **rec,
						     struct kprof_err *err, int ret, size_t before)
{
	for (;;) {
		if (ret == KPROF_REC_OK) {
			r->cur.st.records++;
			r->cur.st.bytes += r->cur.it.off - before;
			return ret;
		}
		if (ret == KPROF_REC_BAD) {
			kprof_err_prefix(err, r->path);
			return ret;
		}
		if (r->eof) {
			if (ret == KPROF_REC_PARTIAL) {
				/* a crash mid-write: keep what came before */
				r->cur.st.truncated_at = r->file_off + r->cur.it.off;
				r->cur.st.truncated_bytes = r->len - r->cur.it.off;
				r->cur.it.off = r->len;
			}
			r->cur.st.skipped += r->cur.it.skipped;
			r->cur.it.skipped = 0;
			return KPROF_REC_END;
		}
		if (r->mapped ? remap(r, err) : refill(r, err))
			return KPROF_REC_BAD;
		before = r->cur.it.off;
		ret = kprof_rec_next(&r->cur.it, rec, err);
	}
}

int kprof_spool_next_slow(struct kprof_spool_reader *r,
			  const struct kprof_rec_hdr **rec, struct kprof_err *err)
{
	size_t before = r->cur.it.off;

	return spool_next_slow(r, rec, err, kprof_rec_next(&r->cur.it, rec, err), before);
}

void kprof_spool_free(struct kprof_spool_reader *r)
{
	if (!r)
		return;
	unmap(r);
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r->rbuf);
	free(r);
}
