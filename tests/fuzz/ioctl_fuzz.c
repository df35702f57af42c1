// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl fuzzer for /dev/kprofN and /dev/kprof_simN, run inside the test VM
 * (tests/fuzz/ioctl_fuzz.sh). Several worker processes throw commands at
 * the devices (mostly the real kprof and kprof_sim commands with random
 * size/direction bits, some random ones), with sizes, flags, reserved
 * fields and pointers chosen to hurt: NULL, unmapped, kernel addresses,
 * non-canonical, misaligned, straddling a PROT_NONE page, and valid
 * buffers of random or nearly-valid content. At the same time:
 *   - a capture process starts/pauses/resumes/stops captures, reads and
 *     polls, launches ops, and maps the ring and the counters every way
 *     mmap allows and some it must refuse (MAP_PRIVATE, PROT_WRITE,
 *     PROT_EXEC), then keeps up to four mappings alive across captures,
 *     closes and device removals, touching them (through the kernel: a
 *     page no longer backed is EFAULT, not SIGBUS), mremap()ing them
 *     (grow, shrink, move, MREMAP_DONTUNMAP), unmapping head, tail or
 *     middle pages, mprotect()ing them to writable or executable, and
 *     forking with them mapped (the child must not have them);
 *   - a holder process forks captures and kill -9s them at random times;
 *   - a churn process removes and re-adds sim devices through
 *     /sys/bus/kprof_sim (and, where kprof_edu.ko drives QEMU's edu PCI
 *     device, removes it through sysfs and rescans the bus), writes the
 *     sim's debugfs fault and clock knobs (stalled DMA, dropped
 *     completions, corrupt markers, marker storm, outside clock lock)
 *     and tries to unload the module, which must fail
 *     while this program holds a kprof fd (if it ever succeeds, the module
 *     is loaded again and the run fails).
 *
 *   ioctl_fuzz [--seed N] [--calls N] [--workers N] [--no-chaos] [--ko PATH] [--sim-ko PATH]
 *
 * The seed is printed first. Each process's random stream derives from it,
 * so `--seed N --workers 1 --no-chaos` replays one call sequence exactly;
 * with the chaos processes the interleaving is up to the scheduler.
 * At the end: calls per command class and per errno, anomalies (a writable
 * or executable mapping of the ring or counters, a mapping a forked child
 * inherited, a successful unload), the ring pages the module holds beyond
 * its device caches (debugfs kprof/pages minus kprof/pages_cached: kmemleak
 * does not see page allocations), which must be what they were before the
 * run once every process is gone, and the verdict. Kernel reports are
 * caught by the VM runner's dmesg check.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/kprof.h>
#include <linux/kprof_sim.h>

#include "kprof_array_size.h"

#define MAX_FDS		4
#define NERRNO		136
#define MAX_WORKERS	16
#define SIM_BUS		"/sys/bus/kprof_sim"
#define KPROF_DBG	"/sys/kernel/debug/kprof"
#define CHURN_ID	7	/* extra sim device the churn adds and removes */
#define MAX_MAPS	4	/* live mappings a capture process keeps */
#define EDU_DRV		"/sys/bus/pci/drivers/kprof_edu"
#define PCI_DEVS	"/sys/bus/pci/devices"
#define EDU_BIND_MS	60000	/* bound, not a timing: TCG, KASAN */

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

/* Counters shared by every process (MAP_SHARED). */
struct stats {
	atomic_ulong calls;		/* ioctl calls by the workers */
	atomic_ulong target;		/* stop when calls reach this */
	atomic_ulong err[NERRNO];	/* [0] = success */
	atomic_ulong cls[4];		/* valid, valid mutated, kprof-magic random, random */
	atomic_ulong captures, mmaps, reads, polls, launches;
	atomic_ulong kills, dev_del, dev_add, rmmod_tries, rmmod_ok, reloads, knobs;
	atomic_ulong edu_launches, edu_removes, edu_rescans;
	atomic_ulong mmaps_ok, private_maps;	/* MAP_PRIVATE: must be read-only */
	atomic_ulong mremaps, mremaps_ok, part_unmaps, forks, touches, touch_faults;
	atomic_ulong write_maps;	/* anomaly: PROT_WRITE mapping of the ring */
	atomic_ulong exec_maps;		/* anomaly: PROT_EXEC mapping */
	atomic_ulong fork_copies;	/* anomaly: a child inherited a mapping */
	atomic_ulong open_fail;
	atomic_int stop;
};

static struct stats *S;
static const char *ko_path = "/kprof/kmod/kprof.ko";
static const char *sim_ko_path = "/kprof/kmod/sim/kprof_sim.ko";
/* PCI address of the edu device kprof_edu.ko drives ("": none) */
static char edu_bdf[64];

/* ---- random numbers: xorshift64*, one stream per process ---- */

static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545F4914F6CDD1DULL;
}

static uint64_t rn(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int pct)
{
	return rn(100) < pct;
}

static void seed_stream(uint64_t seed, unsigned int who)
{
	rs = seed * 0x9E3779B97F4A7C15ULL + who * 0xD1B54A32D192ED03ULL + 1;
	for (int i = 0; i < 8; i++)
		rnd();
}

static void count_errno(int ret)
{
	int e = ret < 0 ? errno : 0;

	atomic_fetch_add(&S->err[e >= 0 && e < NERRNO ? e : NERRNO - 1], 1);
}

/* ---- device nodes ---- */

/* The PCI address of the edu device bound to kprof_edu.ko, if any. */
static bool find_edu(char *bdf, size_t len)
{
	glob_t g;
	bool found = false;

	if (!glob(EDU_DRV "/0000:*", 0, NULL, &g)) {
		const char *p = g.gl_pathv[0];

		snprintf(bdf, len, "%s", p + strlen(EDU_DRV "/"));
		found = true;
		globfree(&g);
	}
	return found;
}

/* A random existing node: kprof capture nodes mostly, sim vendor nodes. */
static int open_random(bool *is_sim)
{
	glob_t g;
	int fd = -1;

	*is_sim = chance(35);
	if (glob(*is_sim ? "/dev/kprof_sim[0-9]*" : "/dev/kprof[0-9]*", 0, NULL, &g))
		return -1;
	if (g.gl_pathc) {
		const char *p = g.gl_pathv[rn(g.gl_pathc)];

		fd = open(p, (chance(90) ? O_RDWR : O_RDONLY) |
			  (chance(30) ? O_NONBLOCK : 0) | O_CLOEXEC);
		if (fd < 0)
			atomic_fetch_add(&S->open_fail, 1);
	}
	globfree(&g);
	return fd;
}

/* The first capture node and its sim vendor node (same id) */
static int open_pair(int *simfd)
{
	glob_t g;
	int fd = -1;

	*simfd = -1;
	if (glob("/dev/kprof[0-9]*", 0, NULL, &g))
		return -1;
	if (g.gl_pathc)
		fd = open(g.gl_pathv[rn(g.gl_pathc)], O_RDWR | O_CLOEXEC);
	globfree(&g);
	if (!glob("/dev/kprof_sim[0-9]*", 0, NULL, &g)) {
		if (g.gl_pathc)
			*simfd = open(g.gl_pathv[rn(g.gl_pathc)], O_RDWR | O_CLOEXEC);
		globfree(&g);
	}
	return fd;
}

/* ---- pointers ---- */

static uint8_t *arena;		/* 3 RW pages, then a PROT_NONE page */
static uint8_t *unmapped;	/* a page that was mapped and unmapped */
static long pg;

static void setup_memory(void)
{
	pg = sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unmapped = mmap(NULL, pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED || unmapped == MAP_FAILED) {
		perror("ioctl_fuzz: mmap");
		exit(1);
	}
	mprotect(arena + 3 * pg, pg, PROT_NONE);
	munmap(unmapped, pg);
}

static void fill_random(void *p, size_t n)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)rnd();
}

/* A plausible version of the struct a command takes, mostly valid. */
static void fill_valid(unsigned int cmd, uint8_t *b, size_t n)
{
	memset(b, 0, n);
	if (n >= 4)
		*(uint32_t *)b = (uint32_t)(chance(85) ? n : rn(n * 2 + 8));
	switch (cmd) {
	case KPROF_IOC_CAPTURE_START: {
		struct kprof_capture_params *p = (void *)b;

		if (n < sizeof(*p))
			break;
		p->flags = chance(80) ? (chance(50) ? KPROF_CAPTURE_PAUSED : 0) : (uint32_t)rnd();
		p->ring_size = chance(80) ? (KPROF_RING_SIZE_MIN << rn(5)) : (uint32_t)rnd();
		p->sync_period_ms = chance(80) ? (uint32_t)rn(200) : (uint32_t)rnd();
		p->counter_mask = chance(70) ? 0 : rnd();
		break;
	}
	case KPROF_IOC_RING_CONSUME:
		if (n >= 8)
			*(uint64_t *)b = chance(50) ? rn(1 << 20) : rnd();
		break;
	case KPROF_IOC_CLOCK_SET: {
		struct kprof_clock_req *r = (void *)b;

		if (n < sizeof(*r))
			break;
		r->op = chance(85) ? 1 + (uint32_t)rn(4) : (uint32_t)rnd();
		r->mhz = chance(70) ? 200 + (uint32_t)rn(1800) : (uint32_t)rnd();
		break;
	}
	case KPROF_SIM_IOC_LAUNCH: {
		struct kprof_sim_launch *l = (void *)b;

		if (n < sizeof(*l))
			break;
		l->flags = chance(90) ? 0 : (uint32_t)rnd();
		fill_random(l->name, sizeof(l->name));
		if (chance(90))
			l->name[rn(sizeof(l->name))] = '\0';
		l->first_core = chance(80) ? (uint32_t)rn(8) : (uint32_t)rnd();
		l->num_cores = chance(80) ? (uint32_t)rn(8) : (uint32_t)rnd();
		l->flops = chance(80) ? rn(1 << 16) : rnd();
		l->bytes = chance(80) ? rn(1 << 16) : rnd();
		l->num_zones = chance(80) ? (uint32_t)rn(10) : (uint32_t)rnd();
		break;
	}
	case KPROF_SIM_IOC_SYNC: {
		struct kprof_sim_sync *s = (void *)b;

		if (n < sizeof(*s))
			break;
		s->flags = chance(80) ? (uint32_t)rn(2) : (uint32_t)rnd();
		s->seq = chance(70) ? rn(64) : rnd();
		/* 0 = wait forever: the interval timer's SIGALRM must get us out */
		s->timeout_ns = chance(90) ? rn(5000000) : (chance(50) ? 0 : rnd());
		break;
	}
	}
	/* a reserved field or any other byte set where it must not be */
	if (n > 8 && chance(15))
		b[4 + rn(n - 4)] = (uint8_t)(rnd() | 1);
}

static const unsigned int valid_cmds[] = {
	KPROF_IOC_INFO, KPROF_IOC_COUNTERS, KPROF_IOC_CAPTURE_START,
	KPROF_IOC_CAPTURE_STOP, KPROF_IOC_CAPTURE_PAUSE, KPROF_IOC_CAPTURE_RESUME,
	KPROF_IOC_RING_CONSUME, KPROF_IOC_CLOCK_GET, KPROF_IOC_CLOCK_SET,
	KPROF_IOC_SYNC_SAMPLE, KPROF_SIM_IOC_LAUNCH, KPROF_SIM_IOC_SYNC,
};

#define NVALID (ARRAY_SIZE(valid_cmds))
#define NSIM 2	/* the last two are the sim vendor node's */

/* A real command, mostly one the node understands. */
static unsigned int pick_valid(bool is_sim)
{
	if (chance(10))
		return valid_cmds[rn(NVALID)];
	return is_sim ? valid_cmds[NVALID - NSIM + rn(NSIM)] : valid_cmds[rn(NVALID - NSIM)];
}

/*
 * Generic VFS ioctls act on the file system a node lives on, not on our
 * driver: FIFREEZE would freeze devtmpfs under everyone. Leave type 'X'
 * alone.
 */
static bool vfs_dangerous(unsigned int cmd)
{
	return _IOC_TYPE(cmd) == 'X';
}

static unsigned int pick_cmd(bool is_sim)
{
	unsigned int c;
	int k = (int)rn(100);

	if (k < 70) {
		c = pick_valid(is_sim);
		atomic_fetch_add(&S->cls[0], 1);
		return c;
	}
	if (k < 85) {
		/* a real command with its size or direction bits changed */
		c = pick_valid(is_sim);
		if (chance(50))
			c = (c & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
			    (((unsigned int)rn(_IOC_SIZEMASK + 1)) << _IOC_SIZESHIFT);
		else
			c = (c & ~(_IOC_DIRMASK << _IOC_DIRSHIFT)) |
			    (((unsigned int)rn(4)) << _IOC_DIRSHIFT);
		atomic_fetch_add(&S->cls[1], 1);
		return c;
	}
	if (k < 95) {
		c = _IOC((unsigned int)rn(4), chance(50) ? KPROF_IOC_MAGIC : KPROF_SIM_IOC_MAGIC,
			 (unsigned int)rn(0x40), (unsigned int)rn(512));
		atomic_fetch_add(&S->cls[2], 1);
		return c;
	}
	do
		c = (uint32_t)rnd();
	while (vfs_dangerous(c));
	atomic_fetch_add(&S->cls[3], 1);
	return c;
}

static unsigned long pick_arg(unsigned int cmd)
{
	size_t n = _IOC_SIZE(cmd);
	uint8_t *b;

	switch (rn(12)) {
	case 0:
		return 0;
	case 1:
		return (unsigned long)unmapped + rn(pg);
	case 2:
		return 0xffffffff81000000UL + rn(1 << 20);
	case 3:
		return 0xffff888000000000UL + (rnd() & 0xffffff8UL);
	case 4:
		return 0x8000000000000000UL ^ (rnd() & 0xfffffffUL);	/* non-canonical */
	case 5:
		/* straddles the PROT_NONE page: the tail is unreadable */
		return (unsigned long)(arena + 3 * pg - 1 - rn(n ? n : 64));
	case 6:
		return rnd();
	default:
		break;
	}
	if (n == 0 || n > (size_t)(2 * pg))
		n = (size_t)rn(2 * pg - 64) + 8;
	/* valid memory, maybe misaligned, before the guard page */
	b = arena + 3 * pg - n - (chance(70) ? 0 : 8 + rn(64));
	if (chance(20))
		b -= 1 + rn(7);
	if (chance(70))
		fill_valid(cmd, b, n);
	else
		fill_random(b, n);
	return (unsigned long)b;
}

static void sig_nop(int sig)
{
	(void)sig;
}

/* Blocking calls (SYNC without timeout, poll) must end on a signal. */
static void arm_interval_timer(long usec)
{
	struct sigaction sa = { .sa_handler = sig_nop };	/* no SA_RESTART */
	struct itimerval it = {
		.it_interval = { 0, usec }, .it_value = { 0, usec },
	};

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

/* ---- the workers ---- */

static void worker(unsigned int id, uint64_t seed)
{
	int fds[MAX_FDS];
	bool sim[MAX_FDS];

	seed_stream(seed, 100 + id);
	setup_memory();
	arm_interval_timer(20000 + (long)rn(30000));
	for (int i = 0; i < MAX_FDS; i++)
		fds[i] = open_random(&sim[i]);

	while (!atomic_load(&S->stop)) {
		int slot = (int)rn(MAX_FDS);
		unsigned int cmd;
		unsigned long arg;
		int ret;

		if (fds[slot] < 0 || chance(1)) {
			if (fds[slot] >= 0)
				close(fds[slot]);
			fds[slot] = open_random(&sim[slot]);
			if (fds[slot] < 0) {
				usleep(1000);
				continue;
			}
		}
		cmd = pick_cmd(sim[slot]);
		arg = pick_arg(cmd);
		ret = ioctl(fds[slot], cmd, arg);
		count_errno(ret);
		/* started a capture by chance: stop it now and then so that
		 * others get a turn
		 */
		if (ret == 0 && cmd == KPROF_IOC_CAPTURE_START && chance(50))
			ioctl(fds[slot], KPROF_IOC_CAPTURE_STOP, 0);
		if (atomic_fetch_add(&S->calls, 1) + 1 >= atomic_load(&S->target))
			atomic_store(&S->stop, 1);
	}
	_exit(0);
}

/* ---- the chaos processes ---- */

/* Mappings of the ring and counters a capture process keeps, by slot. */
struct live_map {
	uint8_t *p;		/* NULL: free slot */
	size_t len;		/* whole pages */
};

static struct live_map maps[MAX_MAPS];
static int touch_pipe[2] = { -1, -1 };

static void setup_maps(void)
{
	if (pipe2(touch_pipe, O_NONBLOCK | O_CLOEXEC)) {
		perror("ioctl_fuzz: pipe2");
		exit(1);
	}
}

/*
 * Reads the byte at p through the kernel (a pipe write): a page the ring
 * no longer backs (the device is gone, or past the ring's end) is EFAULT
 * here instead of a SIGBUS that kills the process.
 */
static void touch(const uint8_t *p)
{
	char c;

	atomic_fetch_add(&S->touches, 1);
	if (write(touch_pipe[1], p, 1) == 1)
		(void)!read(touch_pipe[0], &c, 1);
	else
		atomic_fetch_add(&S->touch_faults, 1);
}

static void anomaly(atomic_ulong *ctr, const char *what, const void *p, size_t len)
{
	atomic_fetch_add(ctr, 1);
	fprintf(stderr, "ioctl_fuzz: ANOMALY: %s (%p, %zu bytes)\n", what, p, len);
}

/* Neither mprotect() nor a new mapping may make the ring writable or executable. */
static void try_mprotect(uint8_t *p, size_t len)
{
	if (mprotect(p, len, PROT_READ | PROT_WRITE) == 0)
		anomaly(&S->write_maps, "mprotect made a mapping writable", p, len);
	if (mprotect(p, len, PROT_READ | PROT_EXEC) == 0)
		anomaly(&S->exec_maps, "mprotect made a mapping executable", p, len);
	mprotect(p, len, PROT_READ);
}

static struct live_map *free_slot(void)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (!maps[i].p)
			return &maps[i];
	return NULL;
}

static void unmap_slot(struct live_map *m)
{
	munmap(m->p, m->len);
	m->p = NULL;
}

/* Map the ring or the counters with random geometry, flags and protection. */
static void map_new(int fd)
{
	off_t off = chance(70) ? (off_t)KPROF_MMAP_RING : (off_t)KPROF_MMAP_COUNTERS;
	int prot = PROT_READ, flags = chance(15) ? MAP_PRIVATE : MAP_SHARED;
	struct live_map *slot = free_slot();
	size_t len;
	uint8_t *m;

	if (chance(10))
		off += (off_t)(rn(4) * (uint64_t)pg);
	len = chance(70) ? (size_t)pg * (1 + rn(64)) : (size_t)rn(1 << 22) + 1;
	if (chance(10))
		prot |= PROT_WRITE;
	if (chance(5))
		prot |= PROT_EXEC;
	m = mmap(NULL, len, prot, flags, fd, off);
	atomic_fetch_add(&S->mmaps, 1);
	if (m == MAP_FAILED)
		return;
	atomic_fetch_add(&S->mmaps_ok, 1);
	len = (len + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	if (flags == MAP_PRIVATE)
		atomic_fetch_add(&S->private_maps, 1);
	if (prot & PROT_WRITE)
		anomaly(&S->write_maps, "writable mapping", m, len);
	if (prot & PROT_EXEC)
		anomaly(&S->exec_maps, "executable mapping", m, len);
	try_mprotect(m, len);
	for (size_t i = 0; i < len && i < (size_t)pg * 64; i += (size_t)pg)
		touch(m + i);
	if (!slot) {
		slot = &maps[rn(MAX_MAPS)];
		unmap_slot(slot);
	}
	slot->p = m;
	slot->len = len;
}

/* A placeholder where mremap() may move a mapping to. */
static uint8_t *reserve(size_t len)
{
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Grow (refused: VM_DONTEXPAND), shrink, move, or move keeping the old range. */
static void map_mremap(struct live_map *m)
{
	size_t npg = m->len / (size_t)pg, nlen = m->len;
	struct live_map *extra;
	uint8_t *dst = NULL;
	void *r;

	atomic_fetch_add(&S->mremaps, 1);
	switch (rn(4)) {
	case 0:
		nlen = m->len + (size_t)pg * (1 + rn(8));
		r = mremap(m->p, m->len, nlen, chance(50) ? MREMAP_MAYMOVE : 0);
		break;
	case 1:
		if (npg < 2)
			return;
		nlen = (size_t)pg * (1 + rn(npg - 1));
		r = mremap(m->p, m->len, nlen, 0);
		break;
	case 2:
		dst = reserve(m->len);
		if (!dst)
			return;
		r = mremap(m->p, m->len, m->len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
		break;
	default:
		r = mremap(m->p, m->len, m->len, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
		if (r == MAP_FAILED)
			break;
		/* The old range stays mapped (emptied): keep both. */
		atomic_fetch_add(&S->mremaps_ok, 1);
		extra = free_slot();
		if (extra) {
			extra->p = r;
			extra->len = m->len;
		} else {
			munmap(r, m->len);
		}
		return;
	}
	if (r == MAP_FAILED) {
		if (dst)
			munmap(dst, m->len);
		return;
	}
	atomic_fetch_add(&S->mremaps_ok, 1);
	m->p = r;
	m->len = nlen;
}

/* Unmap the head, the tail or pages from the middle (two mappings then). */
static void map_unmap_part(struct live_map *m)
{
	size_t npg = m->len / (size_t)pg, at, n;
	struct live_map *rest;

	if (npg < 2) {
		unmap_slot(m);
		return;
	}
	atomic_fetch_add(&S->part_unmaps, 1);
	n = 1 + rn(npg - 1);
	at = rn(3) == 0 ? 0 : npg - n;	/* head or tail */
	rest = free_slot();
	if (rest && npg > 2 && chance(50)) {
		/* middle: [0, at) stays in m, [at + n, npg) goes to rest */
		at = 1 + rn(npg - 2);
		n = 1 + rn(npg - at - 1);
		rest->p = m->p + (at + n) * (size_t)pg;
		rest->len = (npg - at - n) * (size_t)pg;
		munmap(m->p + at * (size_t)pg, n * (size_t)pg);
		m->len = at * (size_t)pg;
		return;
	}
	munmap(m->p + at * (size_t)pg, n * (size_t)pg);
	if (!at)
		m->p += n * (size_t)pg;
	m->len -= n * (size_t)pg;
}

/* VM_DONTCOPY: a child forked with the mapping live has nothing there. */
static void map_fork(struct live_map *m)
{
	unsigned char vec[1];
	pid_t pid;
	int st;

	atomic_fetch_add(&S->forks, 1);
	pid = fork();
	if (pid == 0)
		_exit(mincore(m->p, (size_t)pg, vec) == 0 ? 3 : 0);
	if (pid < 0)
		return;
	/* The interval timer's SIGALRM interrupts the wait (no SA_RESTART). */
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
		anomaly(&S->fork_copies, "a forked child has the mapping", m->p, m->len);
}

/* Something to one of the live mappings. */
static void map_op(void)
{
	struct live_map *live[MAX_MAPS], *m;
	int n = 0;

	for (int i = 0; i < MAX_MAPS; i++)
		if (maps[i].p)
			live[n++] = &maps[i];
	if (!n)
		return;
	m = live[rn(n)];
	switch (rn(7)) {
	case 0:
	case 1:
		for (int i = 0; i < 8; i++)
			touch(m->p + (size_t)pg * rn(m->len / (size_t)pg));
		break;
	case 2:
		map_mremap(m);
		break;
	case 3:
		map_unmap_part(m);
		break;
	case 4:
		try_mprotect(m->p, m->len);
		break;
	case 5:
		map_fork(m);
		break;
	default:
		unmap_slot(m);
	}
}

static int write_sysfs(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -1 : 0;
}

static void capture_cycle(int fd, int simfd)
{
	struct kprof_capture_params p = {
		.size = sizeof(p),
		.flags = chance(30) ? KPROF_CAPTURE_PAUSED : 0,
		.ring_size = KPROF_RING_SIZE_MIN << rn(4),
		.sync_period_ms = 1 + (uint32_t)rn(50),
	};
	static uint8_t buf[1 << 16];
	int steps = 1 + (int)rn(20);

	if (ioctl(fd, KPROF_IOC_CAPTURE_START, &p) == 0)
		atomic_fetch_add(&S->captures, 1);
	for (int i = 0; i < steps && !atomic_load(&S->stop); i++) {
		switch (rn(11)) {
		case 0:
		case 10:
			map_new(fd);
			break;
		case 7:
		case 8:
		case 9:
			map_op();
			break;
		case 1: {
			ssize_t n = read(fd, chance(90) ? buf : (void *)unmapped,
					 (size_t)rn(sizeof(buf)));

			(void)n;
			atomic_fetch_add(&S->reads, 1);
			break;
		}
		case 2: {
			struct pollfd pf = { .fd = fd, .events = POLLIN };

			poll(&pf, 1, (int)rn(20));
			atomic_fetch_add(&S->polls, 1);
			break;
		}
		case 3:
			ioctl(fd, chance(50) ? KPROF_IOC_CAPTURE_PAUSE : KPROF_IOC_CAPTURE_RESUME,
			      0);
			break;
		case 4:
		case 5:
			if (edu_bdf[0] && chance(50)) {
				/* an op on the edu device: its DMA engine moves the markers */
				char path[128];

				snprintf(path, sizeof(path), PCI_DEVS "/%s/factorial", edu_bdf);
				if (write_sysfs(path, chance(90) ? "10" : "x") == 0)
					atomic_fetch_add(&S->edu_launches, 1);
			} else if (simfd >= 0) {
				struct kprof_sim_launch l = {
					.size = sizeof(l), .num_cores = (uint32_t)rn(4),
					.flops = rn(4096), .bytes = rn(4096),
					.num_zones = (uint32_t)rn(3),
				};

				snprintf(l.name, sizeof(l.name), "fuzz_op%u", (unsigned int)rn(8));
				ioctl(simfd, KPROF_SIM_IOC_LAUNCH, &l);
				atomic_fetch_add(&S->launches, 1);
			}
			break;
		case 6: {
			uint64_t pos = rn(1 << 20);

			ioctl(fd, KPROF_IOC_RING_CONSUME, &pos);
			break;
		}
		default:
			usleep((useconds_t)rn(2000));
		}
	}
	if (chance(80))
		ioctl(fd, KPROF_IOC_CAPTURE_STOP, 0);
	/* Else the mappings outlive the capture, the fd and maybe the device. */
	if (chance(50))
		for (int i = 0; i < MAX_MAPS; i++)
			if (maps[i].p)
				unmap_slot(&maps[i]);
}

static void capture_proc(uint64_t seed)
{
	seed_stream(seed, 1);
	setup_memory();
	setup_maps();
	arm_interval_timer(100000);
	while (!atomic_load(&S->stop)) {
		int simfd, fd = open_pair(&simfd);

		if (fd >= 0) {
			capture_cycle(fd, simfd);
			close(fd);
		} else {
			usleep(5000);
		}
		if (simfd >= 0)
			close(simfd);
	}
	_exit(0);
}

/* Forks capture holders and kill -9s them at a random moment. */
static void holder_proc(uint64_t seed)
{
	seed_stream(seed, 2);
	while (!atomic_load(&S->stop)) {
		uint64_t hseed = rnd();
		pid_t pid = fork();

		if (pid == 0) {
			seed_stream(hseed, 3);
			setup_memory();
			setup_maps();
			for (;;) {
				int simfd, fd = open_pair(&simfd);

				if (fd >= 0)
					capture_cycle(fd, simfd);
				else
					usleep(2000);
				/* leave the fds open: the kill closes them */
			}
		}
		usleep((useconds_t)rn(60000));
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			atomic_fetch_add(&S->kills, 1);
		}
	}
	_exit(0);
}

static int load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = fd < 0 || syscall(SYS_finit_module, fd, params, 0) ? -1 : 0;

	if (ret)
		fprintf(stderr, "ioctl_fuzz: cannot reload %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The core, then the sim backend that depends on it. */
static void reload_module(void)
{
	if (!load_module(ko_path, "") && !load_module(sim_ko_path, "sim_devices=1"))
		atomic_fetch_add(&S->reloads, 1);
}

/* The sim's debugfs fault and clock knobs (docs/sim.md), random values. */
static const char *const knobs[] = {
	"fault_corrupt_markers", "fault_dma_stall", "fault_drop_irq",
	"clock_lock_mhz", "drift_ppm", "jitter_ns", "marker_storm", "reset_truth",
};

#define NKNOBS (ARRAY_SIZE(knobs))

static void poke_knob(unsigned int id)
{
	static const char *const vals[] = { "0", "1", "3", "100", "800", "1200", "-1000",
					     "100000", "-1", "99999999999999999999", "x" };
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/kprof_sim/sim%u/%s", id,
		 knobs[rn(NKNOBS)]);
	if (write_sysfs(path, vals[rn(ARRAY_SIZE(vals))]) == 0)
		atomic_fetch_add(&S->knobs, 1);
}

static void knobs_reset(unsigned int id)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/kprof_sim/sim%u/fault_dma_stall", id);
	write_sysfs(path, "0");
	snprintf(path, sizeof(path), "/sys/kernel/debug/kprof_sim/sim%u/marker_storm", id);
	write_sysfs(path, "0");
	snprintf(path, sizeof(path), "/sys/kernel/debug/kprof_sim/sim%u/clock_lock_mhz", id);
	write_sysfs(path, "0");
}

/*
 * Remove the edu device through sysfs (a surprise removal, as far as the
 * driver can tell: captures, mappings and ops may be live) and rescan the
 * bus to bring it back.
 */
static void edu_remove_rescan(void)
{
	char path[128];

	snprintf(path, sizeof(path), PCI_DEVS "/%s/remove", edu_bdf);
	if (write_sysfs(path, "1") == 0)
		atomic_fetch_add(&S->edu_removes, 1);
	usleep((useconds_t)rn(50000));
	if (write_sysfs("/sys/bus/pci/rescan", "1") == 0)
		atomic_fetch_add(&S->edu_rescans, 1);
}

/* After the run: the edu device is back and bound, as the run found it. */
static int edu_wait_bound(void)
{
	char path[128];

	snprintf(path, sizeof(path), EDU_DRV "/%s", edu_bdf);
	for (int ms = 0; ms < EDU_BIND_MS; ms += 100) {
		if (access(path, F_OK) == 0)
			return 0;
		write_sysfs("/sys/bus/pci/rescan", "1");
		usleep(100000);
	}
	fprintf(stderr,
		"ioctl_fuzz: edu device %s not bound to kprof_edu again after %d s of rescans\n",
		edu_bdf, EDU_BIND_MS / 1000);
	return -1;
}

/* Device removal/creation, debugfs knobs and unload attempts. */
static void churn_proc(uint64_t seed)
{
	char buf[64];

	seed_stream(seed, 4);
	while (!atomic_load(&S->stop)) {
		unsigned int id = chance(70) ? CHURN_ID : 0;

		for (int k = (int)rn(4); k > 0; k--)
			poke_knob(chance(50) ? CHURN_ID : 0);
		/* a stall or a storm lasts until the next round at most */
		if (chance(50))
			knobs_reset(0);

		usleep((useconds_t)(20000 + rn(200000)));
		snprintf(buf, sizeof(buf), "%u", id);
		if (write_sysfs(SIM_BUS "/del_device", buf) == 0)
			atomic_fetch_add(&S->dev_del, 1);
		usleep((useconds_t)rn(50000));
		snprintf(buf, sizeof(buf), "%u %u", id, 1 + (unsigned int)rn(8));
		if (write_sysfs(SIM_BUS "/new_device", buf) == 0)
			atomic_fetch_add(&S->dev_add, 1);
		if (edu_bdf[0] && chance(20))
			edu_remove_rescan();
		if (chance(30)) {
			atomic_fetch_add(&S->rmmod_tries, 1);
			if (syscall(SYS_delete_module, "kprof", O_NONBLOCK) == 0) {
				/* the parent holds a kprof fd: this must not happen */
				atomic_fetch_add(&S->rmmod_ok, 1);
				fprintf(stderr,
					"ioctl_fuzz: ANOMALY: rmmod kprof succeeded with fds open\n");
				reload_module();
			}
		}
	}
	/*
	 * leave the devices as we found them: sim0 present with the default
	 * cores (the loop may have re-made it with 1-8), no extra one
	 */
	write_sysfs(SIM_BUS "/del_device", "0");
	write_sysfs(SIM_BUS "/new_device", "0");
	knobs_reset(0);
	snprintf(buf, sizeof(buf), "%u", CHURN_ID);
	write_sysfs(SIM_BUS "/del_device", buf);
	_exit(0);
}

/* ---- main ---- */

static int read_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "re");
	int ok = f && fscanf(f, "%" SCNu64, v) == 1;

	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

/*
 * Ring pages the module holds beyond the one ring each device may keep
 * idle in its cache: with no process left, every other page must be back.
 */
static int ring_pages_in_use(uint64_t *n, uint64_t *cached)
{
	uint64_t all;

	if (read_u64(KPROF_DBG "/pages", &all) || read_u64(KPROF_DBG "/pages_cached", cached)) {
		fprintf(stderr,
			"ioctl_fuzz: cannot read %s/pages and pages_cached: %s (debugfs not mounted on /sys/kernel/debug, or a kprof.ko without them)\n",
			KPROF_DBG, strerror(errno));
		return -1;
	}
	*n = all - *cached;
	return 0;
}

static void die_usage(void)
{
	fprintf(stderr,
		"usage: ioctl_fuzz [--seed N] [--calls N] [--workers N] [--no-chaos] [--ko PATH] [--sim-ko PATH]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 0, calls = 1000000;
	unsigned int workers = 3;
	bool chaos = true, have_seed = false;
	pid_t pids[MAX_WORKERS + 3];
	int npids = 0, keeper, fails = 0;
	uint64_t pages0, pages1, cached0, cached1;

	/* The modules the VM runner loaded (tests/vm/init), if it says. */
	if (getenv("KPROF_KO_kprof"))
		ko_path = getenv("KPROF_KO_kprof");
	if (getenv("KPROF_KO_kprof_sim"))
		sim_ko_path = getenv("KPROF_KO_kprof_sim");
	struct timespec t0, t1;
	double secs;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
			have_seed = true;
		} else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
			calls = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
			workers = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--no-chaos")) {
			chaos = false;
		} else if (!strcmp(argv[i], "--ko") && i + 1 < argc) {
			ko_path = argv[++i];
		} else if (!strcmp(argv[i], "--sim-ko") && i + 1 < argc) {
			sim_ko_path = argv[++i];
		} else {
			die_usage();
		}
	}
	if (!workers || workers > MAX_WORKERS || !calls)
		die_usage();
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
	}
	find_edu(edu_bdf, sizeof(edu_bdf));
	printf("ioctl_fuzz: seed %" PRIu64 " (replay: --seed %" PRIu64 "), %" PRIu64
	       " calls, %u workers, chaos %s, edu device %s\n", seed, seed, calls, workers,
	       chaos ? "on" : "off", edu_bdf[0] ? edu_bdf : "none");
	fflush(stdout);

	S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (S == MAP_FAILED) {
		perror("ioctl_fuzz: mmap");
		return 1;
	}
	memset(S, 0, sizeof(*S));
	atomic_store(&S->target, calls);

	if (ring_pages_in_use(&pages0, &cached0))
		return 1;
	/* Held for the whole run: the module must stay loaded. */
	keeper = open("/dev/kprof0", O_RDONLY | O_CLOEXEC);
	if (keeper < 0) {
		fprintf(stderr, "ioctl_fuzz: cannot open /dev/kprof0: %s (is kprof.ko loaded?)\n",
			strerror(errno));
		return 1;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 0; i < workers + (chaos ? 3 : 0); i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("ioctl_fuzz: fork");
			atomic_store(&S->stop, 1);
			break;
		}
		if (pid == 0) {
			if (i < workers)
				worker(i, seed);
			else if (i == workers)
				capture_proc(seed);
			else if (i == workers + 1)
				holder_proc(seed);
			else
				churn_proc(seed);
		}
		pids[npids++] = pid;
	}

	/* progress now and then (also keeps the VM runner's hang check quiet) */
	for (unsigned long next = 100000; !atomic_load(&S->stop); ) {
		usleep(200000);
		if (atomic_load(&S->calls) >= next) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			printf("ioctl_fuzz: %lu calls, %.0f s\n", atomic_load(&S->calls),
			       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
			fflush(stdout);
			next += 100000;
		}
	}
	for (int i = 0; i < npids; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) == pids[i] &&
		    (!WIFEXITED(st) || WEXITSTATUS(st))) {
			fprintf(stderr, "ioctl_fuzz: child %d ended abnormally (status 0x%x)\n",
				pids[i], st);
			fails++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (edu_bdf[0] && edu_wait_bound())
		fails++;
	close(keeper);

	printf("ioctl_fuzz: %lu ioctl calls in %.1f s (%.0f/s), seed %" PRIu64 "\n",
	       atomic_load(&S->calls), secs, atomic_load(&S->calls) / secs, seed);
	fprintf(stdout,
		"  commands: %lu valid, %lu valid with size/dir changed, %lu random kprof/sim nr, %lu random\n",
		atomic_load(&S->cls[0]), atomic_load(&S->cls[1]), atomic_load(&S->cls[2]),
		atomic_load(&S->cls[3]));
	printf("  results:");
	for (int e = 0; e < NERRNO; e++) {
		unsigned long n = atomic_load(&S->err[e]);

		if (n)
			printf(" %s=%lu",
			       e ? strerrorname_np(e) ? strerrorname_np(e) : "E?" : "ok", n);
	}
	printf("\n"
	       "  chaos: %lu captures, %lu mmaps, %lu reads, %lu polls, %lu launches, %lu kill -9, %lu del_device, %lu new_device, %lu unload attempts, %lu debugfs knob writes\n",
	       atomic_load(&S->captures), atomic_load(&S->mmaps), atomic_load(&S->reads),
	       atomic_load(&S->polls), atomic_load(&S->launches), atomic_load(&S->kills),
	       atomic_load(&S->dev_del), atomic_load(&S->dev_add), atomic_load(&S->rmmod_tries),
	       atomic_load(&S->knobs));
	if (edu_bdf[0])
		printf("  edu %s: %lu factorial ops, %lu sysfs removes, %lu rescans\n", edu_bdf,
		       atomic_load(&S->edu_launches), atomic_load(&S->edu_removes),
		       atomic_load(&S->edu_rescans));
	fprintf(stdout,
		"  mappings: %lu made, %lu MAP_PRIVATE accepted, %lu touches (%lu EFAULT), %lu mremap (%lu done), %lu partial munmap, %lu forks while mapped\n",
		atomic_load(&S->mmaps_ok), atomic_load(&S->private_maps),
		atomic_load(&S->touches),
		atomic_load(&S->touch_faults), atomic_load(&S->mremaps),
		atomic_load(&S->mremaps_ok), atomic_load(&S->part_unmaps), atomic_load(&S->forks));
	fprintf(stdout,
		"  anomalies: %lu writable mappings, %lu executable mappings, %lu mappings inherited by a child, %lu unloads with fds open (%lu reloads)\n",
		atomic_load(&S->write_maps), atomic_load(&S->exec_maps),
		atomic_load(&S->fork_copies), atomic_load(&S->rmmod_ok), atomic_load(&S->reloads));
	fails += (int)(atomic_load(&S->write_maps) + atomic_load(&S->exec_maps) +
		       atomic_load(&S->fork_copies) + atomic_load(&S->rmmod_ok));
	/* Every process and fd is gone: so is every ring not cached. */
	if (ring_pages_in_use(&pages1, &cached1)) {
		fails++;
	} else {
		printf("  ring pages beyond device caches: %" PRIu64 " before, %" PRIu64
		       " after (cached: %" PRIu64 ", %" PRIu64 ")\n",
		       pages0, pages1, cached0, cached1);
		if (pages1 != pages0) {
			fprintf(stderr,
				"ioctl_fuzz: %" PRId64 " ring pages not given back (module leak)\n",
				(int64_t)(pages1 - pages0));
			fails++;
		}
	}
	if (atomic_load(&S->calls) < calls)
		fails++;
	printf("ioctl_fuzz: %s\n", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}
