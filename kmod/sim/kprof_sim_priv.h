/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the simulated accelerator (docs/sim.md describes the model).
 *
 * Locking, and the contexts each lock is taken in:
 *  kprof_sim_devs_lock (mutex, kprof_sim_main.c): device list; sysfs stores and
 *	module init/exit only.
 *  exec_mutex: held by the exec thread while it runs one step (dispatch,
 *	finish, storm chunk) and by capture_start/stop to flip the capture
 *	state. Process context only. Taken before queue_lock/truth_lock.
 *  engine_mutex: serialises the DMA engine (work item, or the exec
 *	thread running a pass itself when an L1 ring reaches its watermark)
 *	with the final drain in capture_stop. Process context only. Taken
 *	inside exec_mutex (exec thread, capture_start) or alone.
 *  queue_lock (spinlock): command queue, seq numbers, dead flag; vendor
 *	ioctls and the exec thread (process context).
 *  truth_lock (spinlock): ground-truth history; exec thread and debugfs.
 *  lost_lock (spinlock, irqsave): per-RISC overflow bookkeeping shared by
 *	the producer (exec thread) and the engine.
 *  dma_lock (spinlock, irqsave): the one descriptor; dma_submit/dma_poll
 *	may be called in any context, including hard irq.
 *  clk.lock (spinlock, irqsave): core clock and reference timer state;
 *	get_clock/set_clock/cross_timestamp, the DVFS work, the exec thread.
 * The L1 rings and the record FIFO are single-producer (exec thread)
 * single-consumer (engine, under engine_mutex) rings with acquire/release
 * indices, so marker writes take no lock. kprof_* core callbacks are never
 * called with any of these spinlocks held.
 *
 * Order: kprof_sim_devs_lock -> (core) kd->lock -> exec_mutex ->
 * engine_mutex -> (core) prod_lock -> dma_lock. The core holds kd->lock
 * around capture_start/stop; the engine calls kprof_dma_complete() under
 * engine_mutex, and the core may call dma_submit/dma_flush from inside it
 * under prod_lock. The kick and idle hrtimers (softirq) only queue the
 * engine work and take no lock.
 */
#ifndef _KPROF_SIM_PRIV_H
#define _KPROF_SIM_PRIV_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/kprof.h>
#include <uapi/linux/kprof_sim.h>

#include "../kprof_backend.h"

#define KPROF_SIM_MAX_CORES	256
#define KPROF_SIM_QUEUE_LEN	1024		/* launched, not dispatched */
#define KPROF_SIM_TRUTH_LEN	65536		/* ops of history kept */
#define KPROF_SIM_FIFO_MIN	(64U << 10)	/* OP/COUNTERS record bytes */
#define KPROF_SIM_FIFO_MAX	(16U << 20)
#define KPROF_SIM_NUM_COUNTERS	8
#define KPROF_SIM_MAX_ZONES	8

/* Counter indices of the PMU block. */
enum {
	KPROF_SIM_CTR_BUSY,
	KPROF_SIM_CTR_STALL,
	KPROF_SIM_CTR_INSNS,
	KPROF_SIM_CTR_FLOPS,
	KPROF_SIM_CTR_BYTES_RD,
	KPROF_SIM_CTR_BYTES_WR,
	KPROF_SIM_CTR_NOC_PKTS,
	KPROF_SIM_CTR_L1_CONFLICTS,
};

/* Module parameters (kprof_sim_main.c). */
extern unsigned int kprof_sim_param_l1_entries;
extern int kprof_sim_param_drift_ppm;
extern unsigned int kprof_sim_param_jitter_ns;

/* An op launched through the vendor device, waiting in the queue. */
struct kprof_sim_op {
	char name[KPROF_SIM_NAME_LEN];
	u64 seq;
	u64 launch_ns;			/* CLOCK_MONOTONIC at LAUNCH */
	u64 flops;			/* per core */
	u64 bytes;			/* per core */
	u32 first_core;
	u32 num_cores;
	u32 num_zones;
};

/* Snapshot of the reference timer mapping. */
struct kprof_sim_tref {
	u64 base_ns;
	u64 base_cycles;
	s32 drift_ppm;
};

/* Everything the cost model decided about one dispatched op. */
struct kprof_sim_plan {
	struct kprof_sim_op op;
	u64 start_ns;
	u64 end_ns;			/* last FW_END of any core */
	u32 mhz;			/* core clock at dispatch */
	u32 noise_ppm;			/* per-op run-to-run variation */
	struct kprof_sim_tref ref;	/* timer mapping at dispatch */
	bool op_emitted;		/* its OP record is in the FIFO */
};

/* Times of one RISC for one op, host ns. */
struct kprof_sim_risc_times {
	u64 fw_start, kernel_start, kernel_end, fw_end;
};

/* One core's share of an op, host ns, after skew and noise. */
struct kprof_sim_core_model {
	u64 compute_ns, mem_ns, kernel_ns, pre_ns, post_ns;
	u32 scale_ppm;
};

/* One line of ground truth. */
struct kprof_sim_truth {
	u64 seq;
	char name[KPROF_SIM_NAME_LEN];
	u32 first_core;
	u32 num_cores;
	u32 mhz;
	u32 pad;
	u64 launch_ns, start_ns, end_ns;
	u64 fw_start, fw_end, kernel_start, kernel_end;	/* ref cycles */
};

/* One RISC's L1 marker ring; storage is in kprof_sim_dev.l1_mem. */
struct kprof_sim_l1 {
	u32 head;			/* producer, free-running */
	u32 tail;			/* consumer, free-running */
	/* under lost_lock: overflow not yet reported as LOST */
	u32 lost;
	u64 lost_first_seq;
	u64 lost_last_seq;
	u64 dropped_total;		/* ground truth, whole lifetime */
};

struct kprof_sim_clock {
	spinlock_t lock;		/* everything in this struct */
	u32 mhz;
	bool locked;
	u32 heat;			/* 0..100, rises under sustained load */
	/* busy time: all ops before cur, plus the current op's part */
	u64 busy_done_ns;
	u64 busy_start_ns, busy_end_ns;	/* current (last dispatched) op */
	u64 busy_last;			/* busy total at the last DVFS step */
	u64 tick_last_ns;
	struct kprof_sim_tref ref;
	u32 jitter_ns;
};

struct kprof_sim_stats {
	atomic64_t ops_launched;
	atomic64_t ops_completed;
	atomic64_t markers_written;	/* into L1 */
	atomic64_t markers_dropped;	/* L1 overflow, ground truth */
	atomic64_t markers_drained;	/* L1 -> DMA span */
	atomic64_t storm_markers;
	atomic64_t corrupted;
	atomic64_t fifo_records;
	atomic64_t fifo_dropped;
	atomic64_t dma_descs;
	atomic64_t dma_completions;	/* delivered through kprof_dma_complete */
	atomic64_t dma_irqs_dropped;
	atomic64_t dma_polled;
	atomic64_t dma_bytes;
	atomic64_t discarded_at_stop;
	atomic64_t lost_unreported;	/* overflow never put in a LOST */
	atomic64_t clock_changes;
	atomic64_t engine_passes;	/* engine work runs */
	atomic64_t engine_idle_passes;	/* ran without a descriptor */
	atomic64_t dma_empty_completions; /* 0 bytes: flush or idle */
	atomic64_t engine_max_latency_ns; /* queue_work -> pass */
	atomic64_t kick_max_late_ns;	/* kick timer past its expiry */
	atomic64_t l1_max_fill;		/* most markers one ring held */
	atomic64_t engine_assists;	/* passes run by the producer */
	atomic64_t dma_gap_max_ns;	/* completion -> next submit */
	/* Split of the above: submit from inside the completion or later. */
	atomic64_t dma_gap_inline_max_ns;
	atomic64_t dma_gap_later_max_ns;
	atomic64_t dma_completions_unlent; /* no new span from the completion */
};

struct kprof_sim_dev {
	struct device dev;
	u64 dma_mask;
	u32 id;
	u32 num_cores, num_riscs, grid_x, grid_y;
	u32 l1_entries;			/* power of two */
	struct list_head list;		/* kprof_sim_devs */
	struct kprof_device *kd;
	struct kprof_hw_info info;

	/* command queue (queue_lock) */
	spinlock_t queue_lock;
	struct kprof_sim_op *queue;
	u32 q_head, q_tail;
	u64 launched_seq;
	u64 completed_seq;
	bool dead;
	wait_queue_head_t queue_wq;	/* room in the queue */
	wait_queue_head_t done_wq;	/* completed_seq moved */

	/* execution (exec thread, exec_mutex) */
	struct mutex exec_mutex;
	struct task_struct *exec_thread;
	bool running;
	struct kprof_sim_plan cur;
	u64 prev_end_ns;
	u64 storm_rate;			/* markers/s, 0 = off */
	u64 storm_start_ns;
	u64 storm_done;			/* markers generated since storm_start */
	u32 storm_pos;

	/* capture state: written under exec_mutex, read by the producer */
	bool capturing;
	bool paused;
	u64 counter_mask;

	/* L1 rings */
	struct kprof_sim_l1 *l1;
	struct kprof_rec_marker *l1_mem;
	u32 *l1_snap;			/* engine: ring heads for this pass */
	spinlock_t lost_lock;		/* kprof_sim_l1.lost*, fifo_lost* */

	/* OP/COUNTERS record FIFO, same SPSC scheme as L1 */
	u8 *fifo;
	u32 fifo_size;			/* power of two */
	u32 fifo_head, fifo_tail;
	u32 fifo_lost;			/* records, under lost_lock */
	u64 fifo_lost_first, fifo_lost_last;

	/* DMA engine */
	struct mutex engine_mutex;
	spinlock_t dma_lock;		/* dma_have, dma_done, dma_desc, dma_kd, dma_res */
	bool dma_have;			/* a descriptor is owned by the engine */
	bool dma_done;			/* filled, completion not delivered */
	struct kprof_dma_desc dma_desc;
	/*
	 * The core's device that submitted dma_desc: completions go there.
	 * Not sd->kd, which is set only after kprof_device_register()
	 * returns, while the node is already open to a capture.
	 */
	struct kprof_device *dma_kd;
	struct kprof_dma_result dma_res;
	struct work_struct engine_work;
	u64 dma_submit_ns;
	u64 dma_gone_ns;		/* last completion, 0 once resubmitted */
	/* Task delivering a completion: tells an inline resubmit apart. */
	struct task_struct *completing;
	bool dma_flush_req;		/* core wants the span back */
	struct hrtimer kick_timer;
	struct hrtimer idle_timer;	/* retires an empty descriptor */
	atomic_t kick_armed;
	atomic64_t kick_ns;		/* first kick not yet served, 0 if none */
	u32 rr;				/* round-robin start ring */

	/* PMU */
	struct kprof_counter_block *pmu;
	size_t pmu_size;

	/* clock */
	struct kprof_sim_clock clk;
	struct delayed_work dvfs_work;
	bool dvfs_stop;

	/* ground truth */
	spinlock_t truth_lock;
	struct kprof_sim_truth *truth;
	u64 truth_count;		/* entries ever written since reset */

	/* faults */
	atomic_t fault_corrupt;
	bool fault_dma_stall;
	atomic_t fault_drop_irq;

	struct kprof_sim_stats stats;

	struct miscdevice misc;
	char misc_name[24];
	struct dentry *dbg;
};

static inline struct kprof_sim_dev *to_kprof_sim_dev(struct device *dev)
{
	return container_of(dev, struct kprof_sim_dev, dev);
}

/* kprof_sim_clock.c */
void kprof_sim_clock_init(struct kprof_sim_dev *sd);
void kprof_sim_clock_start(struct kprof_sim_dev *sd);
void kprof_sim_clock_stop(struct kprof_sim_dev *sd);
void kprof_sim_tref_snapshot(struct kprof_sim_dev *sd,
			     struct kprof_sim_tref *ref);
u64 kprof_sim_ns_to_cycles(const struct kprof_sim_tref *ref, u64 ns);
u32 kprof_sim_clock_mhz(struct kprof_sim_dev *sd);
void kprof_sim_clock_op_start(struct kprof_sim_dev *sd, u64 start, u64 end);
void kprof_sim_set_drift(struct kprof_sim_dev *sd, s32 ppm);
s32 kprof_sim_get_drift(struct kprof_sim_dev *sd);
void kprof_sim_get_clock(struct kprof_device *kd, struct kprof_hw_clock *clk);
int kprof_sim_set_clock(struct kprof_device *kd, bool locked, u32 mhz);
int kprof_sim_cross_timestamp(struct kprof_device *kd, u64 *host_before_ns,
			      u64 *device_cycles, u64 *host_after_ns);

/* kprof_sim_exec.c */
int kprof_sim_exec_init(struct kprof_sim_dev *sd);
void kprof_sim_exec_stop(struct kprof_sim_dev *sd);
int kprof_sim_enqueue(struct kprof_sim_dev *sd, struct kprof_sim_op *op);
int kprof_sim_wait(struct kprof_sim_dev *sd, bool all, u64 seq,
		   u64 timeout_ns, u64 *completed);
void kprof_sim_kill(struct kprof_sim_dev *sd);
void kprof_sim_set_storm(struct kprof_sim_dev *sd, u64 rate);
void kprof_sim_core_model(const struct kprof_sim_plan *p, u32 core,
			  struct kprof_sim_core_model *cm);

/* kprof_sim_l1.c */
int kprof_sim_l1_init(struct kprof_sim_dev *sd);
void kprof_sim_l1_free(struct kprof_sim_dev *sd);
size_t kprof_sim_l1_size(const struct kprof_sim_dev *sd);
void kprof_sim_l1_put(struct kprof_sim_dev *sd, u32 ring,
		      struct kprof_rec_marker *m, u32 n, u64 op_seq);
void kprof_sim_l1_put2(struct kprof_sim_dev *sd, u32 ring,
		       const struct kprof_rec_marker *even,
		       const struct kprof_rec_marker *odd, u32 n);
void kprof_sim_fifo_put(struct kprof_sim_dev *sd, const void *rec, u32 size,
			u64 op_seq);
void kprof_sim_engine_kick(struct kprof_sim_dev *sd, bool now);
void kprof_sim_engine_cancel(struct kprof_sim_dev *sd);
int kprof_sim_capture_start(struct kprof_device *kd, u64 counter_mask);
void kprof_sim_capture_stop(struct kprof_device *kd);
void kprof_sim_capture_pause(struct kprof_device *kd, bool paused);
int kprof_sim_dma_submit(struct kprof_device *kd,
			 const struct kprof_dma_desc *desc);
bool kprof_sim_dma_poll(struct kprof_device *kd, struct kprof_dma_result *res);
void kprof_sim_dma_flush(struct kprof_device *kd);

/* kprof_sim_pmu.c */
extern const struct kprof_counter_desc kprof_sim_counter_descs[];
int kprof_sim_pmu_init(struct kprof_sim_dev *sd);
void kprof_sim_pmu_free(struct kprof_sim_dev *sd);
void kprof_sim_pmu_op(struct kprof_sim_dev *sd, const struct kprof_sim_plan *p,
		      u64 counter_mask, bool emit);
int kprof_sim_mmap_counters(struct kprof_device *kd,
			    struct vm_area_struct *vma);

/* kprof_sim_vendor.c */
int kprof_sim_vendor_init(struct kprof_sim_dev *sd);
void kprof_sim_vendor_exit(struct kprof_sim_dev *sd);

/* kprof_sim_debugfs.c */
void kprof_sim_debugfs_init_root(void);
void kprof_sim_debugfs_exit_root(void);
void kprof_sim_debugfs_init(struct kprof_sim_dev *sd);
void kprof_sim_debugfs_exit(struct kprof_sim_dev *sd);
void kprof_sim_truth_add(struct kprof_sim_dev *sd,
			 const struct kprof_sim_truth *t);

#endif /* _KPROF_SIM_PRIV_H */
