// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl's capture ring reader (kprof_dev_ring_read) on a ring in plain
 * memory: whole records copied out in order, PAD skipped at the wrap, the
 * consumer position handed back, a short buffer and malformed headers
 * refused without consuming anything.
 */
#include "kt.h"
#include "kprof_dev.h"

#include <errno.h>

#define RING	256U

static struct {
	struct kprof_ring_ctrl ctrl;
	uint8_t pad[64];
	uint8_t data[RING];
} mem __attribute__((aligned(64)));

static int consumed_calls;
static int gone_after;		/* >0: consume fails with ENODEV from then on */

static int fake_consume(struct kprof_dev *dev, uint64_t pos)
{
	consumed_calls++;
	if (gone_after && consumed_calls >= gone_after)
		return -ENODEV;
	if (pos < dev->ctrl->tail || pos > dev->ctrl->head)
		return -EINVAL;
	dev->ctrl->tail = pos;
	return 0;
}

/* Producer: one marker record at head, PAD first if it would wrap. */
static void produce(uint16_t size, uint32_t tag)
{
	uint64_t head = mem.ctrl.head;
	uint32_t off = head & (RING - 1);
	struct kprof_rec_marker m;

	if (RING - off < size) {
		struct kprof_rec_hdr pad = { .type = KPROF_REC_PAD,
					     .size = (uint16_t)(RING - off) };

		memcpy(mem.data + off, &pad, sizeof(pad));
		head += RING - off;
		off = 0;
	}
	memset(&m, 0, sizeof(m));
	m.hdr.type = KPROF_REC_MARKER;
	m.hdr.size = size;
	m.op_seq = tag;
	memcpy(mem.data + off, &m, sizeof(m) < size ? sizeof(m) : size);
	mem.ctrl.head = head + size;
}

static void reset(struct kprof_dev *dev, uint64_t pos)
{
	memset(&mem, 0, sizeof(mem));
	mem.ctrl.head = pos;
	mem.ctrl.tail = pos;
	mem.ctrl.data_size = RING;
	memset(dev, 0, sizeof(*dev));
	dev->fd = -1;
	dev->ctrl = &mem.ctrl;
	dev->ring_data = mem.data;
	dev->ring_size = RING;
	dev->consume = fake_consume;
	dev->pos = pos;
	consumed_calls = 0;
	gone_after = 0;
}

static uint32_t tag_at(const uint8_t *buf, size_t off)
{
	struct kprof_rec_marker m;

	memcpy(&m, buf + off, sizeof(m));
	return m.op_seq;
}

int main(void)
{
	struct kprof_dev dev;
	uint8_t buf[1024];
	ssize_t n;
	uint64_t t0;

	/* Empty ring: nothing read, nothing consumed. */
	reset(&dev, 0);
	KT_EQ_U64(kprof_dev_ring_read(&dev, buf, sizeof(buf)), 0);
	KT_EQ_U64(consumed_calls, 0);

	/* Three records in order, all consumed in one call. */
	produce(32, 1);
	produce(32, 2);
	produce(32, 3);
	n = kprof_dev_ring_read(&dev, buf, sizeof(buf));
	KT_EQ_U64(n, 96);
	KT_EQ_U64(tag_at(buf, 0), 1);
	KT_EQ_U64(tag_at(buf, 64), 3);
	KT_EQ_U64(mem.ctrl.tail, 96);
	KT_EQ_U64(consumed_calls, 1);

	/* Wrap: start near the end so the second record needs a PAD. */
	reset(&dev, 5 * RING + 200);
	produce(48, 10);		/* 200..248 */
	produce(32, 11);		/* PAD 248..256, then 0..32 */
	produce(40, 12);
	t0 = mem.ctrl.head;
	n = kprof_dev_ring_read(&dev, buf, sizeof(buf));
	KT_EQ_U64(n, 48 + 32 + 40);
	KT_EQ_U64(tag_at(buf, 0), 10);
	KT_EQ_U64(tag_at(buf, 48), 11);
	KT_EQ_U64(tag_at(buf, 80), 12);
	KT_EQ_U64(mem.ctrl.tail, t0);
	KT_EQ_U64(dev.pad_bytes, 8);
	KT_EQ_U64(dev.records_read, 3);

	/* A PAD in mid-ring (to a DMA span boundary) is skipped by its size. */
	reset(&dev, 0);
	produce(32, 50);
	{
		struct kprof_rec_hdr pad = { .type = KPROF_REC_PAD, .size = 32 };

		memcpy(mem.data + 32, &pad, sizeof(pad));
		mem.ctrl.head += 32;
	}
	produce(32, 51);
	n = kprof_dev_ring_read(&dev, buf, sizeof(buf));
	KT_EQ_U64(n, 64);
	KT_EQ_U64(tag_at(buf, 32), 51);
	KT_EQ_U64(mem.ctrl.tail, 96);

	/* A buffer that holds one record: one at a time, no partial copy. */
	reset(&dev, 0);
	produce(40, 20);
	produce(40, 21);
	n = kprof_dev_ring_read(&dev, buf, 64);
	KT_EQ_U64(n, 40);
	KT_EQ_U64(mem.ctrl.tail, 40);
	n = kprof_dev_ring_read(&dev, buf, 64);
	KT_EQ_U64(n, 40);
	KT_EQ_U64(tag_at(buf, 0), 21);
	/* ...and one that holds none is an error, not an empty read. */
	produce(40, 22);
	KT_EQ_U64(kprof_dev_ring_read(&dev, buf, 16), (uint64_t)-ENOSPC);
	KT_EQ_U64(mem.ctrl.tail, 80);

	/* Malformed headers: refused, nothing consumed. */
	reset(&dev, 0);
	produce(32, 30);
	mem.data[2] = 12;		/* size not a multiple of 8 */
	KT_EQ_U64(kprof_dev_ring_read(&dev, buf, sizeof(buf)), (uint64_t)-EPROTO);
	KT_EQ_U64(mem.ctrl.tail, 0);
	mem.data[2] = 0;		/* size 0 would loop forever */
	KT_EQ_U64(kprof_dev_ring_read(&dev, buf, sizeof(buf)), (uint64_t)-EPROTO);
	mem.data[2] = 64;		/* runs past head */
	KT_EQ_U64(kprof_dev_ring_read(&dev, buf, sizeof(buf)), (uint64_t)-EPROTO);
	KT_EQ_U64(mem.ctrl.tail, 0);

	/* A record that would cross the ring end is malformed too. */
	reset(&dev, 240);
	mem.ctrl.head = 240 + 32;
	{
		struct kprof_rec_hdr h = { .type = KPROF_REC_MARKER, .size = 32 };

		memcpy(mem.data + 240, &h, sizeof(h));
	}
	KT_EQ_U64(kprof_dev_ring_read(&dev, buf, sizeof(buf)), (uint64_t)-EPROTO);

	/* Producer claims more than the ring holds. */
	reset(&dev, 0);
	mem.ctrl.head = RING + 8;
	KT_EQ_U64(kprof_dev_ring_read(&dev, buf, sizeof(buf)), (uint64_t)-EPROTO);

	/* Good records before a bad one are delivered and consumed. */
	reset(&dev, 0);
	produce(32, 40);
	produce(32, 41);
	mem.data[32 + 2] = 9;
	n = kprof_dev_ring_read(&dev, buf, sizeof(buf));
	KT_EQ_U64(n, 32);
	KT_EQ_U64(tag_at(buf, 0), 40);
	KT_EQ_U64(mem.ctrl.tail, 32);
	n = kprof_dev_ring_read(&dev, buf, sizeof(buf));
	KT_CHECK(n == -EPROTO, "bad second record: %zd", n);
	KT_EQ_U64(mem.ctrl.tail, 32);

	/* Device removed: records copied before are delivered once, then
	 * -ENODEV, never the same bytes twice.
	 */
	reset(&dev, 0);
	produce(32, 60);
	produce(32, 61);
	gone_after = 1;
	n = kprof_dev_ring_read(&dev, buf, sizeof(buf));
	KT_EQ_U64(n, 64);
	KT_EQ_U64(tag_at(buf, 32), 61);
	KT_EQ_U64(kprof_dev_ring_pending(&dev), 0);
	KT_EQ_U64(kprof_dev_ring_read(&dev, buf, sizeof(buf)), (uint64_t)-ENODEV);

	return kt_done("test_dev_ring");
}
