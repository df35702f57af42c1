/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Access to a kprof capture device (/dev/kprofN): open, query, clock
 * control, capture control and the mmap'ed capture ring reader.
 *
 * Functions return 0 (or a byte count) on success and -errno on failure;
 * kprof_dev_strerror() turns the common ones into advice for a user.
 */
#ifndef _KPROF_DEV_H
#define _KPROF_DEV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/kprof.h>

#define KPROF_DEV_MAX	64	/* device numbers scanned by kprof_dev_list */

struct kprof_dev {
	int fd;
	int id;
	char path[64];
	/* Ring mapping, valid after kprof_dev_ring_map(). */
	void *ring_map;
	size_t ring_map_len;
	volatile struct kprof_ring_ctrl *ctrl;
	const uint8_t *ring_data;
	uint32_t ring_size;
	/*
	 * Our consumer position. Normally equal to ctrl->tail; kept apart so
	 * that records copied out just before the device went away (consume
	 * fails with ENODEV) are delivered once, not read again.
	 */
	uint64_t pos;
	int gone;			/* consume saw ENODEV: device removed */
	/*
	 * The device was removed and its ring mapping with it (SIGBUS):
	 * the mapping was replaced by a copy of ctrl_snap (state GONE,
	 * nothing pending) and the rest is read with read(2) until EOF.
	 */
	int ring_dead;
	int fd_eof;
	struct kprof_ring_ctrl ctrl_snap;	/* last control page seen */
	/* Counter block mapping, valid after kprof_dev_counters_map(). */
	void *cnt_map;
	size_t cnt_map_len;
	/*
	 * Hands ring space back; NULL = KPROF_IOC_RING_CONSUME. Tests set it
	 * to run the reader on a ring in plain memory.
	 */
	int (*consume)(struct kprof_dev *dev, uint64_t pos);
	/* Reader statistics. */
	uint64_t bytes_read;
	uint64_t records_read;
	uint64_t pad_bytes;
};

/* Directory holding the nodes; $KPROF_DEV_DIR overrides "/dev" for tests. */
const char *kprof_dev_dir(void);

/* Open /dev/kprofN; flags are open(2) flags (O_RDONLY is enough to query). */
int kprof_dev_open(struct kprof_dev *dev, int id, int flags);
void kprof_dev_close(struct kprof_dev *dev);

/*
 * Message for a failed kprof_dev_open(): distinguishes "module not loaded",
 * "no such device" and "permission denied". Writes into buf.
 */
const char *kprof_dev_open_error(int id, int err, char *buf, size_t len);

/* Device numbers present, ascending; returns how many (<= max) or -errno. */
int kprof_dev_list(int *ids, int max);

/* True when the kprof class exists in sysfs (module loaded). */
int kprof_dev_module_loaded(void);

int kprof_dev_info(struct kprof_dev *dev, struct kprof_device_info *info);
int kprof_dev_counter_info(struct kprof_dev *dev, struct kprof_counter_info *ci);
int kprof_dev_clock_get(struct kprof_dev *dev, struct kprof_clock_state *cs);
/* op: KPROF_CLOCK_OP_*; mhz only for KPROF_CLOCK_OP_LOCK_MHZ. */
int kprof_dev_clock_set(struct kprof_dev *dev, uint32_t op, uint32_t mhz);
int kprof_dev_sync_sample(struct kprof_dev *dev, struct kprof_sync_sample *s);

/* Capture control. ring_size 0 = default; flags KPROF_CAPTURE_*. */
int kprof_dev_capture_start(struct kprof_dev *dev, uint32_t flags,
			    uint32_t ring_size, uint64_t counter_mask);
int kprof_dev_capture_stop(struct kprof_dev *dev);
int kprof_dev_capture_pause(struct kprof_dev *dev);
int kprof_dev_capture_resume(struct kprof_dev *dev);

/*
 * Map the capture ring (after capture_start). While it is mapped, a
 * SIGBUS handler (chained to whatever was installed before) catches the
 * device's removal, which ends the mapping: see ring_dead. At most
 * KPROF_DEV_RING_SLOTS rings are mapped at once (-EMFILE beyond).
 */
#define KPROF_DEV_RING_SLOTS	8
int kprof_dev_ring_map(struct kprof_dev *dev);
void kprof_dev_ring_unmap(struct kprof_dev *dev);
/* Bytes produced but not yet consumed. */
uint64_t kprof_dev_ring_pending(const struct kprof_dev *dev);
/* KPROF_STATE_* as published in the control page (0 if not mapped). */
uint32_t kprof_dev_ring_state(const struct kprof_dev *dev);

/*
 * Copy whole records from the ring into buf (up to cap bytes), skipping
 * PAD records, then hand the space back to the kernel with
 * KPROF_IOC_RING_CONSUME. Returns bytes copied (0: ring empty), -ENOSPC if
 * cap cannot hold the next record, -EPROTO on a malformed record header
 * (the ring is then unusable), -ENODEV once the device is gone and
 * everything copied before has been returned. After the device's removal
 * ended the mapping (ring_dead) the records come from read(2) instead.
 */
ssize_t kprof_dev_ring_read(struct kprof_dev *dev, void *buf, size_t cap);

/*
 * Message for CAPTURE_START's EPERM: a ring of ring_size bytes (0 = the
 * default) would take the user past the locked-memory limit for capture
 * rings, RLIMIT_MEMLOCK plus the module's per-user kprof.mlock_kb; says
 * both values and how to raise them. Writes into buf.
 */
const char *kprof_dev_memlock_error(uint32_t ring_size, char *buf, size_t len);

/* Map the live counter block; *blk points into the mapping. */
int kprof_dev_counters_map(struct kprof_dev *dev,
			   const struct kprof_counter_block **blk);
void kprof_dev_counters_unmap(struct kprof_dev *dev);

/* "locked 1000 MHz", "dvfs 1200 MHz": short clock description. */
const char *kprof_dev_clock_str(uint32_t flags, uint32_t mhz, char *buf,
				size_t len);
/* The saved pre-lock state, as kprof_dev_clock_str(), or "none". */
void kprof_dev_clock_saved_str(const struct kprof_clock_state *cs, char *buf,
			       size_t len);
/* Message for a failed clock ioctl. */
const char *kprof_dev_clock_error(int err);

#endif /* _KPROF_DEV_H */
