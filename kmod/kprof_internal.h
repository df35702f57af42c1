/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof core: state shared between the core's files. Backends only see
 * kprof_backend.h.
 *
 * Locking, outermost first:
 *   kprof_devs_lock (global mutex): minor -> device lookup at open.
 *   mmap_lock (the mm's) -> kd->mmap_sem (rwsem): mmap and ring faults
 *     against unregister; nothing else is taken inside it.
 *   kd->lock (mutex): ioctls, capture life cycle, clock, ops calls that
 *     may sleep, the dead flag.
 *   cap->read_lock (mutex): one consumer at a time (read, RING_CONSUME).
 *   kd->prod_lock (spinlock, IRQ-safe): kd->cap, ring head/tail, the DMA
 *     descriptor in flight, the core record queue. Taken from the
 *     backend's completion context; dma_submit/dma_poll run under it.
 */
#ifndef _KPROF_INTERNAL_H
#define _KPROF_INTERNAL_H

#include <linux/device.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/fs.h>
#include <linux/rwsem.h>
#include "kprof_backend.h"
#include "kprof_compat.h"

#define KPROF_RISC_NAME_LEN	8

/* Smallest span worth lending the backend; less ring tail is padded. */
#define KPROF_MIN_SPAN		4096U
/*
 * Core records (SYNC, CLOCK, STATE) waiting for the ring, e.g. while the
 * DMA engine stalls. The last slots are kept for STATE records, so that a
 * flood of CLOCK steps cannot hide a state change.
 */
#define KPROF_CORE_QUEUE_LEN	128
#define KPROF_CORE_QUEUE_STATE_RESERVE	16
#define KPROF_CORE_REC_MAX	40
#define KPROF_DMA_WATCHDOG_MS	50
#define KPROF_DMA_TIMEOUT_MS	1000
#define KPROF_SYNC_PERIOD_DEFAULT_MS	100
#define KPROF_SYNC_PERIOD_MAX_MS	10000

/*
 * Ring memory; outlives the capture while user space maps it. The page
 * allocator hands out at most MAX_ORDER - 1 contiguous pages, so the data
 * area is a row of equal power-of-two chunks, each mapped for the device
 * with one streaming DMA mapping. Nothing crosses a chunk boundary: spans
 * end there and the core pads the gap.
 */
struct kprof_ring_chunk {
	struct page *page;		/* first of the chunk's order-0 pages */
	void *cpu;
	dma_addr_t dma;
};

struct kprof_ring {
	struct kref ref;
	struct kprof_device *kd;	/* reference held */
	struct list_head node;		/* in kd->rings, under kd->rings_lock */
	/* get_device() held while mapped; NULL once unregister unmapped it */
	struct device *dma_dev;
	struct page *ctrl_page;
	struct kprof_ring_ctrl *ctrl;	/* ctrl_page's kernel address */
	struct user_struct *user;	/* charged (locked_vm); NULL if cached */
	u32 size;			/* data bytes, power of two */
	u64 dirty;			/* data bytes from 0 that may be written */
	u32 chunk_shift;
	u32 nr_chunks;
	struct kprof_ring_chunk chunks[];
};

struct kprof_core_rec {
	u16 size;
	u8 data[KPROF_CORE_REC_MAX] __aligned(8);
};

struct kprof_file;

struct kprof_capture {
	struct kref ref;
	struct kprof_device *kd;
	struct kprof_ring *ring;
	struct kprof_file *holder;	/* valid while active */
	struct mutex read_lock;		/* one consumer at a time */

	/* Under kd->prod_lock. */
	u64 head, tail;
	u64 hwm;			/* end of the furthest span lent */
	u32 state;			/* KPROF_STATE_* */
	bool active;			/* kd->cap == this */
	bool stopping;			/* no new descriptors */
	bool draining;			/* in capture_stop: lend on completion only */
	bool dma_inflight;
	bool dma_timeout_reported;
	bool dma_flush_requested;
	u32 dma_len;
	unsigned long dma_submit_jiffies;
	u32 queue_head, queue_len;
	struct kprof_core_rec queue[KPROF_CORE_QUEUE_LEN];
	bool have_sync;
	u64 sync_host_ns, sync_cycles;

	u32 sync_period_ms;
	struct delayed_work sync_work;
	struct timer_list watchdog;
};

struct kprof_clock_saved {
	bool valid;
	bool locked;
	u32 mhz;
	struct pid *pid;		/* tgid of the first locker, held */
};

struct kprof_device {
	struct kref ref;
	int id;
	/*
	 * Held from register to unregister only: the parent's release code
	 * belongs to the backend module, which may be gone after that.
	 */
	struct device *parent;
	char parent_name[KPROF_NAME_LEN];	/* for INFO, also once gone */
	struct device *dev;		/* class device /dev/kprofN, held */
	const struct kprof_backend_ops *ops;
	void *priv;

	/* Copy of the backend's kprof_hw_info. */
	struct kprof_hw_info hw;
	char backend_name[KPROF_NAME_LEN];
	char risc_names[KPROF_MAX_RISCS][KPROF_RISC_NAME_LEN];
	struct kprof_counter_desc counters[KPROF_MAX_COUNTERS];

	struct mutex lock;		/* see the top of this file */
	bool dead;			/* unregistered; under lock */
	struct kprof_clock_saved clk;	/* under lock */
	/*
	 * Under lock; NULL when idle. struct pid, not a number: user space
	 * sees it in its own pid namespace (pid_vnr()), 0 if not there.
	 */
	struct pid *holder;
	char holder_comm[TASK_COMM_LEN];

	/*
	 * mmap and ring faults run under mmap_lock, so they must not take
	 * kd->lock. Every open file's f_mapping is inode->i_mapping, so that
	 * unregister can zap every user mapping of the device at once.
	 */
	struct rw_semaphore mmap_sem;
	bool mmap_dead;			/* under mmap_sem */
	struct inode *inode;		/* kprof_inode.c */
	struct mutex rings_lock;	/* protects rings */
	struct list_head rings;		/* every ring not yet freed */

	spinlock_t prod_lock;		/* see the top of this file */
	struct kprof_capture *cap;	/* active capture, under prod_lock */
	wait_queue_head_t read_wq;	/* readers and pollers of any fd */
	u64 markers_dropped;		/* under prod_lock */
	u64 dma_missed_irqs;
	u64 dma_timeouts;
	u64 dma_submit_errors;

	/*
	 * The last capture's ring, kept for the next one: allocating
	 * megabytes of contiguous DMA memory can take tens of ms.
	 */
	spinlock_t cache_lock;		/* protects the two below */
	struct kprof_ring *ring_cache;
	bool cache_closed;		/* unregistered: cache nothing */
};

/* Per open file. */
struct kprof_file {
	struct kprof_device *kd;
	spinlock_t lock;		/* protects cap */
	struct kprof_capture *cap;	/* started here; may be stopped */
};

/* kprof_main.c */
extern struct class *kprof_class;
extern dev_t kprof_devt;

/* kprof_core.c */
int kprof_core_init(void);
void kprof_core_exit(void);
void kprof_device_put(struct kprof_device *kd);
int kprof_lock_live(struct kprof_device *kd);

/* kprof_inode.c */
struct inode *kprof_inode_new(void);
void kprof_inode_free(struct inode *inode);

/* kprof_uaccess.c */
int kprof_copy_struct_in(void *dst, size_t ksize, size_t min,
			 void __user *uptr, u32 *usize);
int kprof_copy_struct_out(void __user *uptr, void *src, size_t ksize,
			  u32 usize);
bool kprof_mem_is_zero(const void *p, size_t len);

/* kprof_ioctl.c */
long kprof_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int kprof_may_profile(void);

/* kprof_ring.c */
struct kprof_ring *kprof_ring_get(struct kprof_device *kd, u32 size);
void kprof_ring_stash(struct kprof_device *kd, struct kprof_ring *ring);
void kprof_ring_cache_close(struct kprof_device *kd);
void kprof_ring_unmap_all(struct kprof_device *kd);
void kprof_ring_put(struct kprof_ring *ring);
int kprof_ring_mmap(struct kprof_ring *ring, struct vm_area_struct *vma);
void kprof_ring_sync_for_device(struct kprof_ring *ring, u64 pos, u32 len);
void kprof_ring_sync_for_cpu(struct kprof_ring *ring, u64 pos, u32 len);

/* kprof_debugfs.c: ring pages (debugfs "pages", "pages_cached"), knobs. */
void kprof_pages_add(unsigned long n);
void kprof_pages_sub(unsigned long n);
void kprof_pages_cached_add(long n);
int kprof_test_register_step(void);
void kprof_test_info_step(void);
bool kprof_test_bad_record_step(void);
void kprof_debugfs_init(void);
void kprof_debugfs_exit(void);

static inline u32 kprof_ring_off_in_chunk(const struct kprof_ring *ring,
					  u64 pos)
{
	return pos & ((1U << ring->chunk_shift) - 1);
}

static inline u32 kprof_ring_chunk_idx(const struct kprof_ring *ring, u64 pos)
{
	return (pos & (ring->size - 1)) >> ring->chunk_shift;
}

static inline void *kprof_ring_ptr(const struct kprof_ring *ring, u64 pos)
{
	return ring->chunks[kprof_ring_chunk_idx(ring, pos)].cpu +
	       kprof_ring_off_in_chunk(ring, pos);
}

static inline dma_addr_t kprof_ring_dma(const struct kprof_ring *ring,
					u64 pos)
{
	return ring->chunks[kprof_ring_chunk_idx(ring, pos)].dma +
	       kprof_ring_off_in_chunk(ring, pos);
}

/* Bytes from pos to the end of its chunk: the most one record may use. */
static inline u32 kprof_ring_room(const struct kprof_ring *ring, u64 pos)
{
	return (1U << ring->chunk_shift) - kprof_ring_off_in_chunk(ring, pos);
}

/* kprof_capture.c */
int kprof_capture_start(struct kprof_file *kf,
			const struct kprof_capture_params *p);
void kprof_capture_stop_locked(struct kprof_device *kd, u32 state,
			       u32 reason);
int kprof_capture_stop(struct kprof_file *kf);
int kprof_capture_set_paused(struct kprof_file *kf, bool paused);
int kprof_capture_consume(struct kprof_file *kf, u64 pos);
struct kprof_capture *kprof_file_get_cap(struct kprof_file *kf);
void kprof_capture_put(struct kprof_capture *cap);
void kprof_capture_queue_record(struct kprof_capture *cap, const void *rec,
				u16 size);
bool kprof_capture_readable(struct kprof_capture *cap, bool *active);
int kprof_capture_advance(struct kprof_capture *cap, u64 pos);
void kprof_capture_positions(struct kprof_capture *cap, u64 *head, u64 *tail);

/* kprof_reader.c */
ssize_t kprof_capture_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos);
__poll_t kprof_capture_poll(struct file *file, struct poll_table_struct *wait);
int kprof_capture_mmap(struct file *file, struct vm_area_struct *vma);

/* kprof_timesync.c */
int kprof_sync_sample(struct kprof_device *kd, struct kprof_rec_sync *rec);
void kprof_timesync_init(struct kprof_capture *cap);
void kprof_timesync_start(struct kprof_capture *cap);
void kprof_timesync_stop(struct kprof_capture *cap);
void kprof_timesync_note(struct kprof_capture *cap,
			 const struct kprof_rec_sync *rec);
u64 kprof_timesync_estimate_cycles(struct kprof_capture *cap, u64 host_ns);
long kprof_ioctl_sync_sample(struct kprof_file *kf, void *arg);

/* kprof_clock.c */
long kprof_ioctl_clock_get(struct kprof_file *kf, void *arg);
long kprof_ioctl_clock_set(struct kprof_file *kf, void *arg);
void kprof_clock_reset_locked(struct kprof_device *kd);
u32 kprof_clock_flags(struct kprof_device *kd, bool locked);

/* kprof_sysfs.c */
extern const struct attribute_group *kprof_dev_groups[];

#endif /* _KPROF_INTERNAL_H */
