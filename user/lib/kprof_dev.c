// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /dev/kprofN access: ioctls, capture control and the ring reader.
 * The uAPI rules (size first, reserved zero) are applied here once so that
 * the commands never build an ioctl struct by hand.
 */
#include "kprof_dev.h"
#include "kprof_env.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

const char *kprof_dev_dir(void)
{
	return kprof_env_or("KPROF_DEV_DIR", "/dev");
}

static int sysfs_class_present(void)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/class/kprof",
		 kprof_env_or("KPROF_SYSFS_ROOT", "/sys"));
	return stat(path, &st) == 0;
}

int kprof_dev_module_loaded(void)
{
	int ids[1];

	return sysfs_class_present() || kprof_dev_list(ids, 1) > 0;
}

int kprof_dev_open(struct kprof_dev *dev, int id, int flags)
{
	memset(dev, 0, sizeof(*dev));
	dev->fd = -1;
	dev->id = id;
	if (id < 0)
		return -ENODEV;
	snprintf(dev->path, sizeof(dev->path), "%s/kprof%d", kprof_dev_dir(),
		 id);
	dev->fd = open(dev->path, flags | O_CLOEXEC);
	if (dev->fd < 0)
		return -errno;
	return 0;
}

void kprof_dev_close(struct kprof_dev *dev)
{
	kprof_dev_counters_unmap(dev);
	kprof_dev_ring_unmap(dev);
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

const char *kprof_dev_open_error(int id, int err, char *buf, size_t len)
{
	const char *dir = kprof_dev_dir();

	switch (err) {
	case -ENOENT:
	case -ENODEV:
	case -ENXIO:
		if (!kprof_dev_module_loaded())
			snprintf(buf, len,
				 "%s/kprof* missing and /sys/class/kprof absent: load the module: insmod kprof.ko, then a backend (the simulator: insmod kprof_sim.ko sim_devices=1)",
				 dir);
		else
			snprintf(buf, len,
				 "no %s/kprof%d: kprofctl list shows devices",
				 dir, id);
		break;
	case -EACCES:
	case -EPERM:
		snprintf(buf, len,
			 "cannot open %s/kprof%d: permission denied; join group kprof (udev/99-kprof.rules) or run as root",
			 dir, id);
		break;
	default:
		snprintf(buf, len, "cannot open %s/kprof%d: %s", dir, id,
			 strerror(-err));
	}
	return buf;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int kprof_dev_list(int *ids, int max)
{
	DIR *d = opendir(kprof_dev_dir());
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long v;

		if (strncmp(de->d_name, "kprof", 5) != 0)
			continue;
		/* kprofN only: kprof_simN is the sim's vendor node */
		if (de->d_name[5] < '0' || de->d_name[5] > '9')
			continue;
		v = strtol(de->d_name + 5, &end, 10);
		if (*end || v < 0 || v >= KPROF_DEV_MAX)
			continue;
		if (n < max)
			ids[n++] = (int)v;
	}
	closedir(d);
	qsort(ids, n, sizeof(*ids), cmp_int);
	return n;
}

static int xioctl(struct kprof_dev *dev, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(dev->fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

int kprof_dev_info(struct kprof_dev *dev, struct kprof_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return xioctl(dev, KPROF_IOC_INFO, info);
}

int kprof_dev_counter_info(struct kprof_dev *dev, struct kprof_counter_info *ci)
{
	int r;

	memset(ci, 0, sizeof(*ci));
	ci->size = sizeof(*ci);
	r = xioctl(dev, KPROF_IOC_COUNTERS, ci);
	if (!r && ci->num_counters > KPROF_MAX_COUNTERS)
		return -EPROTO;
	return r;
}

int kprof_dev_clock_get(struct kprof_dev *dev, struct kprof_clock_state *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->size = sizeof(*cs);
	return xioctl(dev, KPROF_IOC_CLOCK_GET, cs);
}

int kprof_dev_clock_set(struct kprof_dev *dev, uint32_t op, uint32_t mhz)
{
	struct kprof_clock_req req;

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.op = op;
	req.mhz = op == KPROF_CLOCK_OP_LOCK_MHZ ? mhz : 0;
	return xioctl(dev, KPROF_IOC_CLOCK_SET, &req);
}

int kprof_dev_sync_sample(struct kprof_dev *dev, struct kprof_sync_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	return xioctl(dev, KPROF_IOC_SYNC_SAMPLE, s);
}

int kprof_dev_capture_start(struct kprof_dev *dev, uint32_t flags,
			    uint32_t ring_size, uint64_t counter_mask)
{
	struct kprof_capture_params p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.flags = flags;
	p.ring_size = ring_size;
	p.counter_mask = counter_mask;
	return xioctl(dev, KPROF_IOC_CAPTURE_START, &p);
}

int kprof_dev_capture_stop(struct kprof_dev *dev)
{
	return xioctl(dev, KPROF_IOC_CAPTURE_STOP, NULL);
}

int kprof_dev_capture_pause(struct kprof_dev *dev)
{
	return xioctl(dev, KPROF_IOC_CAPTURE_PAUSE, NULL);
}

int kprof_dev_capture_resume(struct kprof_dev *dev)
{
	return xioctl(dev, KPROF_IOC_CAPTURE_RESUME, NULL);
}

/*
 * Removing a device ends every mapping of it: the next access raises
 * SIGBUS. The handler puts private anonymous memory in place of the whole
 * ring mapping, holding the last control page seen with state GONE and
 * nothing pending, and returns: the access that faulted then reads that.
 * kprof_dev_ring_read() drains what the kernel still holds with read(2).
 * Only mmap(), mprotect() and memcpy() run in the handler.
 */
static struct kprof_dev *ring_slots[KPROF_DEV_RING_SLOTS];
static struct sigaction ring_prev_bus;
static int ring_handler_on;

static int ring_replace(struct kprof_dev *d)
{
	struct kprof_ring_ctrl c = d->ctrl_snap;
	void *m;

	m = mmap(d->ring_map, d->ring_map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	c.head = d->pos;
	c.tail = d->pos;
	c.state = KPROF_STATE_GONE;
	memcpy(m, &c, sizeof(c));
	mprotect(m, d->ring_map_len, PROT_READ);
	d->ring_dead = 1;
	return 0;
}

static void ring_on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const uint8_t *a = si->si_addr;

	(void)sig;
	(void)uc;
	for (int i = 0; i < KPROF_DEV_RING_SLOTS; i++) {
		struct kprof_dev *d = ring_slots[i];
		const uint8_t *m = d ? d->ring_map : NULL;

		if (m && a >= m && a < m + d->ring_map_len && !d->ring_dead &&
		    !ring_replace(d))
			return;
	}
	/* Not a ring of ours: returning re-runs the access under the old one. */
	sigaction(SIGBUS, &ring_prev_bus, NULL);
}

static int ring_watch(struct kprof_dev *dev)
{
	struct sigaction sa;
	int i;

	for (i = 0; i < KPROF_DEV_RING_SLOTS && ring_slots[i]; i++)
		;
	if (i == KPROF_DEV_RING_SLOTS)
		return -EMFILE;
	if (!ring_handler_on) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = ring_on_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &ring_prev_bus))
			return -errno;
		ring_handler_on = 1;
	}
	ring_slots[i] = dev;
	return 0;
}

static void ring_unwatch(struct kprof_dev *dev)
{
	for (int i = 0; i < KPROF_DEV_RING_SLOTS; i++)
		if (ring_slots[i] == dev)
			ring_slots[i] = NULL;
}

int kprof_dev_ring_map(struct kprof_dev *dev)
{
	long page = sysconf(_SC_PAGESIZE);
	struct kprof_ring_ctrl *ctrl;
	uint32_t size, off;
	void *m;
	int r;

	/* Map the control page alone first to learn the data size. */
	m = mmap(NULL, page, PROT_READ, MAP_SHARED, dev->fd, KPROF_MMAP_RING);
	if (m == MAP_FAILED)
		return -errno;
	ctrl = m;
	size = ctrl->data_size;
	off = ctrl->data_offset;
	munmap(m, page);
	if (!size || (size & (size - 1)) || off < sizeof(*ctrl) ||
	    (off % 8))
		return -EPROTO;

	dev->ring_map_len = (size_t)off + size;
	dev->ring_map_len = (dev->ring_map_len + page - 1) & ~(size_t)(page - 1);
	m = mmap(NULL, dev->ring_map_len, PROT_READ, MAP_SHARED, dev->fd,
		 KPROF_MMAP_RING);
	if (m == MAP_FAILED) {
		int e = -errno;

		dev->ring_map_len = 0;
		return e;
	}
	dev->ring_map = m;
	dev->ctrl = m;
	dev->ring_data = (const uint8_t *)m + off;
	dev->ring_size = size;
	dev->gone = 0;
	dev->ring_dead = 0;
	dev->fd_eof = 0;
	memset(&dev->ctrl_snap, 0, sizeof(dev->ctrl_snap));
	dev->ctrl_snap.data_size = size;
	dev->ctrl_snap.data_offset = off;
	dev->pos = 0;
	r = ring_watch(dev);
	if (r) {
		kprof_dev_ring_unmap(dev);
		return r;
	}
	dev->pos = dev->ctrl->tail;
	dev->ctrl_snap.tail = dev->pos;
	dev->ctrl_snap.head = dev->pos;
	return 0;
}

void kprof_dev_ring_unmap(struct kprof_dev *dev)
{
	ring_unwatch(dev);
	if (dev->ring_map)
		munmap(dev->ring_map, dev->ring_map_len);
	dev->ring_map = NULL;
	dev->ctrl = NULL;
	dev->ring_data = NULL;
	dev->ring_map_len = 0;
}

static uint64_t load_acquire(volatile const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

uint64_t kprof_dev_ring_pending(const struct kprof_dev *dev)
{
	if (!dev->ctrl)
		return 0;
	/* Unknown until read(2) says EOF: something, as far as we know. */
	if (dev->ring_dead)
		return !dev->fd_eof;
	return load_acquire(&dev->ctrl->head) - dev->pos;
}

uint32_t kprof_dev_ring_state(const struct kprof_dev *dev)
{
	return dev->ctrl ? __atomic_load_n(&dev->ctrl->state, __ATOMIC_ACQUIRE)
			 : 0;
}

/* The rest of a removed device's capture, through read(2): no PAD. */
static ssize_t ring_read_fd(struct kprof_dev *dev, void *buf, size_t cap)
{
	const uint8_t *p = buf;
	ssize_t n;

	if (dev->fd_eof)
		return -ENODEV;
	n = read(dev->fd, buf, cap);
	if (n < 0)
		return errno == EINVAL ? -ENOSPC : -errno;
	if (n == 0) {
		dev->fd_eof = 1;
		return -ENODEV;
	}
	for (ssize_t off = 0; off + (ssize_t)sizeof(struct kprof_rec_hdr) <= n;) {
		struct kprof_rec_hdr h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h))
			return -EPROTO;
		off += h.size;
		dev->records_read++;
	}
	dev->bytes_read += n;
	return n;
}

ssize_t kprof_dev_ring_read(struct kprof_dev *dev, void *buf, size_t cap)
{
	uint64_t head, tail, start, pads = 0, recs = 0;
	uint8_t *out = buf;
	size_t n = 0;
	int r, err = 0;

	if (!dev->ctrl)
		return -EINVAL;
	if (dev->ring_dead)
		return ring_read_fd(dev, buf, cap);
	/* What the SIGBUS handler keeps should the device go away now. */
	memcpy(&dev->ctrl_snap, (const void *)dev->ctrl, sizeof(dev->ctrl_snap));
	/* Pairs with the kernel's release store of head after the data. */
	head = load_acquire(&dev->ctrl->head);
	start = dev->pos;
	tail = dev->pos;
	if (head - tail > dev->ring_size)
		err = -EPROTO;

	while (!err && tail < head) {
		uint32_t off = tail & (dev->ring_size - 1);
		uint64_t contig = dev->ring_size - off;
		struct kprof_rec_hdr h;

		if (head - tail < sizeof(h)) {
			if (!n)
				err = -EPROTO;
			break;
		}
		memcpy(&h, dev->ring_data + off, sizeof(h));
		if (h.size < sizeof(h) || (h.size % 8) || h.size > contig ||
		    h.size > head - tail) {
			/* Deliver the good records first; the next call fails. */
			if (!n)
				err = -EPROTO;
			break;
		}
		/* PAD fills up to a DMA span boundary (or the ring end). */
		if (h.type == KPROF_REC_PAD) {
			pads += h.size;
			tail += h.size;
			continue;
		}
		if (n + h.size > cap) {
			if (!n && tail == start)
				err = -ENOSPC;
			break;
		}
		memcpy(out + n, dev->ring_data + off, h.size);
		n += h.size;
		tail += h.size;
		recs++;
	}
	/*
	 * The mapping died under the copy (device removed): nothing was
	 * consumed, so read(2) goes on from dev->pos; what was copied from
	 * the replacement memory is not data.
	 */
	if (dev->ring_dead)
		return ring_read_fd(dev, buf, cap);
	if (err)
		return err;
	dev->pad_bytes += pads;
	dev->records_read += recs;
	if (dev->gone) {
		/* Nothing will be produced now: read what is left, no consume. */
		dev->pos = tail;
		dev->bytes_read += n;
		return n ? (ssize_t)n : -ENODEV;
	}
	if (tail != start) {
		r = dev->consume ? dev->consume(dev, tail)
				 : xioctl(dev, KPROF_IOC_RING_CONSUME, &tail);
		/* Gone: what was copied is still good; deliver it once. */
		if (r == -ENODEV)
			dev->gone = 1;
		else if (r < 0)
			return r;
		dev->pos = tail;
	}
	dev->bytes_read += n;
	return n;
}

const char *kprof_dev_memlock_error(uint32_t ring_size, char *buf, size_t len)
{
	const char *root = getenv("KPROF_SYSFS_ROOT");
	char path[512], kb[32] = "?", lim[32] = "unlimited";
	struct rlimit rl;
	FILE *f;

	snprintf(path, sizeof(path), "%s/module/kprof/parameters/mlock_kb",
		 root && *root ? root : "/sys");
	f = fopen(path, "re");
	if (f) {
		if (!fgets(kb, sizeof(kb), f))
			snprintf(kb, sizeof(kb), "?");
		kb[strcspn(kb, "\n")] = '\0';
		fclose(f);
	}
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof(lim), "%llu KiB",
			 (unsigned long long)rl.rlim_cur >> 10);
	snprintf(buf, len,
		 "the %u MiB capture ring would take you past your locked-memory limit for capture rings (ulimit -l: %s, plus kprof.mlock_kb: %s KiB per user, shared by all your captures, a stopped one until its fd is closed): use a smaller --ring-size, raise 'ulimit -l', or have root raise /sys/module/kprof/parameters/mlock_kb",
		 (ring_size ? ring_size : KPROF_RING_SIZE_DEFAULT) >> 20, lim, kb);
	return buf;
}

int kprof_dev_counters_map(struct kprof_dev *dev,
			   const struct kprof_counter_block **blk)
{
	struct kprof_device_info info;
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	void *m;
	int r;

	r = kprof_dev_info(dev, &info);
	if (r)
		return r;
	if (info.counter_block_size < sizeof(struct kprof_counter_block))
		return -EPROTO;
	len = (info.counter_block_size + page - 1) & ~(size_t)(page - 1);
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, dev->fd,
		 KPROF_MMAP_COUNTERS);
	if (m == MAP_FAILED)
		return -errno;
	dev->cnt_map = m;
	dev->cnt_map_len = len;
	*blk = m;
	return 0;
}

void kprof_dev_counters_unmap(struct kprof_dev *dev)
{
	if (dev->cnt_map)
		munmap(dev->cnt_map, dev->cnt_map_len);
	dev->cnt_map = NULL;
	dev->cnt_map_len = 0;
}

const char *kprof_dev_clock_str(uint32_t flags, uint32_t mhz, char *buf,
				size_t len)
{
	snprintf(buf, len, "%s %u MHz",
		 (flags & KPROF_CLOCK_LOCKED) ? "locked" : "dvfs", mhz);
	return buf;
}

void kprof_dev_clock_saved_str(const struct kprof_clock_state *cs, char *buf,
			       size_t len)
{
	if (!(cs->flags & KPROF_CLOCK_SAVED))
		snprintf(buf, len, "none");
	else
		kprof_dev_clock_str(cs->saved_flags, cs->saved_mhz, buf, len);
}

static const char clock_perm_rw[] =
	"changing clocks needs CAP_SYS_ADMIN (run as root) and the device opened read-write";

const char *kprof_dev_clock_error(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return "changing clocks needs CAP_SYS_ADMIN (run as root)";
	case -EBADF:
		return clock_perm_rw;
	case -ERANGE:
		return "frequency outside the device's range (kprofctl info shows min/max)";
	case -EOPNOTSUPP:
		return "this device's backend cannot change its clock";
	case -ENODEV:
		return "device was removed";
	default:
		return strerror(-err);
	}
}
