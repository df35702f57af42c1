/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof_edu.ko: QEMU's "edu" PCI device as a kprof backend, the worked
 * example of docs/backend.md. kprof_edu_pci.c is the PCI driver (probe,
 * remove, BAR, interrupt); kprof_edu_engine.c moves records through the
 * device's DMA engine and implements kprof's backend ops.
 *
 * Locking: ed->lock (irqsave) protects the staging buffer, the DMA state
 * and the capture flags; it is taken under the core's prod_lock (from
 * dma_submit and dma_flush) and never held while calling into the core.
 */
#ifndef _KPROF_EDU_H
#define _KPROF_EDU_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "kprof_backend.h"

/* BAR0 registers (QEMU docs/specs/edu.rst). */
#define EDU_REG_ID		0x00	/* 0xRRrr00ed */
#define EDU_REG_LIVE		0x04	/* reads back the inverse */
#define EDU_REG_FACT		0x08	/* factorial in/out */
#define EDU_REG_STATUS		0x20
#define  EDU_STATUS_BUSY	0x01	/* computing the factorial */
#define  EDU_STATUS_IRQ_FACT	0x80	/* interrupt when it is done */
#define EDU_REG_IRQ_STATUS	0x24
#define EDU_REG_IRQ_RAISE	0x60
#define EDU_REG_IRQ_ACK		0x64
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_CNT		0x90
#define EDU_REG_DMA_CMD		0x98
#define  EDU_DMA_RUN		0x01
#define  EDU_DMA_TO_RAM		0x02	/* device buffer -> host memory */
#define  EDU_DMA_IRQ		0x04

/* Interrupt status bits: the device's, and the one the driver raises. */
#define EDU_IRQ_FACT		0x00000001
#define EDU_IRQ_DMA		0x00000100
#define EDU_IRQ_FLUSH		0x00010000	/* dma_flush doorbell */

/* The device's 4 KiB buffer, as a DMA address on the device side. */
#define EDU_BUF_ADDR		0x40000
#define EDU_BUF_SIZE		4096
/* The device masks DMA addresses to 28 bits (edu's dma_mask default). */
#define EDU_DMA_BITS		28

enum kprof_edu_dma {
	EDU_DMA_IDLE,
	EDU_DMA_STAGE_TO_DEV,	/* host staging buffer -> device buffer */
	EDU_DMA_DEV_TO_RING,	/* device buffer -> kprof's ring span */
};

struct kprof_edu {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct kprof_device *kd;
	struct kprof_hw_info info;

	spinlock_t lock;		/* see the top of this file */
	bool capturing, paused;
	/* Records waiting for the device, in a coherent buffer it reads. */
	void *stage;
	dma_addr_t stage_dma;
	u32 stage_len;
	u64 lost;			/* markers dropped while stage was full */
	bool lost_pending;		/* a LOST record is owed */
	u64 lost_first, lost_last;	/* op range of the dropped markers */
	/* The descriptor the core lent us, and the transfer under way. */
	bool desc_valid;
	struct kprof_dma_desc desc;
	enum kprof_edu_dma dma;
	u32 xfer_bytes, xfer_records;
	u64 xfer_lost;
	bool flush;			/* complete the descriptor soon */
	bool gone;			/* the device stopped answering */
	wait_queue_head_t idle_wq;	/* dma back to IDLE */

	/* Ops: one factorial at a time, timed by the driver. */
	struct mutex op_lock;
	struct completion fact_done;
	u64 op_seq;
	u32 last_result;
};

int kprof_edu_engine_init(struct kprof_edu *ed);
void kprof_edu_engine_exit(struct kprof_edu *ed);
irqreturn_t kprof_edu_irq(int irq, void *data);
int kprof_edu_run_op(struct kprof_edu *ed, u32 n, u32 *result);
extern const struct kprof_backend_ops kprof_edu_ops;

#endif /* _KPROF_EDU_H */
