/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the kprof kselftest suites: device paths, thin ioctl
 * wrappers that return -errno, a mmap ring reader that validates every
 * record header, the sim vendor device, and sysfs/debugfs access.
 *
 * Everything is static inline so each test binary is one .c file (the
 * kselftest Makefile builds every .c file there into its own binary).
 */
#ifndef KPROF_TEST_UTIL_H
#define KPROF_TEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>

#include <linux/capability.h>
#include <linux/kprof.h>
#include <linux/kprof_sim.h>

/* Paths, in one place so a renamed attribute is a one-line change. */
#define KT_DEV_FMT		"/dev/kprof%d"
#define KT_SIMDEV_FMT		"/dev/kprof_sim%d"
#define KT_CLASS_DIR		"/sys/class/kprof"
#define KT_SYSFS_FMT		KT_CLASS_DIR "/kprof%d"
#define KT_DEBUGFS_ROOT		"/sys/kernel/debug"
#define KT_SIM_DEBUGFS_FMT	KT_DEBUGFS_ROOT "/kprof_sim/sim%d"
#define KT_SIM_BUS_DIR		"/sys/bus/kprof_sim"
/* The modules the VM runner loaded (tests/vm/init exports KPROF_KO_<name>). */
#define KT_MODULE_PATH		kt_ko_path("kprof", "/kprof/kmod/kprof.ko")
#define KT_SIM_MODULE_PATH	kt_ko_path("kprof_sim", "/kprof/kmod/sim/kprof_sim.ko")
#define KT_EDU_MODULE_PATH	kt_ko_path("kprof_edu", "/kprof/kmod/edu/kprof_edu.ko")
#define KT_SIM_MODULE_ARGS	"sim_devices=1"
#define KT_PAGES_FILE		KT_DEBUGFS_ROOT "/kprof/pages"

#define KT_PAGE_SIZE		((size_t)sysconf(_SC_PAGESIZE))

/* A kernel text address: never a valid user pointer. */
#define KT_KERNEL_PTR		((void *)0xffffffff81000000UL)

static inline uint64_t kt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline void kt_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ioctl returning 0 or -errno, so tests can ASSERT_EQ(-EINVAL, ...). */
static inline int kt_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static inline int kt_open_dev(int id)
{
	char path[64];

	snprintf(path, sizeof(path), KT_DEV_FMT, id);
	return open(path, O_RDWR | O_CLOEXEC);
}

static inline int kt_open_sim(int id)
{
	char path[64];

	snprintf(path, sizeof(path), KT_SIMDEV_FMT, id);
	return open(path, O_RDWR | O_CLOEXEC);
}

static inline int kt_info(int fd, struct kprof_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return kt_ioctl(fd, KPROF_IOC_INFO, info);
}

static inline void kt_params_init(struct kprof_capture_params *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
}

static inline int kt_start(int fd, uint32_t flags, uint32_t ring_size,
			   uint64_t counter_mask)
{
	struct kprof_capture_params p;

	kt_params_init(&p);
	p.flags = flags;
	p.ring_size = ring_size;
	p.counter_mask = counter_mask;
	return kt_ioctl(fd, KPROF_IOC_CAPTURE_START, &p);
}

static inline int kt_stop(int fd)
{
	return kt_ioctl(fd, KPROF_IOC_CAPTURE_STOP, NULL);
}

static inline int kt_clock_get(int fd, struct kprof_clock_state *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return kt_ioctl(fd, KPROF_IOC_CLOCK_GET, st);
}

static inline int kt_clock_set(int fd, uint32_t op, uint32_t mhz)
{
	struct kprof_clock_req r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.op = op;
	r.mhz = mhz;
	return kt_ioctl(fd, KPROF_IOC_CLOCK_SET, &r);
}

/*
 * One sample whose host bracket is as tight as a few tries give: the
 * bracket, not the clock, is what limits how well a rate is known.
 */
static inline int kt_tight_sample(int fd, struct kprof_sync_sample *best)
{
	struct kprof_sync_sample s;
	int i;

	memset(best, 0, sizeof(*best));
	best->host_after_ns = ~0ULL;
	for (i = 0; i < 64; i++) {
		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		if (kt_ioctl(fd, KPROF_IOC_SYNC_SAMPLE, &s))
			return -1;
		if (s.host_after_ns - s.host_before_ns <
		    best->host_after_ns - best->host_before_ns)
			*best = s;
		if (best->host_after_ns - best->host_before_ns <= 20000)
			break;
	}
	return 0;
}

/*
 * The device rate over interval_ms as a range that must hold it: each
 * sample's device time lies between its host_before and host_after, so
 * the elapsed host time lies between the inner and the outer bracket.
 * No scheduling delay can push the true rate outside [*lo, *hi].
 */
static inline int kt_ref_rate_range(int fd, unsigned int interval_ms,
				    double *lo, double *hi)
{
	struct kprof_sync_sample a, b;
	double cycles;

	if (kt_tight_sample(fd, &a))
		return -1;
	kt_sleep_ms(interval_ms);
	if (kt_tight_sample(fd, &b))
		return -1;
	cycles = (double)(b.device_cycles - a.device_cycles) * 1e9;
	*lo = cycles / (double)(b.host_after_ns - a.host_before_ns);
	*hi = cycles / (double)(b.host_before_ns - a.host_after_ns);
	return 0;
}

/* True if every byte of [p, p+len) is zero. */
static inline bool kt_all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/*
 * A fixed-size string field: NUL-terminated inside the field and every byte
 * after the terminator zero (no stale kernel bytes leak through).
 */
static inline bool kt_str_clean(const char *s, size_t len)
{
	size_t n = strnlen(s, len);

	return n < len && kt_all_zero(s + n, len - n);
}

/* ------------------------------------------------------------------ */
/* Files: sysfs and debugfs                                            */
/* ------------------------------------------------------------------ */

/* Reads a whole small file, NUL-terminated; returns bytes or -errno. */
static inline ssize_t kt_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		total += n;
	}
	buf[total] = '\0';
	close(fd);
	return total;
}

static inline ssize_t kt_read_filef(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline ssize_t kt_read_filef(char *buf, size_t len, const char *fmt, ...)
{
	char path[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return kt_read_file(path, buf, len);
}

/* Writes a string in one write(); returns 0 or -errno. */
static inline int kt_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int ret = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != strlen(s))
		ret = -EIO;
	close(fd);
	return ret;
}

/* Parses a file holding one unsigned decimal number. */
static inline int kt_read_u64(const char *path, uint64_t *val)
{
	char buf[64], *end;
	ssize_t n = kt_read_file(path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	errno = 0;
	*val = strtoull(buf, &end, 0);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

/* The kernel log from here on, to look for a module's message. */
static inline int kt_kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Whether a kernel log record since kt_kmsg_open_end() contains every word. */
static inline bool kt_kmsg_has(int fd, const char *a, const char *b)
{
	char rec[2048];
	ssize_t n;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		if (strstr(rec, a) && strstr(rec, b))
			return true;
	}
	return false;
}

/*
 * A loop's round count: max, or the lower count the variable env gives
 * (only the debug-kernel lane sets one, tests/vm/debug-kernel/suite.sh:
 * every round there is many times slower). It can lower the count, never
 * raise it; -1 if its value is not a whole number from 1 to max.
 */
static inline int kt_rounds(const char *env, int max)
{
	const char *s = getenv(env);
	char *end;
	long v;

	if (!s || !*s)
		return max;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > max)
		return -1;
	return (int)v;
}

static inline const char *kt_ko_path(const char *name, const char *dflt)
{
	char var[64];
	const char *p;

	snprintf(var, sizeof(var), "KPROF_KO_%s", name);
	p = getenv(var);
	return p && *p ? p : dflt;
}

static sigjmp_buf kt_bus_jmp;

static inline void kt_on_sigbus(int sig)
{
	siglongjmp(kt_bus_jmp, sig);
}

/* 1 if reading *p raised SIGBUS, 0 if it read fine. */
static inline int kt_sigbus_on_read(const volatile uint8_t *p)
{
	struct sigaction sa = { .sa_handler = kt_on_sigbus }, old;
	volatile int hit = 0;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(kt_bus_jmp, 1))
		hit = 1;
	else
		(void)*p;
	sigaction(SIGBUS, &old, NULL);
	return hit;
}

/* Whether module NAME is in /proc/modules. */
static inline bool kt_module_loaded(const char *name)
{
	char buf[65536], pat[80];
	size_t n = strlen(name);

	if (kt_read_file("/proc/modules", buf, sizeof(buf)) < 0)
		return false;
	snprintf(pat, sizeof(pat), "\n%s ", name);
	return (!strncmp(buf, name, n) && buf[n] == ' ') || strstr(buf, pat);
}

/* finit_module(PATH, PARAMS): 0 or -errno. */
static inline int kt_module_load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* delete_module(NAME) without waiting: 0 or -errno. */
static inline int kt_module_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static inline bool kt_debugfs_ready(void)
{
	struct stat st;

	if (stat(KT_DEBUGFS_ROOT "/kprof_sim", &st) == 0)
		return true;
	mount("debugfs", KT_DEBUGFS_ROOT, "debugfs", 0, NULL);
	return stat(KT_DEBUGFS_ROOT "/kprof_sim", &st) == 0;
}

static inline void kt_sim_path(char *buf, size_t len, int sim_id,
			       const char *knob)
{
	snprintf(buf, len, KT_SIM_DEBUGFS_FMT "/%s", sim_id, knob);
}

static inline int kt_sim_knob_u64(int sim_id, const char *knob, uint64_t *v)
{
	char path[256];

	kt_sim_path(path, sizeof(path), sim_id, knob);
	return kt_read_u64(path, v);
}

static inline int kt_sim_knob_set(int sim_id, const char *knob,
				  unsigned long long v)
{
	char path[256], val[32];

	kt_sim_path(path, sizeof(path), sim_id, knob);
	snprintf(val, sizeof(val), "%llu", v);
	return kt_write_file(path, val);
}

/* A named counter from the sim's debugfs stats file ("name value" lines). */
static inline int kt_sim_stat(int sim_id, const char *name, uint64_t *v)
{
	char path[256], buf[4096], *p;
	size_t len = strlen(name);

	kt_sim_path(path, sizeof(path), sim_id, "stats");
	if (kt_read_file(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ' ')
			return sscanf(p + len + 1, "%" SCNu64, v) == 1 ? 0 : -EPROTO;
	return -ENOENT;
}

/* ------------------------------------------------------------------ */
/* Sim devices added and removed at run time                          */
/* ------------------------------------------------------------------ */

/* The kprofN whose backend device is simID; -1 if none. */
static inline int kt_kprof_id_of_sim(unsigned int sim_id)
{
	char path[300], link[256], want[32];
	struct dirent *de;
	DIR *d = opendir(KT_CLASS_DIR);
	int id = -1;
	ssize_t n;

	if (!d)
		return -1;
	snprintf(want, sizeof(want), "/sim%u", sim_id);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "kprof", 5))
			continue;
		snprintf(path, sizeof(path), KT_CLASS_DIR "/%s/device", de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (n >= (ssize_t)strlen(want) &&
		    !strcmp(link + n - strlen(want), want))
			id = atoi(de->d_name + 5);
	}
	closedir(d);
	return id;
}

static inline int kt_sim_new(unsigned int id, unsigned int cores, unsigned int riscs)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%u %u %u", id, cores, riscs);
	return kt_write_file(KT_SIM_BUS_DIR "/new_device", buf);
}

static inline int kt_sim_del(unsigned int id)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", id);
	return kt_write_file(KT_SIM_BUS_DIR "/del_device", buf);
}

/* ------------------------------------------------------------------ */
/* Capabilities                                                        */
/* ------------------------------------------------------------------ */

/* Clears the effective, permitted and inheritable sets of this process. */
static inline int kt_drop_all_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/* ------------------------------------------------------------------ */
/* The sim vendor device                                               */
/* ------------------------------------------------------------------ */

static inline void kt_launch_init(struct kprof_sim_launch *l, const char *name,
				  uint32_t first_core, uint32_t num_cores,
				  uint64_t flops, uint64_t bytes,
				  uint32_t zones)
{
	memset(l, 0, sizeof(*l));
	l->size = sizeof(*l);
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->first_core = first_core;
	l->num_cores = num_cores;
	l->flops = flops;
	l->bytes = bytes;
	l->num_zones = zones;
}

/* Launches one op; returns its seq (>= 1) or -errno. */
static inline int64_t kt_launch(int simfd, const char *name,
				uint32_t first_core, uint32_t num_cores,
				uint64_t flops, uint64_t bytes, uint32_t zones)
{
	struct kprof_sim_launch l;
	int ret;

	kt_launch_init(&l, name, first_core, num_cores, flops, bytes, zones);
	ret = kt_ioctl(simfd, KPROF_SIM_IOC_LAUNCH, &l);
	return ret ? ret : (int64_t)l.seq;
}

static inline int kt_sync_all(int simfd, uint64_t timeout_ns)
{
	struct kprof_sim_sync s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.flags = KPROF_SIM_SYNC_ALL;
	s.timeout_ns = timeout_ns;
	return kt_ioctl(simfd, KPROF_SIM_IOC_SYNC, &s);
}

/* A small op: quick under TCG, still a full set of markers. */
#define KT_SMALL_FLOPS	(1ULL << 16)
#define KT_SMALL_BYTES	(1ULL << 14)

/* ------------------------------------------------------------------ */
/* Capture ring reader (mmap + RING_CONSUME)                           */
/* ------------------------------------------------------------------ */

struct kt_ring {
	int fd;
	void *map;
	size_t map_len;
	volatile struct kprof_ring_ctrl *ctrl;
	const uint8_t *data;
	uint32_t data_size;
	uint64_t tail;		/* our consumer position */
};

/* Maps the ring of a started capture; returns 0 or -errno. */
static inline int kt_ring_map(struct kt_ring *r, int fd)
{
	size_t pg = KT_PAGE_SIZE;
	struct kprof_ring_ctrl *c;
	uint32_t ds;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	c = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, KPROF_MMAP_RING);
	if (c == MAP_FAILED)
		return -errno;
	ds = c->data_size;
	munmap(c, pg);
	if (!ds || (ds & (ds - 1)))
		return -EPROTO;
	r->map_len = pg + ds;
	r->map = mmap(NULL, r->map_len, PROT_READ, MAP_SHARED, fd,
		      KPROF_MMAP_RING);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->ctrl = r->map;
	if (r->ctrl->data_offset < sizeof(struct kprof_ring_ctrl) ||
	    r->ctrl->data_offset + (size_t)ds > r->map_len)
		return -EPROTO;
	r->data = (const uint8_t *)r->map + r->ctrl->data_offset;
	r->data_size = ds;
	r->tail = r->ctrl->tail;
	return 0;
}

static inline void kt_ring_unmap(struct kt_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
}

static inline uint64_t kt_ring_head(struct kt_ring *r)
{
	return __atomic_load_n(&r->ctrl->head, __ATOMIC_ACQUIRE);
}

/* Records copied out of the ring, in stream order. */
struct kt_recs {
	uint8_t *buf;
	size_t len, cap;
	size_t count;
	bool malformed;		/* a header broke the framing rules */
	char why[128];
};

static inline void kt_recs_free(struct kt_recs *rs)
{
	free(rs->buf);
	memset(rs, 0, sizeof(*rs));
}

static inline void kt_recs_add(struct kt_recs *rs, const void *rec, size_t n)
{
	if (rs->len + n > rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 1 << 16;

		while (cap < rs->len + n)
			cap *= 2;
		rs->buf = realloc(rs->buf, cap);
		if (!rs->buf)
			abort();
		rs->cap = cap;
	}
	memcpy(rs->buf + rs->len, rec, n);
	rs->len += n;
	rs->count++;
}

static inline void kt_recs_bad(struct kt_recs *rs, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void kt_recs_bad(struct kt_recs *rs, const char *fmt, ...)
{
	va_list ap;

	if (rs->malformed)
		return;
	rs->malformed = true;
	va_start(ap, fmt);
	vsnprintf(rs->why, sizeof(rs->why), fmt, ap);
	va_end(ap);
}

/* Minimum size of each known record type (0: unknown type). */
static inline size_t kt_rec_min_size(unsigned int type)
{
	switch (type) {
	case KPROF_REC_PAD:		return sizeof(struct kprof_rec_hdr);
	case KPROF_REC_MARKER:		return sizeof(struct kprof_rec_marker);
	case KPROF_REC_LOST:		return sizeof(struct kprof_rec_lost);
	case KPROF_REC_OP:		return sizeof(struct kprof_rec_op);
	case KPROF_REC_COUNTERS:	return sizeof(struct kprof_rec_counters);
	case KPROF_REC_SYNC:		return sizeof(struct kprof_rec_sync);
	case KPROF_REC_CLOCK:		return sizeof(struct kprof_rec_clock);
	case KPROF_REC_STATE:		return sizeof(struct kprof_rec_state);
	}
	return 0;
}

/*
 * Copies the records between our tail and the producer head into rs (PAD
 * skipped), checks framing, and publishes the new tail. Returns the bytes
 * consumed, or -errno from RING_CONSUME.
 */
static inline int64_t kt_ring_drain(struct kt_ring *r, struct kt_recs *rs)
{
	uint64_t head = kt_ring_head(r), pos = r->tail;
	int ret;

	if (head < pos || head - pos > r->data_size) {
		kt_recs_bad(rs, "head %llu tail %llu size %u",
			    (unsigned long long)head, (unsigned long long)pos,
			    r->data_size);
		return -EPROTO;
	}
	while (pos < head) {
		uint32_t off = pos & (r->data_size - 1);
		const struct kprof_rec_hdr *h = (const void *)(r->data + off);
		size_t min = kt_rec_min_size(h->type);

		if (h->size < sizeof(*h) || h->size % 8 ||
		    off + h->size > r->data_size || pos + h->size > head ||
		    (min && h->size < min)) {
			kt_recs_bad(rs, "bad record type %u size %u at %llu",
				    h->type, h->size,
				    (unsigned long long)pos);
			return -EPROTO;
		}
		if (h->type != KPROF_REC_PAD)
			kt_recs_add(rs, h, h->size);
		pos += h->size;
	}
	if (pos != r->tail) {
		ret = kt_ioctl(r->fd, KPROF_IOC_RING_CONSUME, &pos);
		if (ret)
			return ret;
	}
	ret = (int)(pos - r->tail);
	r->tail = pos;
	return ret;
}

#define kt_recs_for_each(h, rs)						\
	for (const struct kprof_rec_hdr *h = (const void *)(rs)->buf;	\
	     (const uint8_t *)h < (rs)->buf + (rs)->len;		\
	     h = (const void *)((const uint8_t *)h + h->size))

/* Counts records of one type. */
static inline size_t kt_recs_count(const struct kt_recs *rs, unsigned int type)
{
	size_t n = 0;

	kt_recs_for_each(h, rs)
		n += h->type == type;
	return n;
}

/* Polls and drains until pred(rs, arg) holds or timeout_ms passes. */
static inline bool kt_drain_until(struct kt_ring *r, struct kt_recs *rs,
				  bool (*pred)(const struct kt_recs *, void *),
				  void *arg, unsigned int timeout_ms)
{
	uint64_t end = kt_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

	for (;;) {
		if (kt_ring_drain(r, rs) < 0)
			return false;
		if (pred && pred(rs, arg))
			return true;
		if (kt_now_ns() >= end)
			return false;
		poll(&pfd, 1, 20);
	}
}

/* Drains until the stream has ended: state STOPPED/GONE and ring empty. */
static inline bool kt_drain_to_end(struct kt_ring *r, struct kt_recs *rs,
				   unsigned int timeout_ms)
{
	uint64_t end = kt_now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	for (;;) {
		uint32_t st = r->ctrl->state;

		if (kt_ring_drain(r, rs) < 0)
			return false;
		if ((st == KPROF_STATE_STOPPED || st == KPROF_STATE_GONE) &&
		    kt_ring_head(r) == r->tail)
			return true;
		if (kt_now_ns() >= end)
			return false;
		kt_sleep_ms(5);
	}
}

static inline bool kt_pred_marker_count(const struct kt_recs *rs, void *arg)
{
	return kt_recs_count(rs, KPROF_REC_MARKER) >= *(size_t *)arg;
}

/* ------------------------------------------------------------------ */
/* A workload with known shape, and what a capture saw of it           */
/* ------------------------------------------------------------------ */

struct kt_op {
	uint64_t seq;
	uint32_t first_core, num_cores, zones;
	char name[KPROF_SIM_NAME_LEN];
};

/* Markers one op writes: 4 per RISC of each core, plus zone pairs. */
static inline uint64_t kt_op_markers(const struct kprof_device_info *info,
				     const struct kt_op *op)
{
	return (uint64_t)op->num_cores * info->riscs_per_core * 4 +
	       (uint64_t)op->num_cores * info->riscs_per_core * 2 * op->zones;
}

/*
 * Launches n ops of varied core ranges and zone counts (deterministic in
 * i), recording what was asked. Returns 0 or -errno of the failing launch.
 */
static inline int kt_launch_ops(int simfd, const struct kprof_device_info *info,
				struct kt_op *ops, unsigned int n,
				uint32_t zones_max)
{
	static const char * const names[] = {
		"matmul", "eltwise_add", "softmax", "layernorm" };

	for (unsigned int i = 0; i < n; i++) {
		struct kt_op *op = &ops[i];
		int64_t seq;

		op->first_core = (i * 7) % info->num_cores;
		op->num_cores = 1 + (i * 13) % (info->num_cores - op->first_core);
		op->zones = zones_max ? i % (zones_max + 1) : 0;
		snprintf(op->name, sizeof(op->name), "%s_%u", names[i % 4], i);
		seq = kt_launch(simfd, op->name, op->first_core, op->num_cores,
				KT_SMALL_FLOPS, KT_SMALL_BYTES, op->zones);
		if (seq < 0)
			return (int)seq;
		op->seq = (uint64_t)seq;
	}
	return 0;
}

static inline uint64_t kt_ops_markers(const struct kprof_device_info *info,
				      const struct kt_op *ops, unsigned int n)
{
	uint64_t total = 0;

	for (unsigned int i = 0; i < n; i++)
		total += kt_op_markers(info, &ops[i]);
	return total;
}

/* Per op, what the stream carried. */
struct kt_op_seen {
	uint64_t markers;
	uint64_t kinds[KPROF_MARK_ZONE_END + 1];
	uint64_t bad;			/* core/risc/kind/zone out of range */
	uint64_t min_fw_start, max_fw_end;
	uint64_t min_kernel_start, max_kernel_end;
	unsigned int op_recs, counter_recs;
	const struct kprof_rec_op *op;
};

/* Matches records to ops by seq; returns markers of no op in ops[]. */
static inline uint64_t kt_analyse(const struct kt_recs *rs,
				  const struct kprof_device_info *info,
				  const struct kt_op *ops, unsigned int n,
				  struct kt_op_seen *seen)
{
	uint64_t foreign = 0;

	memset(seen, 0, sizeof(*seen) * n);
	for (unsigned int i = 0; i < n; i++) {
		seen[i].min_fw_start = UINT64_MAX;
		seen[i].min_kernel_start = UINT64_MAX;
	}
	kt_recs_for_each(h, rs) {
		unsigned int i;

		if (h->type == KPROF_REC_MARKER) {
			const struct kprof_rec_marker *m = (const void *)h;
			struct kt_op_seen *s;
			const struct kt_op *op;

			for (i = 0; i < n; i++)
				if ((uint32_t)ops[i].seq == m->op_seq)
					break;
			if (i == n) {
				foreign++;
				continue;
			}
			s = &seen[i];
			op = &ops[i];
			s->markers++;
			if (m->kind < KPROF_MARK_FW_START ||
			    m->kind > KPROF_MARK_ZONE_END ||
			    m->core < op->first_core ||
			    m->core >= op->first_core + op->num_cores ||
			    m->risc >= info->riscs_per_core || m->reserved ||
			    ((m->kind == KPROF_MARK_ZONE_START ||
			      m->kind == KPROF_MARK_ZONE_END) &&
			     m->zone_id >= op->zones)) {
				s->bad++;
				continue;
			}
			s->kinds[m->kind]++;
			if (m->kind == KPROF_MARK_FW_START &&
			    m->timestamp < s->min_fw_start)
				s->min_fw_start = m->timestamp;
			if (m->kind == KPROF_MARK_FW_END &&
			    m->timestamp > s->max_fw_end)
				s->max_fw_end = m->timestamp;
			if (m->kind == KPROF_MARK_KERNEL_START &&
			    m->timestamp < s->min_kernel_start)
				s->min_kernel_start = m->timestamp;
			if (m->kind == KPROF_MARK_KERNEL_END &&
			    m->timestamp > s->max_kernel_end)
				s->max_kernel_end = m->timestamp;
		} else if (h->type == KPROF_REC_OP ||
			   h->type == KPROF_REC_COUNTERS) {
			uint64_t seq = ((const struct kprof_rec_op *)h)->op_seq;

			for (i = 0; i < n; i++)
				if (ops[i].seq == seq)
					break;
			if (i == n)
				continue;
			if (h->type == KPROF_REC_OP) {
				seen[i].op_recs++;
				seen[i].op = (const void *)h;
			} else {
				seen[i].counter_recs++;
			}
		}
	}
	return foreign;
}

/* ------------------------------------------------------------------ */
/* Waiting for children                                                */
/* ------------------------------------------------------------------ */

/* Exit status of a child, or 128 + signal, or -1. */
static inline int kt_wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

#endif /* KPROF_TEST_UTIL_H */
