// SPDX-License-Identifier: GPL-2.0
/*
 * The edu backend's data path and kprof backend ops.
 *
 * edu has no cores that write markers, so the driver is the marker source:
 * it times each op (a factorial the device computes) with the host clock
 * and writes OP and MARKER records into a 4 KiB coherent staging buffer.
 * The device's own DMA engine then moves them, in two transfers, from the
 * staging buffer into its 4 KiB buffer and from there into the span of
 * kprof's ring the core lent us; the second transfer's interrupt completes
 * the descriptor. Nothing is copied into the ring by the CPU.
 */
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/ktime.h>
#include <linux/string.h>

#include "kprof_edu.h"

/* A factorial of a small number takes microseconds; a second is "gone". */
#define EDU_OP_TIMEOUT		HZ
/* One transfer takes edu 100 ms of virtual time; two make a descriptor. */
#define EDU_STOP_POLL		(HZ / 10)
#define EDU_STOP_TRIES		50

static bool kprof_edu_alive(struct kprof_edu *ed)
{
	return readl(ed->regs + EDU_REG_ID) != ~0U;
}

static bool kprof_edu_dma_running(struct kprof_edu *ed)
{
	/* A removed device reads all ones: never "done", see capture_stop. */
	return readq(ed->regs + EDU_REG_DMA_CMD) & EDU_DMA_RUN;
}

static void kprof_edu_dma_start(struct kprof_edu *ed, u64 src, u64 dst,
				u32 len, u32 cmd)
{
	writeq(src, ed->regs + EDU_REG_DMA_SRC);
	writeq(dst, ed->regs + EDU_REG_DMA_DST);
	writeq(len, ed->regs + EDU_REG_DMA_CNT);
	writeq(cmd | EDU_DMA_RUN | EDU_DMA_IRQ, ed->regs + EDU_REG_DMA_CMD);
}

/* Start moving whole staged records (at most one span) to the device. */
static void kprof_edu_pump(struct kprof_edu *ed)
{
	u32 limit, n = 0, records = 0;
	u64 lost = 0;

	lockdep_assert_held(&ed->lock);
	if (ed->dma != EDU_DMA_IDLE || !ed->desc_valid || ed->gone)
		return;
	if (!ed->stage_len) {
		/* Nothing to move: the doorbell interrupt completes it empty. */
		if (ed->flush)
			writel(EDU_IRQ_FLUSH, ed->regs + EDU_REG_IRQ_RAISE);
		return;
	}
	limit = min3(ed->stage_len, ed->desc.len, (u32)EDU_BUF_SIZE);
	while (n < limit) {
		const struct kprof_rec_hdr *h = ed->stage + n;

		if (n + h->size > limit)
			break;
		if (h->type == KPROF_REC_LOST)
			lost += ((const struct kprof_rec_lost *)h)->count;
		n += h->size;
		records++;
	}
	if (!n)
		return;
	ed->xfer_bytes = n;
	ed->xfer_records = records;
	ed->xfer_lost = lost;
	ed->dma = EDU_DMA_STAGE_TO_DEV;
	kprof_edu_dma_start(ed, ed->stage_dma, EDU_BUF_ADDR, n, 0);
}

/*
 * Advance the engine after an interrupt (or a poll). True when the
 * descriptor is done; *res then says what it holds.
 */
static bool kprof_edu_step(struct kprof_edu *ed, struct kprof_dma_result *res)
{
	lockdep_assert_held(&ed->lock);
	switch (ed->dma) {
	case EDU_DMA_STAGE_TO_DEV:
		if (kprof_edu_dma_running(ed))
			return false;
		/* The device holds the records now: free their staging space. */
		memmove(ed->stage, ed->stage + ed->xfer_bytes,
			ed->stage_len - ed->xfer_bytes);
		ed->stage_len -= ed->xfer_bytes;
		ed->dma = EDU_DMA_DEV_TO_RING;
		kprof_edu_dma_start(ed, EDU_BUF_ADDR, ed->desc.dma_addr,
				    ed->xfer_bytes, EDU_DMA_TO_RAM);
		wake_up_all(&ed->idle_wq);
		return false;
	case EDU_DMA_DEV_TO_RING:
		if (kprof_edu_dma_running(ed))
			return false;
		res->bytes = ed->xfer_bytes;
		res->records = ed->xfer_records;
		res->lost_markers = ed->xfer_lost;
		break;
	case EDU_DMA_IDLE:
		if (!ed->desc_valid || ed->stage_len || !ed->flush) {
			kprof_edu_pump(ed);
			return false;
		}
		memset(res, 0, sizeof(*res));
		break;
	}
	ed->dma = EDU_DMA_IDLE;
	ed->desc_valid = false;
	ed->flush = false;
	wake_up_all(&ed->idle_wq);
	return true;
}

irqreturn_t kprof_edu_irq(int irq, void *data)
{
	struct kprof_edu *ed = data;
	struct kprof_dma_result res;
	struct kprof_device *kd;
	unsigned long flags;
	bool done = false;
	u32 status;

	status = readl(ed->regs + EDU_REG_IRQ_STATUS);
	/* Not ours (shared INTx), or the device is gone. */
	if (!status || status == ~0U)
		return IRQ_NONE;
	writel(status, ed->regs + EDU_REG_IRQ_ACK);
	if (status & EDU_IRQ_FACT)
		complete(&ed->fact_done);
	if (status & (EDU_IRQ_DMA | EDU_IRQ_FLUSH)) {
		spin_lock_irqsave(&ed->lock, flags);
		done = kprof_edu_step(ed, &res);
		kd = ed->kd;
		spin_unlock_irqrestore(&ed->lock, flags);
	}
	/* Not under ed->lock: the core may submit the next span from here. */
	if (done)
		kprof_dma_complete(kd, &res);
	return IRQ_HANDLED;
}

/* Append one record to the staging buffer; markers may be dropped. */
static void kprof_edu_put(struct kprof_edu *ed, const void *rec, u32 size,
			  u64 op_seq)
{
	const struct kprof_rec_hdr *h = rec;
	bool marker = h->type == KPROF_REC_MARKER;
	struct kprof_rec_lost lost;
	unsigned long flags;

	spin_lock_irqsave(&ed->lock, flags);
	if (!ed->capturing || (marker && ed->paused))
		goto out;
	if (ed->lost_pending &&
	    ed->stage_len + sizeof(lost) + size <= EDU_BUF_SIZE) {
		memset(&lost, 0, sizeof(lost));
		lost.hdr.type = KPROF_REC_LOST;
		lost.hdr.size = sizeof(lost);
		lost.count = ed->lost;
		lost.first_op_seq = ed->lost_first;
		lost.last_op_seq = ed->lost_last;
		lost.timestamp = ktime_get_ns();
		memcpy(ed->stage + ed->stage_len, &lost, sizeof(lost));
		ed->stage_len += sizeof(lost);
		ed->lost_pending = false;
		ed->lost = 0;
	}
	if (ed->lost_pending || ed->stage_len + size > EDU_BUF_SIZE) {
		/* OP records are never dropped here: they are rare and small. */
		if (marker) {
			if (!ed->lost_pending)
				ed->lost_first = op_seq;
			ed->lost_last = op_seq;
			ed->lost++;
			ed->lost_pending = true;
			goto out;
		}
		if (ed->stage_len + size > EDU_BUF_SIZE)
			goto out;
	}
	memcpy(ed->stage + ed->stage_len, rec, size);
	ed->stage_len += size;
	kprof_edu_pump(ed);
out:
	spin_unlock_irqrestore(&ed->lock, flags);
}

static void kprof_edu_marker(struct kprof_edu *ed, u8 kind, u64 op_seq,
			     u64 t)
{
	struct kprof_rec_marker m = {
		.hdr = { .type = KPROF_REC_MARKER, .size = sizeof(m) },
		.kind = kind,
		.op_seq = (u32)op_seq,
		.timestamp = t,
	};

	kprof_edu_put(ed, &m, sizeof(m), op_seq);
}

/* One op: the device computes n!, timed by the driver's markers. */
int kprof_edu_run_op(struct kprof_edu *ed, u32 n, u32 *result)
{
	struct kprof_rec_op op = {
		.hdr = { .type = KPROF_REC_OP, .size = sizeof(op) },
		.num_cores = 1,
		.clock_mhz = ed->info.clock_base_mhz,
		.name = "factorial",
	};
	int ret = 0;

	if (mutex_lock_killable(&ed->op_lock))
		return -EINTR;
	if (!kprof_edu_alive(ed)) {
		ret = -ENODEV;
		goto out;
	}
	op.op_seq = ++ed->op_seq;
	op.timestamp = ktime_get_ns();
	kprof_edu_put(ed, &op, sizeof(op), op.op_seq);
	kprof_edu_marker(ed, KPROF_MARK_KERNEL_START, op.op_seq,
			 op.timestamp);
	reinit_completion(&ed->fact_done);
	writel(EDU_STATUS_IRQ_FACT, ed->regs + EDU_REG_STATUS);
	writel(n, ed->regs + EDU_REG_FACT);
	if (!wait_for_completion_timeout(&ed->fact_done, EDU_OP_TIMEOUT)) {
		ret = -ETIMEDOUT;
		goto out;
	}
	kprof_edu_marker(ed, KPROF_MARK_KERNEL_END, op.op_seq,
			 ktime_get_ns());
	*result = readl(ed->regs + EDU_REG_FACT);
	ed->last_result = *result;
out:
	mutex_unlock(&ed->op_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* kprof backend ops                                                   */
/* ------------------------------------------------------------------ */

static int kprof_edu_capture_start(struct kprof_device *kd, u64 counter_mask)
{
	struct kprof_edu *ed = kprof_device_priv(kd);
	unsigned long flags;

	if (counter_mask)
		return -EINVAL;
	spin_lock_irqsave(&ed->lock, flags);
	ed->kd = kd;
	ed->capturing = true;
	ed->paused = false;
	ed->stage_len = 0;
	ed->lost = 0;
	ed->lost_pending = false;
	spin_unlock_irqrestore(&ed->lock, flags);
	return 0;
}

static bool kprof_edu_drained(struct kprof_edu *ed)
{
	unsigned long flags;
	bool drained;

	spin_lock_irqsave(&ed->lock, flags);
	drained = ed->dma == EDU_DMA_IDLE && !ed->stage_len;
	if (!drained)
		kprof_edu_pump(ed);
	spin_unlock_irqrestore(&ed->lock, flags);
	return drained;
}

/*
 * The core still lends spans while we stop: move what is staged, then
 * return with no transfer under way (the core unmaps the ring after
 * stop). A device that stopped answering (removed) cannot DMA any more;
 * one that is merely slow gets EDU_STOP_TRIES polls.
 */
static void kprof_edu_capture_stop(struct kprof_device *kd)
{
	struct kprof_edu *ed = kprof_device_priv(kd);
	unsigned long flags;
	int i;

	spin_lock_irqsave(&ed->lock, flags);
	ed->capturing = false;
	spin_unlock_irqrestore(&ed->lock, flags);

	for (i = 0; i < EDU_STOP_TRIES; i++) {
		if (wait_event_timeout(ed->idle_wq, kprof_edu_drained(ed),
				       EDU_STOP_POLL))
			break;
		if (!kprof_edu_alive(ed))
			break;
	}

	spin_lock_irqsave(&ed->lock, flags);
	if (ed->dma != EDU_DMA_IDLE) {
		dev_warn(&ed->pdev->dev,
			 "DMA engine did not go idle at capture stop; device treated as gone\n");
		ed->gone = true;
		ed->dma = EDU_DMA_IDLE;
	}
	ed->desc_valid = false;
	ed->flush = false;
	ed->stage_len = 0;
	spin_unlock_irqrestore(&ed->lock, flags);
}

static void kprof_edu_capture_pause(struct kprof_device *kd, bool paused)
{
	struct kprof_edu *ed = kprof_device_priv(kd);
	unsigned long flags;

	spin_lock_irqsave(&ed->lock, flags);
	ed->paused = paused;
	spin_unlock_irqrestore(&ed->lock, flags);
}

static int kprof_edu_dma_submit(struct kprof_device *kd,
				const struct kprof_dma_desc *desc)
{
	struct kprof_edu *ed = kprof_device_priv(kd);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&ed->lock, flags);
	if (ed->desc_valid || ed->gone) {
		ret = ed->gone ? -ENODEV : -EBUSY;
	} else {
		ed->desc = *desc;
		ed->desc_valid = true;
		ed->flush = false;
		kprof_edu_pump(ed);
	}
	spin_unlock_irqrestore(&ed->lock, flags);
	return ret;
}

static bool kprof_edu_dma_poll(struct kprof_device *kd,
			       struct kprof_dma_result *res)
{
	struct kprof_edu *ed = kprof_device_priv(kd);
	unsigned long flags;
	bool done = false;

	spin_lock_irqsave(&ed->lock, flags);
	/* An idle engine with a descriptor has nothing "done" to report. */
	if (ed->dma != EDU_DMA_IDLE)
		done = kprof_edu_step(ed, res);
	spin_unlock_irqrestore(&ed->lock, flags);
	return done;
}

static void kprof_edu_dma_flush(struct kprof_device *kd)
{
	struct kprof_edu *ed = kprof_device_priv(kd);
	unsigned long flags;

	spin_lock_irqsave(&ed->lock, flags);
	ed->flush = true;
	kprof_edu_pump(ed);
	spin_unlock_irqrestore(&ed->lock, flags);
}

/* edu has no clock control: one fixed nominal clock, never changes. */
static void kprof_edu_get_clock(struct kprof_device *kd,
				struct kprof_hw_clock *clk)
{
	struct kprof_edu *ed = kprof_device_priv(kd);

	clk->mhz = ed->info.clock_base_mhz;
	clk->locked = false;
}

static int kprof_edu_set_clock(struct kprof_device *kd, bool locked, u32 mhz)
{
	return locked ? -EOPNOTSUPP : 0;
}

/*
 * The marker clock is CLOCK_MONOTONIC (the driver stamps the markers), so
 * the device time is the host time; the bracket is an MMIO round trip,
 * which also tells a removed device.
 */
static int kprof_edu_cross_timestamp(struct kprof_device *kd, u64 *before,
				     u64 *cycles, u64 *after)
{
	struct kprof_edu *ed = kprof_device_priv(kd);

	*before = ktime_get_ns();
	if (!kprof_edu_alive(ed))
		return -ENODEV;
	*cycles = ktime_get_ns();
	*after = ktime_get_ns();
	return 0;
}

const struct kprof_backend_ops kprof_edu_ops = {
	.capture_start		= kprof_edu_capture_start,
	.capture_stop		= kprof_edu_capture_stop,
	.capture_pause		= kprof_edu_capture_pause,
	.dma_submit		= kprof_edu_dma_submit,
	.dma_poll		= kprof_edu_dma_poll,
	.get_clock		= kprof_edu_get_clock,
	.set_clock		= kprof_edu_set_clock,
	.cross_timestamp	= kprof_edu_cross_timestamp,
	.dma_flush		= kprof_edu_dma_flush,
};

int kprof_edu_engine_init(struct kprof_edu *ed)
{
	spin_lock_init(&ed->lock);
	init_waitqueue_head(&ed->idle_wq);
	mutex_init(&ed->op_lock);
	init_completion(&ed->fact_done);
	/* The device reads the staged records from here (RAM -> edu). */
	ed->stage = dma_alloc_coherent(&ed->pdev->dev, EDU_BUF_SIZE,
				       &ed->stage_dma, GFP_KERNEL);
	return ed->stage ? 0 : -ENOMEM;
}

/* After kprof_device_unregister() and free_irq(): nothing uses it. */
void kprof_edu_engine_exit(struct kprof_edu *ed)
{
	dma_free_coherent(&ed->pdev->dev, EDU_BUF_SIZE, ed->stage,
			  ed->stage_dma);
	ed->stage = NULL;
}
