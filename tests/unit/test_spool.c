// SPDX-License-Identifier: GPL-2.0
/* Spool files: round trip, header, truncated tail, corrupt middle, what
 * is not a regular file refused.
 */
#include "kt.h"
#include "kprof_outdir.h"
#include "kprof_spool.h"
#include "kprof_env.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t mk_marker(uint8_t *p, uint32_t seq)
{
	struct kprof_rec_marker m = {
		.hdr = { .type = KPROF_REC_MARKER, .size = sizeof(m) },
		.core = (uint16_t)(seq % 7), .kind = KPROF_MARK_KERNEL_END,
		.op_seq = seq, .timestamp = 1000ULL * seq,
	};
	memcpy(p, &m, sizeof(m));
	return sizeof(m);
}

int main(void)
{
	char *dir = kt_tmpdir();
	char path[256];
	struct kprof_outdir *od;
	struct kprof_err err;
	struct kprof_device_info info = { .size = sizeof(info), .num_cores = 64 };
	struct kprof_spool_writer *w;
	struct kprof_spool_reader *r;
	const struct kprof_rec_hdr *rec;
	static uint8_t chunk[200000];
	const uint32_t N = 300000;	/* > read buffer: crosses refills */
	uint32_t seq = 0, expect = 0;
	int ret;

	/* KPROF_* variables below are the test's own: honour them as root too */
	kprof_env_trust(1);

	strcpy(info.name, "kprof_sim0");
	od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	KT_CHECK(od, "outdir: %s", err.msg);
	if (!od)
		return kt_done("test_spool");
	w = kprof_spool_create(od, KPROF_SPOOL_DEVICE, &info, NULL, &err);
	KT_CHECK(w, "create: %s", err.msg);
	if (!w)
		return kt_done("test_spool");
	/* appends that split records across buffers, like a wrapped ring */
	while (seq < N) {
		size_t n = 0;

		while (n + 32 <= sizeof(chunk) && seq < N)
			n += mk_marker(chunk + n, seq++);
		size_t half = n / 2 + 3;

		KT_CHECK(kprof_spool_append(w, chunk, half, &err) == 0, "append");
		KT_CHECK(kprof_spool_append(w, chunk + half, n - half, &err) == 0, "append");
	}
	/* small appends go through the internal buffer */
	for (int i = 0; i < 100; i++) {
		uint8_t one[32];

		mk_marker(one, seq++);
		kprof_spool_append(w, one, 32, &err);
	}
	KT_EQ_U64(kprof_spool_bytes(w), (uint64_t)seq * 32);
	KT_CHECK(kprof_spool_close(w, &err) == 0, "close: %s", err.msg);

	/* its index was given up (appends cut record heads): unfinished,
	 * so a report reads the spool itself
	 */
	snprintf(path, sizeof(path), "%s/%s", dir, KPROF_SPOOL_INDEX_FILE);
	r = kprof_spool_open(path, &err);
	KT_CHECK(r && kprof_spool_header(r)->kind == KPROF_SPOOL_INDEX &&
		 kprof_spool_header(r)->covers_bytes == 0, "unfinished index: %s",
		 r ? "finished" : err.msg);
	kprof_spool_free(r);

	snprintf(path, sizeof(path), "%s/%s", dir, KPROF_SPOOL_DEVICE_FILE);
	r = kprof_spool_open(path, &err);
	KT_CHECK(r, "open: %s", err.msg);
	if (!r)
		return kt_done("test_spool");
	KT_STR(kprof_spool_header(r)->device.name, "kprof_sim0");
	KT_EQ_U64(kprof_spool_header(r)->device.num_cores, 64);
	KT_EQ_U64(kprof_spool_header(r)->kind, KPROF_SPOOL_DEVICE);
	while ((ret = kprof_spool_next(r, &rec, &err)) == KPROF_REC_OK) {
		const struct kprof_rec_marker *m = (const void *)rec;

		if (m->op_seq != expect || m->timestamp != 1000ULL * expect) {
			KT_CHECK(0, "record %u has seq %u", expect, m->op_seq);
			break;
		}
		expect++;
	}
	KT_CHECK(ret == KPROF_REC_END, "end: %d %s", ret, err.msg);
	KT_EQ_U64(expect, seq);
	KT_EQ_U64(kprof_spool_reader_stats(r)->truncated_bytes, 0);
	/* second pass after rewind sees the same count */
	KT_CHECK(kprof_spool_rewind(r, &err) == 0, "rewind");
	expect = 0;
	while (kprof_spool_next(r, &rec, &err) == KPROF_REC_OK)
		expect++;
	KT_EQ_U64(expect, seq);
	kprof_spool_free(r);

	/* a file system that cannot mmap: falls back to read(), same records,
	 * and still rewinds
	 */
	setenv("KPROF_SPOOL_NO_MMAP", "1", 1);
	r = kprof_spool_open(path, &err);
	for (int pass = 0; r && pass < 2; pass++) {
		expect = 0;
		while ((ret = kprof_spool_next(r, &rec, &err)) == KPROF_REC_OK) {
			if (((const struct kprof_rec_marker *)rec)->op_seq != expect)
				break;
			expect++;
		}
		KT_CHECK(ret == KPROF_REC_END, "no-mmap pass %d: %d %s", pass, ret, err.msg);
		KT_EQ_U64(expect, seq);
		KT_CHECK(kprof_spool_rewind(r, &err) == 0, "no-mmap rewind: %s", err.msg);
	}
	kprof_spool_free(r);
	unsetenv("KPROF_SPOOL_NO_MMAP");

	/* not a regular file: refused at once, never opened (a FIFO's open
	 * would block with no writer), with a message naming the file
	 */
	{
		char fifo[300];

		snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
		KT_CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
		r = kprof_spool_open(fifo, &err);
		KT_CHECK(!r && strstr(err.msg, "FIFO") && strstr(err.msg, fifo),
			 "FIFO refused: %s", err.msg);
		kprof_spool_free(r);
		unlink(fifo);
		r = kprof_spool_open("/dev/null", &err);
		KT_CHECK(!r && strstr(err.msg, "/dev/null is a character device"),
			 "device refused: %s", err.msg);
		kprof_spool_free(r);
	}

	/* a spool is created only where none is: O_EXCL, never truncated */
	w = kprof_spool_create(od, KPROF_SPOOL_DEVICE, &info, NULL, &err);
	KT_CHECK(!w && err.code == EEXIST, "second device spool: %s", err.msg);

	/* crash mid-record: cut 20 bytes off the end */
	{
		off_t size;
		int fd = open(path, O_RDWR);

		size = lseek(fd, 0, SEEK_END);
		KT_CHECK(ftruncate(fd, size - 20) == 0, "truncate");
		close(fd);
		r = kprof_spool_open(path, &err);
		expect = 0;
		while ((ret = kprof_spool_next(r, &rec, &err)) == KPROF_REC_OK)
			expect++;
		KT_CHECK(ret == KPROF_REC_END, "truncated end: %d", ret);
		KT_EQ_U64(expect, seq - 1);
		KT_EQ_U64(kprof_spool_reader_stats(r)->truncated_bytes, 12);
		KT_EQ_U64(kprof_spool_reader_stats(r)->truncated_at,
			  sizeof(struct kprof_spool_hdr) + (uint64_t)(seq - 1) * 32);
		kprof_spool_free(r);
	}

	/* corrupt size in the middle: error with the file offset, no crash */
	{
		int fd = open(path, O_RDWR);
		uint64_t at = sizeof(struct kprof_spool_hdr) + 1000 * 32;
		uint16_t bad = 12;
		char want[64];

		KT_CHECK(pwrite(fd, &bad, 2, (off_t)at + 2) == 2, "pwrite");
		close(fd);
		r = kprof_spool_open(path, &err);
		expect = 0;
		while ((ret = kprof_spool_next(r, &rec, &err)) == KPROF_REC_OK)
			expect++;
		KT_CHECK(ret == KPROF_REC_BAD, "corrupt: %d", ret);
		KT_EQ_U64(expect, 1000);
		snprintf(want, sizeof(want), "offset %llu", (unsigned long long)at);
		KT_CHECK(strstr(err.msg, want) && strstr(err.msg, "device.kspool"),
			 "message: %s", err.msg);
		kprof_spool_free(r);
	}

	/* not a spool */
	{
		FILE *f = fopen(path, "w");

		fputs("hello, this is not a spool file at all, definitely not", f);
		fclose(f);
		r = kprof_spool_open(path, &err);
		KT_CHECK(!r && strstr(err.msg, "not a kprof spool"), "magic: %s",
			 err.msg);
	}

	/* host kind via create() */
	w = kprof_spool_create(od, KPROF_SPOOL_HOST, NULL, NULL, &err);
	KT_CHECK(w && kprof_spool_close(w, &err) == 0, "host spool");
	snprintf(path, sizeof(path), "%s/%s", dir, KPROF_SPOOL_HOST_FILE);
	r = kprof_spool_open(path, &err);
	KT_CHECK(r && kprof_spool_header(r)->kind == KPROF_SPOOL_HOST, "host kind");
	KT_CHECK(r && kprof_spool_next(r, &rec, &err) == KPROF_REC_END, "empty");
	kprof_spool_free(r);
	kprof_outdir_close(od);
	kt_rmrf(dir);
	return kt_done("test_spool");
}
