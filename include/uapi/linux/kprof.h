/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kprof: accelerator profiling capture interface (/dev/kprofN).
 *
 * Rules for every struct here: explicit sizes, naturally aligned members,
 * no implicit padding, reserved fields that must be zero on input and are
 * zero on output. Structs passed by ioctl start with a __u32 size that the
 * caller sets to sizeof() of its own copy, so that the struct can grow.
 */
#ifndef _UAPI_LINUX_KPROF_H
#define _UAPI_LINUX_KPROF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KPROF_UAPI_VERSION	1

#define KPROF_NAME_LEN		32
#define KPROF_COMM_LEN		16
#define KPROF_MAX_COUNTERS	32
#define KPROF_MAX_RISCS		8

/* ------------------------------------------------------------------ */
/* Device information                                                  */
/* ------------------------------------------------------------------ */

/* kprof_device_info.clock_flags and kprof_clock_state.flags */
#define KPROF_CLOCK_LOCKED	(1U << 0)	/* frequency pinned */
#define KPROF_CLOCK_SAVED	(1U << 1)	/* a pre-lock state is saved */

struct kprof_device_info {
	__u32 size;			/* in: sizeof(struct kprof_device_info) */
	__u32 version;			/* out: KPROF_UAPI_VERSION */
	__u32 device_id;		/* N of /dev/kprofN */
	__u32 num_cores;
	__u32 grid_x;			/* cores are grid_x * grid_y */
	__u32 grid_y;
	__u32 riscs_per_core;
	__u32 num_counters;
	__u64 ref_clock_hz;		/* nominal marker timestamp rate */
	__u32 clock_mhz;		/* current core clock */
	__u32 clock_min_mhz;
	__u32 clock_base_mhz;
	__u32 clock_max_mhz;
	__u32 clock_flags;		/* KPROF_CLOCK_* */
	__s32 capture_pid;		/* holder's tgid, 0 when idle */
	char capture_comm[KPROF_COMM_LEN];
	__u64 markers_dropped;		/* device lifetime total */
	__u32 l1_ring_entries;		/* markers per RISC L1 ring */
	__u32 counter_block_size;	/* bytes mappable at KPROF_MMAP_COUNTERS */
	char backend[KPROF_NAME_LEN];	/* "sim", "pci", ... */
	char name[KPROF_NAME_LEN];	/* device name, e.g. "kprof_sim0" */
	char risc_names[KPROF_MAX_RISCS][8];	/* "BRISC", "NCRISC", ... */
	__u64 reserved[8];
};

struct kprof_counter_desc {
	char name[KPROF_NAME_LEN];	/* "busy_cycles", "bytes_read", ... */
	char unit[16];			/* "cycles", "bytes", "flops", ... */
};

struct kprof_counter_info {
	__u32 size;			/* in: sizeof(struct kprof_counter_info) */
	__u32 num_counters;		/* out */
	struct kprof_counter_desc desc[KPROF_MAX_COUNTERS];
	__u64 reserved[4];
};

/* ------------------------------------------------------------------ */
/* Capture                                                             */
/* ------------------------------------------------------------------ */

/* kprof_capture_params.flags */
#define KPROF_CAPTURE_PAUSED	(1U << 0)	/* start paused; RESUME to run */
#define KPROF_CAPTURE_FLAGS_ALL	(KPROF_CAPTURE_PAUSED)

#define KPROF_RING_SIZE_DEFAULT	(32U << 20)
#define KPROF_RING_SIZE_MIN	(64U << 10)
#define KPROF_RING_SIZE_MAX	(256U << 20)

struct kprof_capture_params {
	__u32 size;			/* sizeof(struct kprof_capture_params) */
	__u32 flags;			/* KPROF_CAPTURE_* */
	__u32 ring_size;		/* bytes, power of two; 0 = default */
	__u32 sync_period_ms;		/* time-sync sample period; 0 = 100 */
	__u64 counter_mask;		/* bit i selects counter i; 0 = all */
	__u64 reserved[4];
};

/*
 * The capture ring is mapped read-only. Producer and consumer positions are
 * free-running byte counts; the data offset is pos & (data_size - 1).
 * The consumer publishes its position with KPROF_IOC_RING_CONSUME (or by
 * read(), which consumes what it returns).
 */
struct kprof_ring_ctrl {
	__u64 head;			/* producer position (bytes) */
	__u64 tail;			/* consumer position (bytes) */
	__u32 data_size;		/* ring data bytes (power of two) */
	__u32 data_offset;		/* offset of data from ring mapping */
	__u64 lost_markers;		/* total markers reported in LOST records */
	__u64 lost_records;		/* kernel records dropped: ring full */
	__u64 records;			/* records produced */
	__u32 state;			/* KPROF_STATE_* */
	__u32 reserved0;
	__u64 reserved[8];
};

/* kprof_ring_ctrl.state */
#define KPROF_STATE_RUNNING	1
#define KPROF_STATE_PAUSED	2
#define KPROF_STATE_STOPPED	3
#define KPROF_STATE_GONE	4	/* device removed */

/*
 * mmap offsets on a /dev/kprofN fd that holds the capture:
 *  KPROF_MMAP_RING: one page of struct kprof_ring_ctrl, then data_size bytes
 *                   of ring data (mapping length PAGE_SIZE + data_size).
 *  KPROF_MMAP_COUNTERS: struct kprof_counter_block, read-only.
 * Both mappings refuse PROT_WRITE and offsets or lengths out of range.
 */
#define KPROF_MMAP_RING		0x0ULL
#define KPROF_MMAP_COUNTERS	0x40000000ULL

/* Live PMU counter block: values[core * num_counters + counter]. */
struct kprof_counter_block {
	__u32 num_cores;
	__u32 num_counters;
	__u64 seq;			/* bumped on every update */
	__u64 values[];
};

/* ------------------------------------------------------------------ */
/* Records in the capture stream                                       */
/* ------------------------------------------------------------------ */

/*
 * Every record starts with this header; size is the whole record in bytes,
 * a multiple of 8. Readers skip types they do not know by size.
 */
struct kprof_rec_hdr {
	__u16 type;			/* KPROF_REC_* */
	__u16 size;
	__u32 flags;			/* KPROF_RECF_* */
};

#define KPROF_REC_PAD		0	/* filler to a DMA chunk end; skip hdr.size */
#define KPROF_REC_MARKER	1	/* struct kprof_rec_marker */
#define KPROF_REC_LOST		2	/* struct kprof_rec_lost */
#define KPROF_REC_OP		3	/* struct kprof_rec_op */
#define KPROF_REC_COUNTERS	4	/* struct kprof_rec_counters */
#define KPROF_REC_SYNC		5	/* struct kprof_rec_sync */
#define KPROF_REC_CLOCK		6	/* struct kprof_rec_clock */
#define KPROF_REC_STATE		7	/* struct kprof_rec_state */
#define KPROF_REC_MAX		7

/* kprof_rec_hdr.flags */
#define KPROF_RECF_CORRUPT	(1U << 0)	/* device flagged bad checksum */

/* kprof_rec_marker.kind */
#define KPROF_MARK_FW_START	1
#define KPROF_MARK_FW_END	2
#define KPROF_MARK_KERNEL_START	3
#define KPROF_MARK_KERNEL_END	4
#define KPROF_MARK_ZONE_START	5
#define KPROF_MARK_ZONE_END	6

/* One timestamped marker written by a RISC into its L1 ring. */
struct kprof_rec_marker {
	struct kprof_rec_hdr hdr;
	__u16 core;			/* core index, 0 .. num_cores-1 */
	__u8 risc;			/* RISC index within the core */
	__u8 kind;			/* KPROF_MARK_* */
	__u32 op_seq;			/* op sequence (launch seq), low 32 bits */
	__u64 timestamp;		/* reference timer cycles */
	__u32 zone_id;			/* custom zone id for ZONE_* */
	__u32 reserved;
};

/* Markers a RISC could not deliver (L1 ring overflowed). */
struct kprof_rec_lost {
	struct kprof_rec_hdr hdr;
	__u16 core;
	__u8 risc;
	__u8 reserved0;
	__u32 count;			/* markers lost on this RISC */
	__u64 first_op_seq;		/* op of the first lost marker */
	__u64 last_op_seq;		/* op of the last lost marker */
	__u64 timestamp;		/* ref cycles when loss was detected */
};

/*
 * A LOST record whose core is KPROF_LOST_CORE_RECORDS and risc
 * KPROF_LOST_RISC_RECORDS reports device records (OP, COUNTERS) that the
 * device's own record queue dropped: count is records, not markers, and
 * the op range is that of the dropped records.
 */
#define KPROF_LOST_CORE_RECORDS	0xFFFF
#define KPROF_LOST_RISC_RECORDS	0xFF

/* Device command queue dispatched an op: names it and its core range. */
struct kprof_rec_op {
	struct kprof_rec_hdr hdr;
	__u64 op_seq;
	__u64 timestamp;		/* ref cycles at dispatch */
	__u32 first_core;
	__u32 num_cores;
	__u32 clock_mhz;		/* core clock the op ran at */
	__u32 reserved;
	char name[KPROF_NAME_LEN];
};

/* Per-core PMU counter deltas for one op: values[popcount(mask)]. */
struct kprof_rec_counters {
	struct kprof_rec_hdr hdr;
	__u64 op_seq;
	__u64 counter_mask;		/* which counters follow, in bit order */
	__u32 core;
	__u32 reserved;
	__u64 values[];
};

/* Cross-timestamp triple (PTP_SYS_OFFSET_EXTENDED style). */
struct kprof_rec_sync {
	struct kprof_rec_hdr hdr;
	__u64 host_before_ns;		/* CLOCK_MONOTONIC */
	__u64 device_cycles;		/* reference timer */
	__u64 host_after_ns;		/* CLOCK_MONOTONIC */
};

/* Core clock changed (DVFS step, lock, reset). */
struct kprof_rec_clock {
	struct kprof_rec_hdr hdr;
	__u64 host_ns;			/* CLOCK_MONOTONIC */
	__u64 device_cycles;
	__u32 mhz;
	__u32 flags;			/* KPROF_CLOCK_* after the change */
};

/* kprof_rec_state.state uses KPROF_STATE_*; reason: */
#define KPROF_REASON_START	1
#define KPROF_REASON_PAUSE	2
#define KPROF_REASON_RESUME	3
#define KPROF_REASON_STOP	4
#define KPROF_REASON_REMOVED	5	/* device removed mid-capture */
#define KPROF_REASON_DMA_TIMEOUT 6	/* DMA completion never came */

struct kprof_rec_state {
	struct kprof_rec_hdr hdr;
	__u64 host_ns;
	__u32 state;
	__u32 reason;
};

/* ------------------------------------------------------------------ */
/* Clock control                                                       */
/* ------------------------------------------------------------------ */

/* kprof_clock_req.op */
#define KPROF_CLOCK_OP_LOCK_MHZ		1	/* lock at mhz */
#define KPROF_CLOCK_OP_LOCK_BASE	2	/* lock at base frequency */
#define KPROF_CLOCK_OP_LOCK_MAX		3	/* lock at max frequency */
#define KPROF_CLOCK_OP_RESET		4	/* restore pre-first-lock state */

struct kprof_clock_req {
	__u32 size;
	__u32 op;			/* KPROF_CLOCK_OP_* */
	__u32 mhz;			/* for LOCK_MHZ */
	__u32 reserved0;
	__u64 reserved[2];
};

struct kprof_clock_state {
	__u32 size;
	__u32 mhz;			/* current */
	__u32 flags;			/* KPROF_CLOCK_* */
	__u32 locked_mhz;		/* valid when LOCKED */
	__u32 saved_flags;		/* pre-first-lock state, when SAVED */
	__u32 saved_mhz;
	__s32 locked_by_pid;		/* who took the first lock */
	__u32 reserved0;
	__u64 reserved[2];
};

/* On-demand cross timestamp, same triple as KPROF_REC_SYNC. */
struct kprof_sync_sample {
	__u32 size;
	__u32 reserved0;
	__u64 host_before_ns;
	__u64 device_cycles;
	__u64 host_after_ns;
	__u64 reserved[2];
};

/* ------------------------------------------------------------------ */
/* ioctls on /dev/kprofN                                               */
/* ------------------------------------------------------------------ */

/*
 * 0xBB, sequence numbers 0x00-0x3F: free in mainline's
 * Documentation/userspace-api/ioctl/ioctl-number.rst (0xB7 is nsfs and
 * remoteproc, 0xB8 mshv and mrvl_cn10k_dpi, 0xBA liveupdate); kprof_sim.h
 * uses 0x80-0x8F of it.
 */
#define KPROF_IOC_MAGIC		0xBB

#define KPROF_IOC_INFO		_IOWR(KPROF_IOC_MAGIC, 0x00, struct kprof_device_info)
#define KPROF_IOC_COUNTERS	_IOWR(KPROF_IOC_MAGIC, 0x01, struct kprof_counter_info)
#define KPROF_IOC_CAPTURE_START	_IOW(KPROF_IOC_MAGIC, 0x10, struct kprof_capture_params)
#define KPROF_IOC_CAPTURE_STOP	_IO(KPROF_IOC_MAGIC, 0x11)
#define KPROF_IOC_CAPTURE_PAUSE	_IO(KPROF_IOC_MAGIC, 0x12)
#define KPROF_IOC_CAPTURE_RESUME _IO(KPROF_IOC_MAGIC, 0x13)
/* arg: pointer to __u64 new consumer position (<= head, >= tail) */
#define KPROF_IOC_RING_CONSUME	_IOW(KPROF_IOC_MAGIC, 0x14, __u64)
#define KPROF_IOC_CLOCK_GET	_IOWR(KPROF_IOC_MAGIC, 0x20, struct kprof_clock_state)
#define KPROF_IOC_CLOCK_SET	_IOW(KPROF_IOC_MAGIC, 0x21, struct kprof_clock_req)
#define KPROF_IOC_SYNC_SAMPLE	_IOWR(KPROF_IOC_MAGIC, 0x22, struct kprof_sync_sample)

#endif /* _UAPI_LINUX_KPROF_H */
