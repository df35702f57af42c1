/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spool files: the raw data of a capture, written as it arrives so that a
 * report can be re-made later (kprof_report_build()) and a crash loses
 * nothing already drained.
 *
 *   <capture dir>/raw/device.kspool   device ring bytes, exactly as read
 *   <capture dir>/raw/device.kidx     the device spool's SYNC, CLOCK and
 *                                     STATE records, so that a report
 *                                     reads device.kspool once
 *   <capture dir>/raw/host.kspool     struct kprof_host_event records (and
 *                                     one struct kprof_host_bpf_stats at end)
 *   <capture dir>/raw/gpu-PID.kspool  CUPTI agent records of CUDA process PID
 *                                     (<kprof/gpu_rec.h>; NVIDIA captures)
 *
 * File = struct kprof_spool_hdr (hdr_size bytes) + records. All integers
 * little-endian (host order; kprof is x86-64/arm64 LE only).
 *
 * Writer use (CTL's capture):
 *   w = kprof_spool_create(dir, KPROF_SPOOL_DEVICE, &info, &cinfo, &err);
 *   loop: kprof_spool_append(w, ring_bytes, n, &err);   (both halves of a
 *         wrapped ring region: two appends)
 *         kprof_spool_flush(w, &err) once per drain round (optional;
 *         appends of >= 64 KiB are written through at once)
 *   kprof_spool_close(w, &err);   writes what is buffered, fsyncs, closes
 * Records must be appended whole and in order; a buffer may end in the
 * middle of a record if the next append continues it.
 */
#ifndef KPROF_SPOOL_H
#define KPROF_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kprof.h>

#include "kprof_err.h"
#include "kprof_rec.h"

#define KPROF_SPOOL_MAGIC	"KPROFSPL"	/* 8 bytes, no NUL */
#define KPROF_SPOOL_VERSION	1

#define KPROF_SPOOL_DEVICE	1
#define KPROF_SPOOL_HOST	2
#define KPROF_SPOOL_GPU		3	/* CUPTI agent records (<kprof/gpu_rec.h>) */
#define KPROF_SPOOL_INDEX	4	/* a device spool's rare records */

#define KPROF_SPOOL_DIR		"raw"
#define KPROF_SPOOL_DEVICE_NAME	"device.kspool"
#define KPROF_SPOOL_HOST_NAME	"host.kspool"
#define KPROF_SPOOL_INDEX_NAME	"device.kidx"
#define KPROF_SPOOL_DEVICE_FILE	KPROF_SPOOL_DIR "/" KPROF_SPOOL_DEVICE_NAME
#define KPROF_SPOOL_HOST_FILE	KPROF_SPOOL_DIR "/" KPROF_SPOOL_HOST_NAME
#define KPROF_SPOOL_INDEX_FILE	KPROF_SPOOL_DIR "/" KPROF_SPOOL_INDEX_NAME
/* NVIDIA, capture --host-times uprobe: libcuda calls (<kprof/cuda_event.h>) */
#define KPROF_SPOOL_CUDA_NAME	"cuda-uprobes.kspool"
#define KPROF_SPOOL_CUDA_FILE	KPROF_SPOOL_DIR "/" KPROF_SPOOL_CUDA_NAME
/* one per CUDA process of an NVIDIA capture: raw/gpu-PID.kspool */
#define KPROF_SPOOL_GPU_PREFIX	"gpu-"
#define KPROF_SPOOL_GPU_SUFFIX	".kspool"

/*
 * Fixed file header. device/counters are meaningful for the device kind
 * and zero for the host kind. Readers accept hdr_size >= sizeof() of the
 * version they know and skip the rest (room to grow).
 */
struct kprof_spool_hdr {
	char magic[8];				/* KPROF_SPOOL_MAGIC */
	uint32_t version;			/* KPROF_SPOOL_VERSION */
	uint32_t kind;				/* KPROF_SPOOL_DEVICE / _HOST */
	uint32_t hdr_size;			/* bytes before the first record */
	uint32_t reserved0;
	uint64_t created_ns;			/* CLOCK_REALTIME at creation */
	/*
	 * index kind: the record bytes of the device spool it was made
	 * from, written by close (0: unfinished, the capture stopped
	 * before); 0 for the other kinds
	 */
	uint64_t covers_bytes;
	uint64_t reserved[3];
	struct kprof_device_info device;
	struct kprof_counter_info counters;
};

struct kprof_spool_writer;
struct kprof_outdir;

/*
 * Creates the spool file of that kind in the raw/ directory of capture
 * (kprof_outdir_sub: made if missing). The file must not exist yet
 * (O_EXCL: a capture starts from an empty raw/). dev/cnt may be NULL
 * (zeroed in the header).
 *
 * A device spool gets its index beside it (raw/device.kidx: a spool of
 * the index kind, the same header): append() copies every SYNC, CLOCK
 * and STATE record there too, and close() finishes it with the device
 * spool's size once that is on disk. Without a finished index that
 * matches the spool (a crash, an append that split a record, a spool
 * changed since), a report reads the spool twice, as before.
 */
struct kprof_spool_writer *kprof_spool_create(struct kprof_outdir *capture,
					      uint32_t kind,
					      const struct kprof_device_info *dev,
					      const struct kprof_counter_info *cnt,
					      struct kprof_err *err);
/* Same, as file name in dir itself (the CUPTI agent's raw/gpu-PID.kspool). */
struct kprof_spool_writer *kprof_spool_create_in(struct kprof_outdir *dir, const char *name,
						 uint32_t kind,
						 const struct kprof_device_info *dev,
						 const struct kprof_counter_info *cnt,
						 struct kprof_err *err);
int kprof_spool_append(struct kprof_spool_writer *w, const void *buf,
		       size_t len, struct kprof_err *err);
/* Writes buffered bytes to the file (page cache; survives a process crash). */
int kprof_spool_flush(struct kprof_spool_writer *w, struct kprof_err *err);
/* Flush + fsync + close + free. w is freed even on error. */
int kprof_spool_close(struct kprof_spool_writer *w, struct kprof_err *err);
uint64_t kprof_spool_bytes(const struct kprof_spool_writer *w);

/* ---- reader: streaming, memory bounded (about 1 MiB) ---- */

struct kprof_spool_reader;

/*
 * records and bytes not side by side: GCC makes their two additions per
 * record (kprof_spool_next) one vector addition, which costs more
 */
struct kprof_spool_stats {
	uint64_t records;		/* records returned */
	uint64_t skipped;		/* unknown-type records skipped */
	uint64_t bytes;			/* record bytes consumed */
	uint64_t truncated_bytes;	/* incomplete last record (crash) */
	uint64_t truncated_at;		/* its file offset */
};

/*
 * Opens a spool for reading: a regular file reached without a link
 * (kprof_in_open rules: path relative to dirfd, or dirfd AT_FDCWD; shown
 * names it in messages, NULL: path). A FIFO or device is refused: a report
 * may read the spool twice.
 */
struct kprof_spool_reader *kprof_spool_openat(int dirfd, const char *path,
					      const char *shown,
					      struct kprof_err *err);
/* kprof_spool_openat(AT_FDCWD, path, NULL, err) */
struct kprof_spool_reader *kprof_spool_open(const char *path,
					    struct kprof_err *err);
const struct kprof_spool_hdr *kprof_spool_header(const struct kprof_spool_reader *r);
/*
 * Next record: KPROF_REC_OK (1) with *rec valid until the next call,
 * KPROF_REC_END (0) at end of file (a truncated last record is tolerated:
 * see kprof_spool_stats.truncated_bytes), KPROF_REC_BAD (-1) with err set
 * (malformed record, with its file offset, or an I/O error).
 */
int kprof_spool_next_slow(struct kprof_spool_reader *r,
			  const struct kprof_rec_hdr **rec, struct kprof_err *err);

/*
 * The reader's first member: what kprof_spool_next()'s inline hot path
 * (a whole record in the mapped window) reads and advances.
 */
struct kprof_spool_cursor {
	struct kprof_rec_iter it;
	struct kprof_spool_stats st;
};

static inline int kprof_spool_next(struct kprof_spool_reader *r,
				   const struct kprof_rec_hdr **rec, struct kprof_err *err)
{
	struct kprof_spool_cursor *c = (struct kprof_spool_cursor *)(void *)r;
	size_t before = c->it.off;
	const struct kprof_rec_hdr *h = kprof_rec_next_fast(&c->it);

	if (h) {
		*rec = h;
		c->st.records++;
		c->st.bytes += c->it.off - before;
		return KPROF_REC_OK;
	}
	return kprof_spool_next_slow(r, rec, err);
}

/*
 * For a caller that takes records itself: the bytes left in the reader's
 * window (*left of them, maybe 0, the last record maybe cut), valid until
 * the next call on r; kprof_spool_take() of the n whole records (bytes
 * in all) it took from their start.
 */
static inline const void *kprof_spool_peek(struct kprof_spool_reader *r, size_t *left)
{
	struct kprof_spool_cursor *c = (struct kprof_spool_cursor *)(void *)r;

	*left = c->it.len - c->it.off;
	return c->it.buf + c->it.off;
}

static inline void kprof_spool_take(struct kprof_spool_reader *r, uint64_t n, size_t bytes)
{
	struct kprof_spool_cursor *c = (struct kprof_spool_cursor *)(void *)r;

	c->it.off += bytes;
	c->st.records += n;
	c->st.bytes += bytes;
}

const struct kprof_spool_stats *kprof_spool_reader_stats(const struct kprof_spool_reader *r);
/*
 * The index of the device spool dev (raw/device.kidx in dirfd), open for
 * reading, when it is finished and made from dev as it is now (same
 * header, covers_bytes dev's record bytes); else NULL, and the spool is
 * to be read in full (no error: the index is an aid, not data).
 */
struct kprof_spool_reader *kprof_spool_index_openat(int dirfd,
						    const struct kprof_spool_reader *dev);
/* Back to the first record (for a second pass). */
int kprof_spool_rewind(struct kprof_spool_reader *r, struct kprof_err *err);
void kprof_spool_free(struct kprof_spool_reader *r);

#endif /* KPROF_SPOOL_H */
