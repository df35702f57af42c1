// SPDX-License-Identifier: GPL-2.0
/*
 * The ring reader when the device is removed under it: the kernel ends
 * the mapping (SIGBUS on the next touch). A memfd stands in for the
 * device: truncating it makes its mapping fault the same way, and what
 * read(2) returns afterwards plays the records the kernel still holds.
 * The reader must not die, must report state GONE, and must deliver the
 * rest through read(2) exactly once, then -ENODEV. A SIGBUS elsewhere
 * still reaches the handler installed before.
 */
#include "kt.h"
#include "kprof_dev.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#define RING	16384U

static uint64_t consumed;

static int fake_consume(struct kprof_dev *dev, uint64_t pos)
{
	(void)dev;
	consumed = pos;
	return 0;
}

static void marker(struct kprof_rec_marker *m, uint32_t tag)
{
	memset(m, 0, sizeof(*m));
	m->hdr.type = KPROF_REC_MARKER;
	m->hdr.size = sizeof(*m);
	m->op_seq = tag;
}

static uint32_t tag_at(const uint8_t *buf, size_t off)
{
	struct kprof_rec_marker m;

	memcpy(&m, buf + off, sizeof(m));
	return m.op_seq;
}

static sigjmp_buf prev_jmp;
static volatile int prev_hits;

static void prev_handler(int sig)
{
	(void)sig;
	prev_hits++;
	siglongjmp(prev_jmp, 1);
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct kprof_ring_ctrl c;
	struct kprof_rec_marker m[5];
	struct sigaction sa;
	struct kprof_dev dev;
	uint8_t buf[1024];
	volatile uint8_t *other;
	volatile uint64_t st = 0, pending = 0, size = 0;
	int fd, ofd;
	ssize_t n;

	/* A SIGBUS handler of the program's own, installed first. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = prev_handler;
	sigaction(SIGBUS, &sa, NULL);

	fd = memfd_create("ring", 0);
	KT_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	KT_CHECK(!ftruncate(fd, pg + RING), "ftruncate");
	memset(&c, 0, sizeof(c));
	c.data_size = RING;
	c.data_offset = (uint32_t)pg;
	for (int i = 0; i < 5; i++)
		marker(&m[i], 100 + i);
	/* Three records produced, then mapped and read the usual way. */
	c.head = 3 * sizeof(m[0]);
	KT_CHECK(pwrite(fd, &c, sizeof(c), 0) == sizeof(c), "pwrite ctrl");
	KT_CHECK(pwrite(fd, m, 5 * sizeof(m[0]), pg) == 5 * sizeof(m[0]),
		 "pwrite data");

	memset(&dev, 0, sizeof(dev));
	dev.fd = fd;
	dev.consume = fake_consume;
	KT_EQ_U64(kprof_dev_ring_map(&dev), 0);
	n = kprof_dev_ring_read(&dev, buf, sizeof(buf));
	KT_EQ_U64(n, 3 * sizeof(m[0]));
	KT_EQ_U64(tag_at(buf, 64), 102);
	KT_EQ_U64(consumed, 3 * sizeof(m[0]));

	/* Two more produced; then the device goes away with its mapping. */
	c.head = 5 * sizeof(m[0]);
	KT_CHECK(pwrite(fd, &c, sizeof(c), 0) == sizeof(c), "pwrite ctrl");
	KT_CHECK(!ftruncate(fd, 0), "ftruncate 0");
	/* Without the reader's handler the earlier one would catch this. */
	if (!sigsetjmp(prev_jmp, 1)) {
		st = kprof_dev_ring_state(&dev);
		pending = kprof_dev_ring_pending(&dev);
		/* Direct reads of the control page see the last one. */
		size = dev.ctrl->data_size;
	}
	KT_EQ_U64(prev_hits, 0);
	if (prev_hits)
		return kt_done("test_dev_ring_gone");
	KT_EQ_U64(st, KPROF_STATE_GONE);
	KT_EQ_U64(pending, 1);
	KT_EQ_U64(size, RING);

	/* What the kernel still holds comes through read(2), PAD-free. */
	KT_CHECK(pwrite(fd, &m[3], 2 * sizeof(m[0]), 0) == 2 * sizeof(m[0]),
		 "pwrite rest");
	KT_CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	n = kprof_dev_ring_read(&dev, buf, sizeof(buf));
	KT_EQ_U64(n, 2 * sizeof(m[0]));
	KT_EQ_U64(tag_at(buf, 0), 103);
	KT_EQ_U64(tag_at(buf, 32), 104);
	KT_EQ_U64(dev.records_read, 5);
	KT_EQ_U64(kprof_dev_ring_read(&dev, buf, sizeof(buf)), (uint64_t)-ENODEV);
	KT_EQ_U64(kprof_dev_ring_pending(&dev), 0);
	/* Nothing was consumed through the dead mapping. */
	KT_EQ_U64(consumed, 3 * sizeof(m[0]));
	kprof_dev_ring_unmap(&dev);

	/* A fault in memory that is no ring goes to the earlier handler. */
	ofd = memfd_create("other", 0);
	KT_CHECK(ofd >= 0 && !ftruncate(ofd, pg), "other memfd");
	other = mmap(NULL, pg, PROT_READ, MAP_SHARED, ofd, 0);
	KT_CHECK(other != MAP_FAILED, "mmap other");
	KT_CHECK(!ftruncate(ofd, 0), "ftruncate other");
	if (!sigsetjmp(prev_jmp, 1))
		(void)*other;
	KT_EQ_U64(prev_hits, 1);
	munmap((void *)other, pg);
	close(ofd);
	close(fd);
	return kt_done("test_dev_ring_gone");
}
